// batch_wire.cpp: requests and responses of the OpenAI and Anthropic batch APIs.
#include "runtime/providers/batch_wire.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "runtime/providers/provider.hpp"

namespace mirac {
namespace {

using Json = nlohmann::json;

std::string without_trailing_slashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

/// <base>/v1/messages/batches, whether the base URL ends in /v1 or not (as endpoint_url).
std::string anthropic_batches_url(const std::string& base_url) {
  return endpoint_url(WireProtocol::anthropic_messages, base_url) + "/batches";
}

std::string openai_url(const std::string& base_url, const std::string& path) {
  return without_trailing_slashes(base_url) + path;
}

HttpRequest request(const BatchEndpoint& at, std::string method, std::string url, std::string body = {}) {
  HttpRequest r;
  r.method = std::move(method);
  r.url = std::move(url);
  r.headers = request_headers(at.protocol, at.api_key);
  r.body = std::move(body);
  // Results files hold thousands of answers; a control call is small but may wait on a
  // busy server.
  r.timeout_s = 600;
  r.max_body_bytes = std::size_t{1} << 30;
  // A POST that creates something (a file, a batch) goes on a connection of its own:
  // libcurl sends a request again by itself when a reused connection dies before any
  // byte of the answer, and a create the server carried out would then be paid twice.
  r.fresh_connection = r.method == "POST";
  return r;
}

constexpr std::size_t kMaxCustomId = 64;
constexpr std::size_t kMinHashChars = 12;

std::string string_or(const Json& j, const char* key, const std::string& fallback = {}) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::size_t count_or(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<std::size_t>()
         : it != j.end() && it->is_number_integer() && it->get<long long>() > 0 ? static_cast<std::size_t>(it->get<long long>())
                                                                                : 0;
}

/// Anthropic's error types as the HTTP status a request alone would have received, so the
/// same classification (retry, fatal for the request, fatal for the provider) applies.
long anthropic_error_status(const std::string& type) {
  if (type == "invalid_request_error") return 400;
  if (type == "authentication_error") return 401;
  if (type == "billing_error") return 402;
  if (type == "permission_error") return 403;
  if (type == "not_found_error") return 404;
  if (type == "request_too_large") return 413;
  if (type == "rate_limit_error") return 429;
  if (type == "overloaded_error") return 529;
  if (type == "timeout_error") return 504;
  return 500;  // api_error and anything new: the server's fault, worth another try
}

RemoteBatch openai_batch(const Json& b, const std::string& base_url) {
  RemoteBatch r;
  r.id = string_or(b, "id");
  r.status = string_or(b, "status");
  r.ended = r.status == "completed" || r.status == "failed" || r.status == "expired" || r.status == "cancelled";
  r.rejected = r.status == "failed";
  if (auto c = b.find("request_counts"); c != b.end() && c->is_object()) {
    r.total = count_or(*c, "total");
    r.finished = count_or(*c, "completed") + count_or(*c, "failed");
  }
  if (auto t = b.find("created_at"); t != b.end() && t->is_number()) r.created_at = t->get<double>();
  if (auto m = b.find("metadata"); m != b.end() && m->is_object()) r.metadata_id = string_or(*m, kBatchMetadataKey);
  for (const char* file : {"output_file_id", "error_file_id"})
    if (std::string id = string_or(b, file); !id.empty()) r.result_urls.push_back(openai_url(base_url, "/files/" + id + "/content"));
  if (auto e = b.find("errors"); e != b.end() && e->is_object() && e->contains("data") && (*e)["data"].is_array())
    for (const auto& d : (*e)["data"]) {
      if (!r.message.empty()) r.message += "; ";
      r.message += string_or(d, "message", d.dump());
    }
  return r;
}

RemoteBatch anthropic_batch(const Json& b) {
  RemoteBatch r;
  r.id = string_or(b, "id");
  r.status = string_or(b, "processing_status");
  r.ended = r.status == "ended";
  if (auto c = b.find("request_counts"); c != b.end() && c->is_object()) {
    const std::size_t processing = count_or(*c, "processing");
    r.finished = count_or(*c, "succeeded") + count_or(*c, "errored") + count_or(*c, "canceled") + count_or(*c, "expired");
    r.total = processing + r.finished;
  }
  if (auto t = parse_rfc3339(string_or(b, "created_at"))) r.created_at = *t;
  if (std::string url = string_or(b, "results_url"); !url.empty()) r.result_urls.push_back(url);
  return r;
}

}  // namespace

std::string batch_custom_id(const std::string& local_id, std::size_t index, const std::string& request_hash) {
  std::string id = local_id + "_" + std::to_string(index) + "_";
  const std::size_t room = id.size() < kMaxCustomId ? kMaxCustomId - id.size() : 0;
  id += request_hash.substr(0, std::max(room, kMinHashChars));
  return id;
}

std::string batch_of_custom_id(const std::string& custom_id) {
  const auto last = custom_id.rfind('_');
  if (last == std::string::npos || last == 0) return "";
  const auto middle = custom_id.rfind('_', last - 1);
  if (middle == std::string::npos || middle == 0 || middle + 1 == last) return "";
  for (std::size_t i = middle + 1; i < last; ++i)
    if (custom_id[i] < '0' || custom_id[i] > '9') return "";
  return custom_id.substr(0, middle);
}

bool custom_id_matches_hash(const std::string& custom_id, const std::string& request_hash) {
  if (batch_of_custom_id(custom_id).empty()) return true;
  const std::string part = custom_id.substr(custom_id.rfind('_') + 1);
  // Its hash part is the hash's start, cut only where the id's length required.
  return !part.empty() && (part.size() >= kMinHashChars || part.size() == request_hash.size()) &&
         request_hash.compare(0, part.size(), part) == 0;
}

std::string openai_batch_jsonl(const std::vector<BatchItem>& items) {
  std::string out;
  for (const auto& item : items) {
    // The body goes in as the very bytes a request alone would send.
    out += "{\"custom_id\":";
    out += Json(item.custom_id).dump();
    out += ",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":";
    out += item.body;
    out += "}\n";
  }
  return out;
}

HttpRequest openai_upload_request(const BatchEndpoint& at, const std::string& jsonl, const std::string& local_id) {
  // The boundary must not occur in the file: a JSONL line never holds a raw CR LF.
  const std::string boundary = "mirac-" + local_id;
  std::string body;
  body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n";
  body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + local_id +
          ".jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n";
  body += jsonl;
  body += "\r\n--" + boundary + "--\r\n";
  HttpRequest r = request(at, "POST", openai_url(at.base_url, "/files"), std::move(body));
  for (auto& [name, value] : r.headers)
    if (name == "Content-Type") value = "multipart/form-data; boundary=" + boundary;
  return r;
}

std::optional<std::string> openai_file_id(const std::string& body, std::string& error) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("id") && j["id"].is_string()) return j["id"].get<std::string>();
  error = "the upload's answer is not a file object";
  return std::nullopt;
}

HttpRequest openai_create_request(const BatchEndpoint& at, const std::string& file_id, const std::string& local_id) {
  Json body = {{"input_file_id", file_id},
               {"endpoint", "/v1/chat/completions"},
               {"completion_window", "24h"},
               {"metadata", {{kBatchMetadataKey, local_id}}}};
  return request(at, "POST", openai_url(at.base_url, "/batches"), body.dump());
}

HttpRequest anthropic_create_request(const BatchEndpoint& at, const std::vector<BatchItem>& items) {
  std::string body = "{\"requests\":[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) body += ',';
    body += "{\"custom_id\":" + Json(items[i].custom_id).dump() + ",\"params\":" + items[i].body + "}";
  }
  body += "]}";
  return request(at, "POST", anthropic_batches_url(at.base_url), std::move(body));
}

HttpRequest batch_cancel_request(const BatchEndpoint& at, const std::string& remote_id) {
  return request(at, "POST",
                 at.protocol == WireProtocol::openai_chat ? openai_url(at.base_url, "/batches/" + remote_id + "/cancel")
                                                          : anthropic_batches_url(at.base_url) + "/" + remote_id + "/cancel");
}

HttpRequest batch_poll_request(const BatchEndpoint& at, const std::string& remote_id) {
  return request(at, "GET",
                 at.protocol == WireProtocol::openai_chat ? openai_url(at.base_url, "/batches/" + remote_id)
                                                          : anthropic_batches_url(at.base_url) + "/" + remote_id);
}

HttpRequest batch_list_request(const BatchEndpoint& at, const std::string& after) {
  if (at.protocol == WireProtocol::openai_chat)
    return request(at, "GET", openai_url(at.base_url, "/batches?limit=100") + (after.empty() ? "" : "&after=" + after));
  return request(at, "GET", anthropic_batches_url(at.base_url) + "?limit=100" + (after.empty() ? "" : "&after_id=" + after));
}

HttpRequest batch_download_request(const BatchEndpoint& at, const std::string& url) { return request(at, "GET", url); }

std::optional<RemoteBatch> parse_remote_batch(WireProtocol protocol, const std::string& base_url,
                                              const std::string& body, std::string& error) {
  Json j = Json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) {
    error = "the answer is not a batch object";
    return std::nullopt;
  }
  return protocol == WireProtocol::openai_chat ? openai_batch(j, base_url) : anthropic_batch(j);
}

std::vector<RemoteBatch> parse_batch_list(WireProtocol protocol, const std::string& base_url, const std::string& body,
                                          std::string& next_after) {
  next_after.clear();
  std::vector<RemoteBatch> out;
  Json j = Json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) return out;
  for (const auto& b : j["data"])
    if (b.is_object()) out.push_back(protocol == WireProtocol::openai_chat ? openai_batch(b, base_url) : anthropic_batch(b));
  if (j.value("has_more", false)) next_after = string_or(j, "last_id");
  return out;
}

std::vector<BatchResult> parse_batch_results(WireProtocol protocol, const std::string& jsonl, std::size_t& bad_lines) {
  std::vector<BatchResult> out;
  bad_lines = 0;
  std::size_t start = 0;
  while (start < jsonl.size()) {
    std::size_t end = jsonl.find('\n', start);
    if (end == std::string::npos) end = jsonl.size();
    const std::string_view line(jsonl.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Json j = Json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("custom_id") || !j["custom_id"].is_string()) {
      ++bad_lines;
      continue;
    }
    BatchResult r;
    r.custom_id = j["custom_id"].get<std::string>();
    if (protocol == WireProtocol::openai_chat) {
      const Json& response = j.contains("response") ? j["response"] : Json();
      if (response.is_object() && response.contains("status_code")) {
        r.kind = BatchResult::Kind::response;
        r.response.status = response["status_code"].is_number_integer() ? response["status_code"].get<long>() : 0;
        if (std::string id = string_or(response, "request_id"); !id.empty()) r.response.headers.emplace_back("x-request-id", id);
        r.response.body = response.contains("body") ? response["body"].dump() : "";
      } else {
        const Json& error = j.contains("error") ? j["error"] : Json();
        const std::string code = error.is_object() ? string_or(error, "code") : "";
        r.message = error.is_object() ? string_or(error, "message", code) : "no response and no error";
        r.kind = code == "batch_expired"     ? BatchResult::Kind::expired
                 : code == "batch_cancelled" ? BatchResult::Kind::cancelled
                                             : BatchResult::Kind::error;
        if (r.kind == BatchResult::Kind::error && !code.empty()) r.message = code + ": " + r.message;
      }
    } else {
      const Json& result = j.contains("result") ? j["result"] : Json();
      const std::string type = result.is_object() ? string_or(result, "type") : "";
      if (type == "succeeded" && result.contains("message")) {
        r.kind = BatchResult::Kind::response;
        r.response.status = 200;
        r.response.body = result["message"].dump();
      } else if (type == "errored" && result.contains("error") && result["error"].is_object()) {
        // The error as a request alone would have received it: {"type":"error","error":{...}}.
        const Json& error = result["error"];
        const Json& inner = error.contains("error") && error["error"].is_object() ? error["error"] : error;
        r.kind = BatchResult::Kind::response;
        r.response.status = anthropic_error_status(string_or(inner, "type"));
        r.response.body = error.contains("error") ? error.dump() : Json{{"type", "error"}, {"error", error}}.dump();
        if (std::string id = string_or(error, "request_id"); !id.empty()) r.response.headers.emplace_back("request-id", id);
      } else if (type == "expired") {
        r.kind = BatchResult::Kind::expired;
        r.message = "the batch expired before this request ran";
      } else if (type == "canceled") {
        r.kind = BatchResult::Kind::cancelled;
        r.message = "the batch was cancelled before this request ran";
      } else {
        r.kind = BatchResult::Kind::error;
        r.message = "unknown result type '" + type + "'";
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mirac
