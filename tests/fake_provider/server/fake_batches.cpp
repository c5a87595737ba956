// fake_batches.cpp: the fake provider's batch APIs (test-only code). OpenAI: POST /files,
// GET /files/{id}/content, POST /batches, GET /batches[/{id}], POST /batches/{id}/cancel.
// Anthropic: POST /messages/batches, GET /messages/batches[/{id}[/results]],
// POST /messages/batches/{id}/cancel. Each request of a batch is answered through
// respond(), as if sent alone, when the batch ends: what it costs is counted there.
#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <thread>

#include "fake_server.hpp"

namespace mirac::fake {

struct FakeServer::Batch {
  std::string id;
  bool anthropic = false;
  std::vector<std::pair<std::string, std::string>> lines;  // custom_id, body
  std::map<std::string, std::string> headers;              // of the create call: auth
  double created_steady = 0;
  long long created_wall = 0;
  nlohmann::json metadata = nlohmann::json::object();
  std::string input_file_id, output_file_id, error_file_id;
  bool ended = false, finishing = false, expired = false, cancelled = false;
  std::size_t succeeded = 0, errored = 0, expired_count = 0, cancelled_count = 0;
  std::string results;  // Anthropic's results JSONL
};

namespace {

using Json = nlohmann::json;

double steady_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

long long wall_s() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

std::string rfc3339(long long t) {
  std::time_t whole = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string user_text(const Json& body) {
  if (body.is_object() && body.contains("messages") && body["messages"].is_array())
    for (const auto& m : body["messages"])
      if (m.value("role", "") == "user" && m.contains("content") && m["content"].is_string()) return m["content"];
  return "";
}

/// The part of a multipart body named `name` (its content, without the part's headers).
std::string multipart_part(const std::string& body, const std::string& boundary, const std::string& name) {
  const std::string marker = "name=\"" + name + "\"";
  auto at = body.find(marker);
  if (at == std::string::npos) return "";
  auto start = body.find("\r\n\r\n", at);
  if (start == std::string::npos) return "";
  start += 4;
  auto end = body.find("\r\n--" + boundary, start);
  return body.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string query_value(const std::string& path, const std::string& key) {
  auto q = path.find('?');
  if (q == std::string::npos) return "";
  const std::string query = path.substr(q + 1);
  for (std::size_t pos = 0; pos <= query.size();) {
    auto amp = query.find('&', pos);
    const std::string kv = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return "";
}

}  // namespace

void FakeServer::finish_batch(Batch& b) {
  // Runs outside the lock: respond() takes it for every request.
  Json output = Json::array(), errors = Json::array();
  std::string out_file, err_file, results;
  std::size_t n = 0;
  for (const auto& [custom_id, body_text] : b.lines) {
    Json body = Json::parse(body_text, nullptr, false);
    const std::string user = user_text(body);
    bool expire = false;
    {
      std::lock_guard lock(mu_);
      const std::string model = body.is_object() ? body.value("model", "") : "";
      if (user.find("batch-expire") != std::string::npos && batch_prompts_seen_[model + "\n" + user]++ == 0) expire = true;
    }
    const std::string line_id = "batch_req_" + b.id + "_" + std::to_string(++n);
    if (expire || b.cancelled) {
      b.expired = b.expired || expire;
      if (b.anthropic) {
        results += Json{{"custom_id", custom_id}, {"result", {{"type", expire ? "expired" : "canceled"}}}}.dump() + "\n";
      } else {
        err_file += Json{{"id", line_id}, {"custom_id", custom_id}, {"response", nullptr},
                         {"error", {{"code", expire ? "batch_expired" : "batch_cancelled"},
                                    {"message", expire ? "This request could not be executed before the completion window expired."
                                                       : "The batch was cancelled."}}}}
                        .dump() +
                    "\n";
      }
      ++(expire ? b.expired_count : b.cancelled_count);
      continue;
    }
    Request alone;
    alone.method = "POST";
    alone.path = b.anthropic ? "/v1/messages" : "/v1/chat/completions";
    alone.headers = b.headers;
    alone.body = body_text;
    Response r = respond(alone);
    if (r.mode != Response::Mode::normal) {  // a reset or truncation: the server failed it
      r.status = 500;
      r.body = Json{{"error", {{"message", "internal error"}, {"type", "server_error"}}}}.dump();
    }
    {
      std::lock_guard lock(mu_);
      ++stats_.batch_requests_run;
    }
    Json parsed = Json::parse(r.body, nullptr, false);
    if (parsed.is_discarded()) parsed = r.body;
    if (r.status == 200) ++b.succeeded;
    else ++b.errored;
    if (b.anthropic) {
      Json result = r.status == 200 ? Json{{"type", "succeeded"}, {"message", parsed}}
                                    : Json{{"type", "errored"}, {"error", parsed}};
      results += Json{{"custom_id", custom_id}, {"result", result}}.dump() + "\n";
    } else {
      std::string rid = "req_batch_" + std::to_string(n);
      for (const auto& [k, v] : r.headers)
        if (k == "x-request-id") rid = v;
      (r.status == 200 ? out_file : err_file) +=
          Json{{"id", line_id}, {"custom_id", custom_id},
               {"response", {{"status_code", r.status}, {"request_id", rid}, {"body", parsed}}}, {"error", nullptr}}
              .dump() +
          "\n";
    }
  }
  std::lock_guard lock(mu_);
  if (!out_file.empty()) {
    b.output_file_id = "file-out-" + b.id;
    files_[b.output_file_id] = out_file;
  }
  if (!err_file.empty()) {
    b.error_file_id = "file-err-" + b.id;
    files_[b.error_file_id] = err_file;
  }
  b.results = results;
  b.ended = true;
  b.finishing = false;
}

void FakeServer::end_every_batch() {
  std::vector<std::shared_ptr<Batch>> due;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, b] : batches_)
      if (!b->ended && !b->finishing) {
        b->finishing = true;
        due.push_back(b);
      }
  }
  for (auto& b : due) {
    const double left = b->created_steady + opt_.batch_delay_s - steady_s();
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    finish_batch(*b);
  }
}

FakeServer::Response FakeServer::respond_batch(const Request& req) {
  Response res;
  const bool anthropic = req.path.find("/messages/batches") != std::string::npos;
  const std::string path = req.path.substr(0, req.path.find('?'));
  auto error = [&](int status, const std::string& message) {
    res.status = status;
    res.body = anthropic ? Json{{"type", "error"}, {"error", {{"type", status == 404 ? "not_found_error" : "invalid_request_error"}, {"message", message}}}}.dump()
                         : Json{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"param", nullptr}, {"code", nullptr}}}}.dump();
    return res;
  };
  {
    std::lock_guard lock(mu_);
    ++stats_.requests;
    ++stats_.by_path[path];
  }
  if (anthropic) {
    auto k = req.headers.find("x-api-key");
    if (!opt_.anthropic_key.empty() && (k == req.headers.end() || k->second != opt_.anthropic_key))
      return error(401, "invalid x-api-key");
  } else if (!opt_.openai_key.empty()) {
    auto k = req.headers.find("authorization");
    if (k == req.headers.end() || k->second != "Bearer " + opt_.openai_key) return error(401, "Incorrect API key provided.");
  }

  // The id after a route's prefix, and what follows it ("", "/results", "/cancel", "/content").
  auto split_id = [&](const std::string& prefix, std::string& id, std::string& rest) {
    auto at = path.find(prefix);
    if (at == std::string::npos) return false;
    std::string tail = path.substr(at + prefix.size());
    if (tail.empty() || tail[0] != '/') return tail.empty() ? (id.clear(), rest.clear(), true) : false;
    auto slash = tail.find('/', 1);
    id = tail.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
    rest = slash == std::string::npos ? "" : tail.substr(slash);
    return true;
  };
  auto describe = [&](const Batch& b) {
    const bool ended = b.ended;
    if (b.anthropic) {
      Json out = {{"id", b.id},
                  {"type", "message_batch"},
                  {"processing_status", ended ? "ended" : "in_progress"},
                  {"request_counts",
                   {{"processing", ended ? 0 : b.lines.size()},
                    {"succeeded", b.succeeded},
                    {"errored", b.errored},
                    {"canceled", b.cancelled_count},
                    {"expired", b.expired_count}}},
                  {"created_at", rfc3339(b.created_wall)},
                  {"expires_at", rfc3339(b.created_wall + 86400)},
                  {"ended_at", ended ? Json(rfc3339(wall_s())) : Json(nullptr)},
                  {"cancel_initiated_at", nullptr},
                  {"archived_at", nullptr},
                  {"results_url", ended ? Json(base_url() + "/messages/batches/" + b.id + "/results") : Json(nullptr)}};
      return out;
    }
    const char* status = !ended ? (steady_s() - b.created_steady < opt_.batch_delay_s / 4 ? "validating" : "in_progress")
                         : b.expired   ? "expired"
                         : b.cancelled ? "cancelled"
                                       : "completed";
    return Json{{"id", b.id},
                {"object", "batch"},
                {"endpoint", "/v1/chat/completions"},
                {"errors", nullptr},
                {"input_file_id", b.input_file_id},
                {"completion_window", "24h"},
                {"status", status},
                {"output_file_id", b.output_file_id.empty() ? Json(nullptr) : Json(b.output_file_id)},
                {"error_file_id", b.error_file_id.empty() ? Json(nullptr) : Json(b.error_file_id)},
                {"created_at", b.created_wall},
                {"expires_at", b.created_wall + 86400},
                {"request_counts", {{"total", b.lines.size()}, {"completed", b.succeeded}, {"failed", b.errored + b.expired_count}}},
                {"metadata", b.metadata}};
  };
  // A batch whose time has come is answered now (outside the lock), then described.
  auto current = [&](const std::string& id) -> std::shared_ptr<Batch> {
    std::shared_ptr<Batch> b;
    bool finish = false;
    {
      std::lock_guard lock(mu_);
      auto it = batches_.find(id);
      if (it == batches_.end()) return nullptr;
      b = it->second;
      if (!b->ended && !b->finishing && steady_s() - b->created_steady >= opt_.batch_delay_s) finish = b->finishing = true;
    }
    if (finish) finish_batch(*b);
    return b;
  };
  auto create = [&](std::vector<std::pair<std::string, std::string>> lines, Json metadata, std::string file_id) {
    std::string fault;
    {
      std::lock_guard lock(mu_);
      const std::size_t n = batch_creates_[anthropic ? 1 : 0]++;
      if (n < opt_.batch_create_faults.size()) fault = opt_.batch_create_faults[n];
    }
    const std::string server_error = anthropic ? Json{{"type", "error"}, {"error", {{"type", "api_error"}, {"message", "Internal server error"}}}}.dump()
                                               : Json{{"error", {{"message", "The server had an error"}, {"type", "server_error"}}}}.dump();
    if (fault == "500") {
      res.status = 500;
      res.body = server_error;
      return res;
    }
    auto b = std::make_shared<Batch>();
    b->anthropic = anthropic;
    b->lines = std::move(lines);
    b->headers = req.headers;
    b->created_steady = steady_s();
    b->created_wall = wall_s();
    b->metadata = std::move(metadata);
    b->input_file_id = std::move(file_id);
    Json out;
    {
      std::lock_guard lock(mu_);
      b->id = (anthropic ? "msgbatch_" : "batch_") + std::to_string(++stats_.batches_created);
      batches_[b->id] = b;
      batch_order_.push_back(b->id);
      out = describe(*b);
    }
    res.body = out.dump();
    // The batch exists from here on, whether or not the client hears of it.
    res.delay_s = opt_.batch_create_delay_s;
    if (fault == "500after") {
      res.status = 500;
      res.body = server_error;
    }
    if (fault == "drop") res.mode = Response::Mode::drop;
    return res;
  };
  auto list = [&](const char* after_key) {
    std::vector<std::shared_ptr<Batch>> all;
    {
      std::lock_guard lock(mu_);
      for (auto it = batch_order_.rbegin(); it != batch_order_.rend(); ++it)
        if (batches_[*it]->anthropic == anthropic) all.push_back(batches_[*it]);
    }
    const std::string after = query_value(req.path, after_key);
    std::size_t limit = 20;
    if (std::string l = query_value(req.path, "limit"); !l.empty()) limit = std::stoul(l);
    Json data = Json::array();
    bool skipping = !after.empty(), more = false;
    for (const auto& b : all) {
      if (skipping) {
        skipping = b->id != after;
        continue;
      }
      if (data.size() == limit) {
        more = true;
        break;
      }
      current(b->id);
      data.push_back(describe(*b));
    }
    Json out = {{"data", data}, {"has_more", more},
                {"first_id", data.empty() ? Json(nullptr) : data.front()["id"]},
                {"last_id", data.empty() ? Json(nullptr) : data.back()["id"]}};
    if (!anthropic) out["object"] = "list";
    res.body = out.dump();
    return res;
  };

  // A batch not yet ended runs none of its requests: each ends cancelled.
  auto cancel = [&](Batch& b) {
    std::lock_guard lock(mu_);
    if (!b.ended && !b.finishing) b.cancelled = true;
    res.body = describe(b).dump();
    return res;
  };

  std::string id, rest;
  if (anthropic && split_id("/messages/batches", id, rest)) {
    if (id.empty() && req.method == "POST") {
      Json body = Json::parse(req.body, nullptr, false);
      if (!body.is_object() || !body.contains("requests") || !body["requests"].is_array() || body["requests"].empty())
        return error(400, "requests: a non-empty list is required");
      std::vector<std::pair<std::string, std::string>> lines;
      for (const auto& r : body["requests"]) {
        if (!r.contains("custom_id") || !r["custom_id"].is_string() || !r.contains("params")) return error(400, "each request needs custom_id and params");
        lines.emplace_back(r["custom_id"], r["params"].dump());
      }
      return create(std::move(lines), Json::object(), "");
    }
    if (id.empty() && req.method == "GET") return list("after_id");
    auto b = current(id);
    if (!b) return error(404, "no batch " + id);
    if (rest == "/results" && req.method == "GET") {
      std::lock_guard lock(mu_);
      if (!b->ended) return error(400, "the batch has not ended");
      res.body = b->results;
      return res;
    }
    if (rest.empty() && req.method == "GET") {
      std::lock_guard lock(mu_);
      res.body = describe(*b).dump();
      return res;
    }
    if (rest == "/cancel" && req.method == "POST") return cancel(*b);
    return error(404, "unknown route " + req.path);
  }
  if (split_id("/files", id, rest)) {
    if (id.empty() && req.method == "POST") {
      auto ct = req.headers.find("content-type");
      const std::string type = ct == req.headers.end() ? "" : ct->second;
      auto b = type.find("boundary=");
      if (type.rfind("multipart/form-data", 0) != 0 || b == std::string::npos) return error(400, "expected multipart/form-data");
      const std::string boundary = type.substr(b + 9);
      if (multipart_part(req.body, boundary, "purpose") != "batch") return error(400, "purpose must be batch");
      std::string content = multipart_part(req.body, boundary, "file");
      std::lock_guard lock(mu_);
      const std::string file_id = "file-" + std::to_string(files_.size() + 1);
      files_[file_id] = content;
      res.body = Json{{"id", file_id}, {"object", "file"}, {"bytes", content.size()}, {"purpose", "batch"}}.dump();
      return res;
    }
    if (rest == "/content" && req.method == "GET") {
      std::lock_guard lock(mu_);
      auto f = files_.find(id);
      if (f == files_.end()) return error(404, "no file " + id);
      res.body = f->second;
      return res;
    }
    return error(404, "unknown route " + req.path);
  }
  if (split_id("/batches", id, rest)) {
    if (id.empty() && req.method == "POST") {
      Json body = Json::parse(req.body, nullptr, false);
      if (!body.is_object() || body.value("endpoint", "") != "/v1/chat/completions" ||
          body.value("completion_window", "") != "24h")
        return error(400, "endpoint must be /v1/chat/completions and completion_window 24h");
      std::string file;
      {
        std::lock_guard lock(mu_);
        auto f = files_.find(body.value("input_file_id", ""));
        if (f == files_.end()) return error(400, "unknown input_file_id");
        file = f->second;
      }
      std::vector<std::pair<std::string, std::string>> lines;
      for (std::size_t pos = 0; pos < file.size();) {
        auto end = file.find('\n', pos);
        if (end == std::string::npos) end = file.size();
        Json line = Json::parse(file.substr(pos, end - pos), nullptr, false);
        pos = end + 1;
        if (line.is_discarded()) continue;
        if (line.value("url", "") != "/v1/chat/completions" || line.value("method", "") != "POST")
          return error(400, "every line must POST to /v1/chat/completions");
        lines.emplace_back(line.value("custom_id", ""), line["body"].dump());
      }
      return create(std::move(lines), body.contains("metadata") ? body["metadata"] : Json::object(),
                    body.value("input_file_id", ""));
    }
    if (id.empty() && req.method == "GET") return list("after");
    auto b = current(id);
    if (!b) return error(404, "no batch " + id);
    if (rest.empty() && req.method == "GET") {
      std::lock_guard lock(mu_);
      res.body = describe(*b).dump();
      return res;
    }
    if (rest == "/cancel" && req.method == "POST") return cancel(*b);
    return error(404, "unknown route " + req.path);
  }
  return error(404, "unknown route " + req.path);
}

}  // namespace mirac::fake
