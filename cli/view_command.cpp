// view_command.cpp: `mirac view`: a local web server over the run store, for reading every
// answer behind the report: filters, full texts, the judge's scores and rationales, and
// matched pairs side by side (engine/view builds the index and answers the queries;
// cli/view_server ties them to routes). Loopback unless --host says otherwise; requests
// addressed to other names than this machine's and --allow-host's are refused (view_hosts).
#include <atomic>
#include <chrono>
#include <memory>
#include <ostream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/view_server.hpp"

namespace mirac::cli {

namespace {

struct ViewOptions {
  AuditOptions audit;
  int port = 8765;
  std::string host = "127.0.0.1";
  std::vector<std::string> allowed_hosts;  // --allow-host: more names the Host header may give
};

// Whether `host` only accepts connections from this machine.
bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int serve(const ViewOptions& o, std::ostream& out, std::ostream& err) {
  if (o.port < 0 || o.port > 65535) {
    err << fmt::format("mirac view: --port {} is not a port (0 to 65535; 0 picks a free one)\n", o.port);
    return kUsageError;
  }
  for (const std::string& name : o.allowed_hosts)
    if (std::string problem = ViewHosts::problem_with_name(name); !problem.empty()) {
      err << fmt::format("mirac view: --allow-host '{}' {}\n", name, problem);
      return kUsageError;
    }
  Audit audit;
  if (int code = open_read_audit(o.audit, audit, err); code != kOk) return code;
  Outcome built;
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<view::AnswerIndex> index = view::AnswerIndex::build(audit, built);
  if (!index) return finish(built, err);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::filesystem::path results = audit.options.out_dir.empty() ? audit.run_dir / "results"
                                                                      : std::filesystem::path(audit.options.out_dir);
  httplib::Server server;
  add_view_routes(server, *index, results, ViewHosts(o.host, o.allowed_hosts));
  limit_view_connections(server);
  int port = o.port;
  if (port == 0) port = server.bind_to_any_port(o.host);
  else if (!server.bind_to_port(o.host, port)) port = -1;
  if (port <= 0) {
    err << fmt::format("mirac view: cannot listen on {}:{} (in use, or not an address of this machine; --port 0 "
                       "picks a free port)\n",
                       o.host, o.port);
    return kRunError;
  }
  if (!is_loopback(o.host)) {
    err << fmt::format("mirac view: warning: listening on {}: anyone who can reach this machine can read the answers\n",
                       o.host);
    if (o.allowed_hosts.empty())
      err << "mirac view: it answers requests addressed to localhost, 127.0.0.1, [::1] or the --host address (not "
             "0.0.0.0 or ::); --allow-host NAME adds a name it is reached by\n";
  }
  err << fmt::format("mirac view: {} requests, {} in {:.1f} s\n", index->rows().size(),
                     index->rater().empty() ? std::string("no judge") : "scores of " + index->rater(), seconds);
  // The server runs on its own thread; this one waits for SIGINT or SIGTERM, then stops it
  // (answers in flight finish, no new connection is taken) and the command returns. The
  // handlers are in place before the URL is printed, so a signal right after it still stops
  // the server cleanly.
  InterruptGuard guard;
  const std::string shown = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  out << fmt::format("mirac view: http://{}:{}/ (Ctrl-C to stop)", shown, port) << std::endl;
  std::atomic<bool> listening_ended{false};
  std::thread listener([&server, &listening_ended] {
    server.listen_after_bind();
    listening_ended = true;
  });
  while (!guard.cancelled() && !listening_ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const bool stopped_by_signal = guard.cancelled();
  server.stop();
  listener.join();
  if (!stopped_by_signal) {
    err << "mirac view: the server stopped unexpectedly\n";
    return kRunError;
  }
  err << "mirac view: stopped\n";
  return kOk;
}

}  // namespace

void add_view_command(Commands& commands) {
  auto o = std::make_shared<ViewOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  CLI::App* view = commands.add("view", "browse the answers, scores and matched pairs of the run store in a web page",
                                [o, &out, &err] { return serve(*o, out, err); });
  add_spec(view, o->audit);
  add_data(view, o->audit);
  add_answers(view, o->audit);
  add_read_store(view, o->audit);
  add_read_only(view, o->audit, "show");
  view->add_option("--port", o->port, "port to listen on (default 8765; 0 picks a free port)");
  view->add_option("--host", o->host,
                   "address to listen on (default 127.0.0.1, this machine only; another address shares the answers)");
  view->add_option("--allow-host", o->allowed_hosts,
                   "a name the view may be reached by besides localhost, 127.0.0.1, [::1] and --host, e.g. this "
                   "machine's name on the network with --host 0.0.0.0 (repeatable)")
      ->allow_extra_args(false);
}

}  // namespace mirac::cli
