// response_parser.cpp: HTTP response -> answer, or an error classified as retryable,
// fatal for the request, or fatal for the provider (doc §0, §1 Errors, §4 Errors, §6).
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <ctime>

#include "runtime/providers/provider.hpp"

namespace mirac {
namespace {

std::string str_field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return {};
  const auto& v = obj[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());  // Gemini: code 429
  return {};
}

long long int_field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return 0;
  return obj[key].get<long long>();
}

/// The error object in any of the shapes seen in the wild: OpenAI {"error":{...}},
/// Anthropic {"type":"error","error":{...}}, Gemini [{"error":{...}}], flat vLLM
/// {"object":"error",...}. Returns null when none.
nlohmann::json find_error(const nlohmann::json& body) {
  const nlohmann::json* b = &body;
  if (b->is_array() && !b->empty()) b = &(*b)[0];
  if (!b->is_object()) return nullptr;
  if (b->contains("error") && (*b)["error"].is_object()) return (*b)["error"];
  if (b->contains("error") && (*b)["error"].is_string())
    return nlohmann::json{{"message", (*b)["error"]}};
  if (str_field(*b, "object") == "error") return *b;
  return nullptr;
}

/// Quota, billing and spend-cap errors: retrying wastes attempts (doc §0.3).
bool is_billing_error(long status, const nlohmann::json& err) {
  if (status == 402) return true;
  std::string code = str_field(err, "code"), type = str_field(err, "type");
  std::string details_code;
  if (err.is_object() && err.contains("details")) details_code = str_field(err["details"], "error_code");
  for (const std::string& v : {code, type, details_code})
    if (v == "insufficient_quota" || v == "credit_balance_exhausted" || v == "Arrearage" ||
        v == "billing_error" || v == "enforced_spend_limit_reached")
      return true;
  std::string msg = str_field(err, "message");
  // Anthropic reports a low credit balance and workspace spend limits as plain 400s.
  return msg.find("credit balance") != std::string::npos ||
         msg.find("spend limit") != std::string::npos;
}

std::string billing_cause(long status, const nlohmann::json& err) {
  std::string code = str_field(err, "code");
  if (code == "insufficient_quota" || code == "Arrearage" || code == "credit_balance_exhausted")
    return code;
  if (err.is_object() && err.contains("details") &&
      str_field(err["details"], "error_code") == "enforced_spend_limit_reached")
    return "enforced_spend_limit_reached";
  if (str_field(err, "type") == "insufficient_quota") return "insufficient_quota";
  return status == 402 ? "payment_required" : "billing_error";
}

std::string snippet(const std::string& body) {
  std::string s = body.substr(0, 200);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

void parse_openai(const nlohmann::json& b, ParsedAnswer& a) {
  const auto& choice = b["choices"][0];
  const auto& msg = choice.contains("message") ? choice["message"] : nlohmann::json::object();
  if (msg.contains("content")) {
    const auto& c = msg["content"];
    if (c.is_string()) {
      a.text = c.get<std::string>();
    } else if (c.is_array()) {  // some compatible servers return content parts
      for (const auto& part : c) a.text += str_field(part, "text");
    }
  }
  if (a.text.empty() && msg.contains("refusal") && msg["refusal"].is_string()) a.refusal = true;
  a.finish_reason = str_field(choice, "finish_reason");
  a.truncated = a.finish_reason == "length";
  a.refusal = a.refusal || a.finish_reason == "refusal";
  a.returned_model = str_field(b, "model");
  a.system_fingerprint = str_field(b, "system_fingerprint");
  if (b.contains("usage") && b["usage"].is_object()) {
    a.input_tokens = int_field(b["usage"], "prompt_tokens");
    a.output_tokens = int_field(b["usage"], "completion_tokens");
  }
}

void parse_anthropic(const nlohmann::json& b, ParsedAnswer& a) {
  for (const auto& block : b["content"]) {
    std::string type = str_field(block, "type");
    if (type == "text") a.text += str_field(block, "text");
    else if (type == "tool_use" && block.contains("input")) a.text += block["input"].dump();
  }
  a.finish_reason = str_field(b, "stop_reason");
  a.truncated = a.finish_reason == "max_tokens";
  a.refusal = a.finish_reason == "refusal";
  a.returned_model = str_field(b, "model");
  if (b.contains("usage") && b["usage"].is_object()) {
    const auto& u = b["usage"];
    // Total input = uncached + cache writes + cache reads (doc §4).
    a.input_tokens = int_field(u, "input_tokens") + int_field(u, "cache_creation_input_tokens") +
                     int_field(u, "cache_read_input_tokens");
    a.output_tokens = int_field(u, "output_tokens");
  }
}

bool well_formed(WireProtocol protocol, const nlohmann::json& b) {
  if (!b.is_object()) return false;
  if (protocol == WireProtocol::openai_chat)
    return b.contains("choices") && b["choices"].is_array() && !b["choices"].empty() &&
           b["choices"][0].is_object();
  return b.contains("content") && b["content"].is_array();
}

std::optional<double> number(const std::string* s) {
  if (!s || s->empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s->c_str(), &end);
  if (end == s->c_str() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> parse_http_date(const std::string& s, double wall_now_s) {
  std::tm tm{};
  if (!strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S", &tm)) return std::nullopt;
  return static_cast<double>(timegm(&tm)) - wall_now_s;
}

}  // namespace

std::optional<double> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    char* end = nullptr;
    double v = std::strtod(text.c_str() + i, &end);
    size_t j = static_cast<size_t>(end - text.c_str());
    if (j == i) return std::nullopt;
    std::string unit;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) unit += text[j++];
    if (unit == "h") total += v * 3600;
    else if (unit == "m") total += v * 60;
    else if (unit == "s" || unit.empty()) total += v;
    else if (unit == "ms") total += v / 1e3;
    else if (unit == "us") total += v / 1e6;
    else if (unit == "ns") total += v / 1e9;
    else return std::nullopt;
    any = true;
    i = j;
  }
  return any && std::isfinite(total) ? std::optional<double>(total) : std::nullopt;
}

std::optional<double> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) return std::nullopt;
  double frac = 0;
  if (*rest == '.') {
    char* end = nullptr;
    frac = std::strtod(rest, &end);
    rest = end;
  }
  double offset = 0;
  if (*rest == '+' || *rest == '-') {
    int hh = 0, mm = 0;
    if (std::sscanf(rest + 1, "%d:%d", &hh, &mm) >= 1) offset = (hh * 3600 + mm * 60) * (*rest == '+' ? 1 : -1);
  }
  return static_cast<double>(timegm(&tm)) + frac - offset;
}

std::optional<double> parse_retry_after(const HttpResponse& r, double wall_now_s) {
  if (auto ms = number(r.header("retry-after-ms"))) return *ms / 1000.0;
  const std::string* ra = r.header("retry-after");
  if (!ra) return std::nullopt;
  if (auto s = number(ra)) return *s;
  return parse_http_date(*ra, wall_now_s);
}

RateLimitInfo parse_rate_limits(const HttpResponse& r, double wall_now_s) {
  RateLimitInfo info;
  if (r.header("x-ratelimit-remaining-requests") || r.header("x-ratelimit-remaining-tokens")) {
    info.limit_requests = number(r.header("x-ratelimit-limit-requests"));
    info.remaining_requests = number(r.header("x-ratelimit-remaining-requests"));
    info.limit_tokens = number(r.header("x-ratelimit-limit-tokens"));
    info.remaining_tokens = number(r.header("x-ratelimit-remaining-tokens"));
    if (auto* s = r.header("x-ratelimit-reset-requests")) info.reset_requests_s = parse_duration(*s);
    if (auto* s = r.header("x-ratelimit-reset-tokens")) info.reset_tokens_s = parse_duration(*s);
    return info;
  }
  // Anthropic: resets are absolute timestamps, turned into delays from now.
  auto reset = [&](const char* name) -> std::optional<double> {
    const std::string* s = r.header(name);
    if (!s) return std::nullopt;
    auto t = parse_rfc3339(*s);
    if (!t) return std::nullopt;
    return std::max(0.0, *t - wall_now_s);
  };
  info.limit_requests = number(r.header("anthropic-ratelimit-requests-limit"));
  info.remaining_requests = number(r.header("anthropic-ratelimit-requests-remaining"));
  info.reset_requests_s = reset("anthropic-ratelimit-requests-reset");
  info.limit_tokens = number(r.header("anthropic-ratelimit-tokens-limit"));
  info.remaining_tokens = number(r.header("anthropic-ratelimit-tokens-remaining"));
  info.reset_tokens_s = reset("anthropic-ratelimit-tokens-reset");
  return info;
}

Interpretation interpret(WireProtocol protocol, const HttpResponse& r, double wall_now_s) {
  Interpretation out;
  out.limits = parse_rate_limits(r, wall_now_s);
  out.retry_after_s = parse_retry_after(r, wall_now_s);
  const std::string* rid = r.header(protocol == WireProtocol::openai_chat ? "x-request-id" : "request-id");
  if (!rid) rid = r.header("x-request-id");
  if (rid) out.answer.request_id = *rid;

  if (r.error != TransportError::none) {
    out.cause = to_string(r.error);
    out.message = r.error_message;
    // A bad base URL fails every request to that provider the same way.
    out.verdict = r.error == TransportError::bad_url ? Verdict::fatal_provider : Verdict::retry;
    return out;
  }

  nlohmann::json body = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (r.status >= 200 && r.status < 300) {
    if (body.is_discarded() || !well_formed(protocol, body)) {
      // Billed or not, there is no answer to keep; a retry usually gets a clean body.
      out.verdict = Verdict::retry;
      out.cause = "malformed_response";
      out.message = fmt::format("HTTP {} with an unusable body: {}", r.status, snippet(r.body));
      return out;
    }
    if (protocol == WireProtocol::openai_chat) parse_openai(body, out.answer);
    else parse_anthropic(body, out.answer);
    if (out.answer.request_id.empty()) out.answer.request_id = str_field(body, "id");
    out.verdict = Verdict::ok;
    out.cause = "ok";
    return out;
  }

  nlohmann::json err = body.is_discarded() ? nlohmann::json(nullptr) : find_error(body);
  std::string server_msg = err.is_null() ? snippet(r.body) : str_field(err, "message");
  out.message = fmt::format("HTTP {}: {}", r.status, server_msg);

  if (is_billing_error(r.status, err)) {
    out.verdict = Verdict::fatal_provider;
    out.cause = billing_cause(r.status, err);
    return out;
  }
  if (r.status == 401 || r.status == 403) {
    // A rejected key or region affects every request to the provider.
    out.verdict = Verdict::fatal_provider;
    out.cause = r.status == 401 ? "authentication" : "permission_denied";
    return out;
  }
  bool retryable = r.status == 408 || r.status == 409 || r.status == 429 || r.status >= 500;
  if (const std::string* sr = r.header("x-should-retry")) {
    if (*sr == "true") retryable = true;
    if (*sr == "false") retryable = false;
  }
  switch (r.status) {
    case 429: out.cause = "rate_limited"; break;
    case 529: out.cause = "overloaded"; break;
    case 400: out.cause = "invalid_request"; break;
    case 404: out.cause = "not_found"; break;
    case 413: out.cause = "request_too_large"; break;
    case 422: out.cause = "unprocessable"; break;
    default: out.cause = fmt::format("http_{}", r.status);
  }
  out.verdict = retryable ? Verdict::retry : Verdict::fatal_request;
  return out;
}

}  // namespace mirac
