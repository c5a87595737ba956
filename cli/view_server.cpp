#include "cli/view_server.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "engine/view/json.hpp"
#include "engine/view/page.hpp"
#include "interpreter/eval/eval.hpp"

namespace mirac::cli {

namespace {

using view::Json;

// JSON as the page reads it: UTF-8 as is; bytes that are not UTF-8 become U+FFFD.
void send_json(httplib::Response& res, const Json& body, int status = 200) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json; charset=utf-8");
}

void send_error(httplib::Response& res, const std::string& message, int status = 400) {
  send_json(res, Json{{"error", message}}, status);
}

// The last value of each query parameter (a repeated one keeps the last, as a form sends).
view::Params params_of(const httplib::Request& req) {
  view::Params out;
  for (const auto& [k, v] : req.params) out[k] = v;
  return out;
}

constexpr std::size_t kMaxPage = 1000;

// A report page of results_dir as the view serves it: its means link to the answers they
// average on the view's page (view::with_answer_links). The file on disk stays as it is.
// Nullopt when `path` names no report page there.
std::optional<std::string> linked_report(const std::filesystem::path& results_dir, const std::string& path) {
  // Only the names the report writes (report.html, report-NAME.html), so nothing else
  // under or above results_dir can be asked for here.
  static const std::regex page(R"(/report/(report(-[A-Za-z0-9_-]+)?\.html))");
  std::smatch m;
  if (!std::regex_match(path, m, page)) return std::nullopt;
  std::ifstream in(results_dir / m[1].str(), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return view::with_answer_links(text.str());
}

// One Host header, naming this server. Every browser and HTTP/1.1 client sends exactly one;
// a request with none (HTTP/1.0, or typed by hand) or two says nothing that can be checked,
// so it is refused rather than guessed at.
bool addressed_to_this_server(const ViewHosts& hosts, const httplib::Request& req) {
  return req.get_header_value_count("Host") == 1 && hosts.allows(req.get_header_value("Host"));
}

// 403 in plain text, naming the Host it was sent to (printable ASCII, cut short) so that a
// user reaching the view by another name sees which one to allow.
void refuse_host(const httplib::Request& req, httplib::Response& res) {
  const std::size_t count = req.get_header_value_count("Host");
  std::string named;
  for (char c : req.get_header_value("Host").substr(0, 80)) named += (c >= 0x20 && c < 0x7f) ? c : '?';
  const std::string this_one = count == 0 ? "has no Host header"
                               : count > 1 ? "has several"
                                           : "is addressed to '" + named + "'";
  res.status = 403;
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content("mirac view answers only requests addressed to localhost, 127.0.0.1, [::1], the address it listens "
                  "on, or a name given with --allow-host; this one " + this_one + ".\n",
                  "text/plain; charset=utf-8");
}

}  // namespace

void add_view_routes(httplib::Server& server, const view::AnswerIndex& index, const std::filesystem::path& results_dir,
                     const ViewHosts& hosts) {
  const bool has_report = std::filesystem::exists(results_dir / "report.html");
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(view::page_html()), "text/html; charset=utf-8");
  });
  server.Get("/api/meta", [&index, has_report](const httplib::Request&, httplib::Response& res) {
    send_json(res, view::meta_json(index, has_report));
  });
  server.Get("/api/answers", [&index](const httplib::Request& req, httplib::Response& res) {
    const view::Params params = params_of(req);
    std::string error;
    const view::Filter filter = view::parse_filter(index, params, error);
    const std::size_t offset = view::page_param(params, "offset", 0, index.rows().size(), error);
    const std::size_t limit = view::page_param(params, "limit", 50, kMaxPage, error);
    if (!error.empty()) return send_error(res, error);
    send_json(res, view::answers_json(index, view::filter_rows(index, filter), offset, limit));
  });
  server.Get(R"(/api/answer/(\d+))", [&index](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (id.size() > 12 || std::stoull(id) >= index.rows().size())
      return send_error(res, "no answer " + id + " (ids run from 0 to " + std::to_string(index.rows().size()) + " - 1)", 404);
    send_json(res, view::answer_json(index, index.rows()[std::stoull(id)]));
  });
  server.Get("/api/pairs", [&index](const httplib::Request& req, httplib::Response& res) {
    const view::Params params = params_of(req);
    std::string error;
    const view::PairQuery query = view::parse_pairs(index, params, error);
    const std::size_t offset = view::page_param(params, "offset", 0, index.rows().size(), error);
    const std::size_t limit = view::page_param(params, "limit", 20, kMaxPage, error);
    if (!error.empty()) return send_error(res, error);
    try {
      send_json(res, view::pairs_json(index, query, view::find_pairs(index, query), offset, limit));
    } catch (const EvalError& e) {
      send_error(res, std::string("the flag's condition cannot be evaluated: ") + e.what(), 422);
    }
  });
  // Every request passes here first, the report's files included: the Host check, then
  // the report pages, ahead of the mount point, which would serve them as they are on disk.
  server.set_pre_routing_handler([hosts, results_dir, has_report](const httplib::Request& req,
                                                                  httplib::Response& res) {
    if (!addressed_to_this_server(hosts, req)) {
      refuse_host(req, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!has_report || req.method != "GET") return httplib::Server::HandlerResponse::Unhandled;
    std::optional<std::string> page = linked_report(results_dir, req.path);
    if (!page) return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("Cache-Control", "no-store");
    res.set_content(*page, "text/html; charset=utf-8");
    return httplib::Server::HandlerResponse::Handled;
  });
  if (has_report) {
    server.set_mount_point("/report/", results_dir.string());
    server.Get("/report", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/report/report.html"); });
  } else {
    server.Get("/report", [results_dir](const httplib::Request&, httplib::Response& res) {
      send_error(res, "no report yet at " + (results_dir / "report.html").string() + " (`mirac analyze` writes it)", 404);
    });
  }
}

void limit_view_connections(httplib::Server& server) {
  // httplib gives each connection one thread of its pool from accept to close, the waits
  // for a first request and between requests included; connections beyond the pool queue
  // until a thread is free. Its default pool is max(8, cores - 1), so on a small machine
  // eight sockets that connect and say nothing (a stuck tab, a browser's speculative
  // connections) held every thread until their 5 s timeout, and every page load waited
  // behind them. 64 threads outnumber what a browser opens to one server (6 connections
  // per host name, across its tabs) many times over; they are made once, and an idle one
  // costs the pages its stack has touched, not the 8 MB reserved. Sockets queued beyond
  // them are bounded by the open-file limit.
  constexpr std::size_t kConnectionThreads = 64;
  server.new_task_queue = [] { return new httplib::ThreadPool(kConnectionThreads); };
  // A browser on this machine (or through a tunnel) sends a request at once and reads the
  // reply as it comes, so a few seconds without a byte means a stuck client; its thread is
  // then freed. Per read or write, not per request (httplib 0.11 has no overall deadline).
  server.set_keep_alive_timeout(3);  // seconds idle before a first request or between two
  server.set_read_timeout(3, 0);
  server.set_write_timeout(5, 0);
  server.set_keep_alive_max_count(100);  // a page's API calls reuse a connection
}

}  // namespace mirac::cli
