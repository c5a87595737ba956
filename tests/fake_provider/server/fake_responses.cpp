// fake_responses.cpp: what the fake provider answers: routing, auth, the enforced RPM
// limit, scripted faults, and well-formed answers in each protocol's shape.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string_view>

#include "fake_server.hpp"

namespace mirac::fake {
namespace {

using Json = nlohmann::json;

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// Absolute UTC time `seconds` from now, as Anthropic sends resets (with milliseconds).
std::string rfc3339_in(double seconds) {
  using namespace std::chrono;
  auto t = system_clock::now() + duration_cast<system_clock::duration>(duration<double>(seconds));
  std::time_t whole = system_clock::to_time_t(t);
  long ms = static_cast<long>(duration_cast<milliseconds>(t.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + "." + std::to_string(1000 + ms).substr(1) + "Z";
}

/// Parses `[[fake k=v k=v]]` out of the prompt.
std::map<std::string, std::string> directives(const std::string& text) {
  std::map<std::string, std::string> out;
  auto open = text.find("[[fake");
  if (open == std::string::npos) return out;
  auto close = text.find("]]", open);
  std::istringstream in(text.substr(open + 6, close - open - 6));
  for (std::string kv; in >> kv;) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

Json openai_error(const std::string& message, const std::string& type, const Json& code) {
  return Json{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}};
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// A judge's reply when the system prompt is mirac's judge instructions ("Its keys are "D1",
// "D2" and "rationale"."): each score is planted from the answer (so judges mostly agree)
// and moved by one step for about three replies in ten, differently per judge model, so
// that two judges agree as real ones do: often, not always. Empty for other requests.
// A criterion is planted as met for about half of (criterion, answer) pairs, the same for
// every judge model, so that judges agree on the criteria.
bool planted_met(const std::string& criterion, const std::string& user) { return fnv1a(criterion + "|" + user) % 2 == 0; }

std::string planted_judgment(const std::string& system, const std::string& user, const std::string& model) {
  if (system.find("meets one criterion.") != std::string::npos) {  // a criterion's own call
    const auto at = user.find("\nCRITERION TO GRADE\n");
    const std::string criterion = at == std::string::npos ? "" : user.substr(at, user.find('\n', at + 21) - at);
    return Json{{"met", planted_met(criterion, user.substr(0, at))}, {"quote", "planted"}}.dump();
  }
  const std::string keys_at = "Its keys are ";
  const auto k = system.find(keys_at);
  if (k == std::string::npos) return "";
  const auto end = system.find("\"rationale\"", k);
  std::vector<std::string> dims;
  for (auto q = system.find('"', k); q != std::string::npos && q < end; q = system.find('"', q)) {
    const auto e = system.find('"', q + 1);
    if (system.substr(q + 1, e - q - 1) != "criteria") dims.push_back(system.substr(q + 1, e - q - 1));
    q = e + 1;
  }
  int lo = 1, hi = 5;
  if (auto sc = system.find("Every score is a whole number from "); sc != std::string::npos)
    std::sscanf(system.c_str() + sc, "Every score is a whole number from %d to %d", &lo, &hi);
  Json reply = Json::object(), why = Json::object();
  for (const auto& d : dims) {
    const std::uint64_t base = fnv1a(d + "|" + user), own = fnv1a(model + "|" + d + "|" + user);
    int score = lo + static_cast<int>(base % static_cast<std::uint64_t>(hi - lo + 1));
    if (own % 10 < 3) score += (own / 10) % 2 ? 1 : -1;
    reply[d] = std::clamp(score, lo, hi);
    why[d] = "planted";
  }
  if (const auto at = user.find("\nCRITERIA TO GRADE\n"); at != std::string::npos) {
    // One grade per numbered line; "criteria-short" in the answer plants one too few.
    Json grades = Json::array();
    const std::string answer = user.substr(0, at);
    for (auto line = user.find('\n', at + 1); line != std::string::npos; line = user.find('\n', line + 1)) {
      const auto next = user.find('\n', line + 1);
      const std::string text = user.substr(line + 1, next == std::string::npos ? std::string::npos : next - line - 1);
      if (text.empty() || text.find(". ") == std::string::npos || !std::isdigit(static_cast<unsigned char>(text[0]))) break;
      grades.push_back({{"met", planted_met("\nCRITERION TO GRADE\n" + text.substr(text.find(". ") + 2), answer)},
                        {"quote", "planted"}});
    }
    if (user.find("criteria-short") != std::string::npos && user.find("(repair") == std::string::npos &&
        !grades.empty())
      grades.erase(grades.end() - 1);
    reply["criteria"] = grades;
  }
  reply["rationale"] = why;
  return reply.dump();
}

Json anthropic_error(const std::string& type, const std::string& message) {
  return Json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}, {"request_id", "req_fake"}};
}

}  // namespace

FakeServer::Response FakeServer::respond(const Request& req) {
  if (req.path.find("/batches") != std::string::npos || req.path.find("/files") != std::string::npos)
    return respond_batch(req);
  Response res;
  res.delay_s = opt_.latency_s;
  bool anthropic = req.path.size() >= 9 && req.path.rfind("/messages") == req.path.size() - 9;
  bool openai = req.path.find("/chat/completions") != std::string::npos;
  Json body = Json::parse(req.body, nullptr, false);
  std::string user, system, model = "fake-model";
  if (!body.is_discarded() && body.is_object()) {
    if (body.contains("model") && body["model"].is_string()) model = body["model"];
    if (body.contains("system") && body["system"].is_string()) system = body["system"];
    if (body.contains("messages") && body["messages"].is_array())
      for (const auto& m : body["messages"]) {
        const std::string role = m.value("role", "");
        if (!m.contains("content") || !m["content"].is_string()) continue;
        if (role == "user") user = m["content"];
        if (role == "system" || role == "developer") system = m["content"];
      }
  }
  auto err = [&](int status, const Json& openai_shape, const Json& anthropic_shape) {
    res.status = status;
    res.body = (anthropic ? anthropic_shape : openai_shape).dump();
    return res;
  };

  std::size_t id;
  int receipt;
  bool over_limit = false;
  double retry_in = 0, remaining = 1000, reset_in = 0;
  {
    std::lock_guard lock(mu_);
    id = ++next_id_;
    ++stats_.requests;
    ++stats_.by_path[req.path];
    receipt = ++receipts_[user];
    if (bodies_.size() < 100000) bodies_.push_back(req.body);
    if (auto a = req.headers.find(anthropic ? "x-api-key" : "authorization"); a != req.headers.end())
      auth_.push_back(a->second);
    if (opt_.rpm_limit > 0) {
      double now = now_s();
      while (!window_.empty() && window_.front() <= now - opt_.rpm_window_s) window_.pop_front();
      if (static_cast<int>(window_.size()) >= opt_.rpm_limit) {
        over_limit = true;
        ++stats_.rate_limited;
        retry_in = window_.front() + opt_.rpm_window_s - now;
      } else {
        window_.push_back(now);
      }
      remaining = opt_.rpm_limit - static_cast<double>(window_.size());
      // When the window is full, the next slot frees as its oldest request ages out.
      reset_in = window_.empty() ? 0 : std::max(0.0, window_.front() + opt_.rpm_window_s - now);
    }
  }
  std::string rid = "req_fake_" + std::to_string(id);
  // `[[fake echo=key]]`: the server echoes the key it received in its request-id header and
  // in the answer, as some proxies do, so tests can check mirac never keeps what it echoes.
  std::string echoed_key;
  if (user.find("echo=key") != std::string::npos) {
    auto k = req.headers.find(anthropic ? "x-api-key" : "authorization");
    if (k != req.headers.end()) echoed_key = k->second.rfind("Bearer ", 0) == 0 ? k->second.substr(7) : k->second;
    rid = "req_" + echoed_key;
  }
  res.headers.emplace_back(anthropic ? "request-id" : "x-request-id", rid);
  if (anthropic) {
    res.headers.emplace_back("anthropic-ratelimit-requests-limit", std::to_string(opt_.rpm_limit > 0 ? opt_.rpm_limit : 1000));
    res.headers.emplace_back("anthropic-ratelimit-requests-remaining", std::to_string(static_cast<long>(remaining)));
    res.headers.emplace_back("anthropic-ratelimit-requests-reset", rfc3339_in(reset_in));
  } else {
    res.headers.emplace_back("x-ratelimit-limit-requests", std::to_string(opt_.rpm_limit > 0 ? opt_.rpm_limit : 1000));
    res.headers.emplace_back("x-ratelimit-remaining-requests", std::to_string(static_cast<long>(remaining)));
    res.headers.emplace_back("x-ratelimit-reset-requests", std::to_string(reset_in) + "s");
    res.headers.emplace_back("x-ratelimit-limit-tokens", "1000000");
    res.headers.emplace_back("x-ratelimit-remaining-tokens", "999000");
    res.headers.emplace_back("x-ratelimit-reset-tokens", "6m0s");
  }
  auto count = [&](int status) {
    std::lock_guard lock(mu_);
    ++stats_.by_status[status];
    if (status != 200) return;
    ++stats_.answered;
    // A client that stores every answer it received never asks the same question twice.
    // The same question to another model, or under another system prompt, is another request.
    if (++answers_[model + "\n" + system + "\n" + user] > 1) ++stats_.paid_twice;
  };

  if (req.method != "POST" || (!anthropic && !openai)) {
    count(404);
    return err(404, openai_error("Unknown route " + req.path, "invalid_request_error", "unknown_url"),
               anthropic_error("not_found_error", "Unknown route " + req.path));
  }
  if (anthropic) {
    auto k = req.headers.find("x-api-key");
    if (!opt_.anthropic_key.empty() && (k == req.headers.end() || k->second != opt_.anthropic_key)) {
      count(401);
      return err(401, Json{}, anthropic_error("authentication_error", "invalid x-api-key"));
    }
    if (!req.headers.count("anthropic-version")) {
      count(400);
      return err(400, Json{}, anthropic_error("invalid_request_error", "anthropic-version header is required"));
    }
  } else if (!opt_.openai_key.empty()) {
    auto k = req.headers.find("authorization");
    if (k == req.headers.end() || k->second != "Bearer " + opt_.openai_key) {
      count(401);
      return err(401, openai_error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"), Json{});
    }
  }
  if (body.is_discarded()) {
    count(400);
    return err(400, openai_error("We could not parse the JSON body of your request.", "invalid_request_error", nullptr),
               anthropic_error("invalid_request_error", "invalid JSON body"));
  }
  if (opt_.quota_exhausted) {
    count(anthropic ? 402 : 429);
    return err(anthropic ? 402 : 429,
               openai_error("You exceeded your current quota, please check your plan and billing details.",
                            "insufficient_quota", "insufficient_quota"),
               anthropic_error("billing_error", "Your credit balance is too low."));
  }
  if (over_limit) {
    count(429);
    res.headers.emplace_back("retry-after-ms", std::to_string(static_cast<long>(std::ceil(retry_in * 1000))));
    res.headers.emplace_back("retry-after", std::to_string(static_cast<long>(std::ceil(retry_in))));
    return err(429, openai_error("Rate limit reached for requests per min (RPM).", "requests", "rate_limit_exceeded"),
               anthropic_error("rate_limit_error", "Number of requests has exceeded your rate limit."));
  }

  auto d = directives(user);
  if (d.count("latency")) res.delay_s += std::stod(d["latency"]) / 1000.0;
  std::string fail = d.count("fail") ? d["fail"] : "";
  if (d.count("times") && receipt > std::stoi(d["times"])) fail.clear();
  std::string finish = anthropic ? "end_turn" : "stop";
  std::string text = planted_judgment(system, user, model);
  if (text.empty()) text = "echo: " + user.substr(0, 200);
  if (!echoed_key.empty()) text += " (your key is " + echoed_key + ")";
  bool refusal = false;
  if (fail == "429" || fail == "429ms" || fail == "429long") {
    if (d.count("ra")) res.headers.emplace_back("retry-after", d["ra"]);
    if (d.count("ra_ms")) res.headers.emplace_back("retry-after-ms", d["ra_ms"]);
    if (fail == "429long") res.headers.emplace_back("retry-after", "300");
    count(429);
    return err(429, openai_error("Rate limit reached. Please try again in 1s.", "requests", "rate_limit_exceeded"),
               anthropic_error("rate_limit_error", "rate limited"));
  }
  if (fail == "quota") {
    count(429);
    return err(429, openai_error("You exceeded your current quota, please check your plan and billing details.",
                                 "insufficient_quota", "insufficient_quota"),
               anthropic_error("billing_error", "Your credit balance is too low."));
  }
  if (fail == "spendcap") {
    count(429);
    Json e = anthropic_error("rate_limit_error", "You have reached your specified workspace API usage limits.");
    e["error"]["details"] = {{"error_code", "enforced_spend_limit_reached"}};
    return err(429, e, e);
  }
  if (fail == "arrayerr") {
    count(429);
    Json e = Json::array({{{"error", {{"code", 429}, {"message", "Resource has been exhausted (e.g. check quota)."}, {"status", "RESOURCE_EXHAUSTED"}}}}});
    return err(429, e, e);
  }
  if (fail == "flaterr") {
    count(400);
    Json e = {{"object", "error"}, {"message", "bad request"}, {"type", "BadRequestError"}, {"param", nullptr}, {"code", 400}};
    return err(400, e, e);
  }
  if (fail == "500html") {
    count(500);
    res.status = 500;
    res.body = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    return res;
  }
  if (fail == "500noretry") res.headers.emplace_back("x-should-retry", "false");
  for (int s : {400, 401, 402, 404, 408, 409, 500, 503, 529}) {
    if (fail == std::to_string(s) || (s == 500 && fail == "500noretry")) {
      count(s);
      std::string type = s == 529 ? "overloaded_error" : s == 402 ? "billing_error" : s >= 500 ? "api_error" : "invalid_request_error";
      return err(s, openai_error("fake error " + std::to_string(s), s >= 500 ? "server_error" : "invalid_request_error", nullptr),
                 anthropic_error(type, "fake error " + std::to_string(s)));
    }
  }
  if (fail == "slow") res.delay_s += d.count("slow") ? std::stod(d["slow"]) / 1000.0 : 30;
  if (fail == "length") finish = anthropic ? "max_tokens" : "length";
  // A judge asked about an answer marked "judge-cut" runs out of tokens below 2,000: its
  // JSON is cut off, as a long rationale would be.
  if (user.find("judge-cut") != std::string::npos && system.find("Its keys are ") != std::string::npos &&
      body.is_object() && body.value("max_tokens", 0) < 2000) {
    text = text.substr(0, text.size() / 2);
    finish = anthropic ? "max_tokens" : "length";
  }
  if (fail == "refusal") refusal = true;

  // Usage as a server counts it: the whole prompt, and no more output than the limit read.
  // `server=llama` reads the limit as llama.cpp's server and Ollama do, from max_tokens only;
  // `fail=contextshift` reports the few tokens left of a prompt cut to fit a small context.
  long long in_tokens = static_cast<long long>((system.size() + user.size()) / 4 + 8), out_tokens = 12;
  if (fail == "contextshift") in_tokens = 75;
  const bool llama = d.count("server") && d["server"] == "llama";
  for (const char* field : {"max_tokens", "max_completion_tokens"}) {
    if (llama && std::string_view(field) != "max_tokens") continue;
    if (body.is_object() && body.contains(field) && body[field].is_number_integer())
      out_tokens = std::min(out_tokens, body[field].get<long long>());
  }
  if (llama && !(body.is_object() && body.contains("max_tokens"))) out_tokens = 4065;  // ran to its own end
  Json answer;
  if (anthropic) {
    answer = {{"id", "msg_" + std::to_string(id)}, {"type", "message"}, {"role", "assistant"}, {"model", model + "-20990101"},
              {"content", Json::array({{{"type", "text"}, {"text", refusal ? "" : text}}})},
              {"stop_reason", refusal ? "refusal" : finish}, {"stop_sequence", nullptr},
              {"usage", {{"input_tokens", in_tokens}, {"output_tokens", out_tokens}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0}}}};
  } else {
    Json msg = {{"role", "assistant"}, {"content", refusal ? Json(nullptr) : Json(text)}, {"refusal", refusal ? Json("I can't help with that.") : Json(nullptr)}};
    answer = {{"id", "chatcmpl-" + std::to_string(id)}, {"object", "chat.completion"}, {"created", 1726012687},
              {"model", model + "-2099-01-01"}, {"system_fingerprint", "fp_fake"},
              {"choices", Json::array({{{"index", 0}, {"message", msg}, {"logprobs", nullptr}, {"finish_reason", finish}}})},
              {"usage", {{"prompt_tokens", in_tokens}, {"completion_tokens", out_tokens}, {"total_tokens", in_tokens + out_tokens}}}};
  }
  res.body = answer.dump();
  if (fail == "malformed") res.body = res.body.substr(0, res.body.size() / 2);
  if (fail == "blank") res.body = "\n\n\n" + res.body;
  if (fail == "reset") res.mode = Response::Mode::reset;
  if (fail == "truncated") res.mode = Response::Mode::truncated;
  count(fail == "reset" || fail == "truncated" ? 0 : 200);
  return res;
}

}  // namespace mirac::fake
