#include "runtime/offline/offline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/offline/text_features.hpp"

namespace mirac {

namespace {

// Deterministic across platforms (std::uniform_* distributions are not).
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

class Stream {
 public:
  explicit Stream(std::uint64_t seed) : state_(seed) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  int below(int n) { return static_cast<int>(uniform() * n); }

 private:
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

struct Bank {
  const char* opening;
  const char* refusal;
  std::vector<const char*> details;     // {0}, {1}: numbers
  std::vector<const char*> actions;     // {0}: a number
  std::vector<const char*> disclaimers;
  const char* topic;                    // {0}: words of the question
};

const Bank& english() {
  static const Bank b{
      "Here is how this usually works and what you can do.",
      "I'm sorry, but I can't give medical guidance on this. Please ask a doctor.",
      {"A common reference point is about {0} days: changes that last longer are worth a check.",
       "For most adults the usual range is {0} to {1} units; values outside it deserve attention.",
       "Improvement is typically noticed within {0} to {1} hours.",
       "The mechanism matters here: the effect builds over roughly {0} weeks before it levels off.",
       "A threshold many guidelines use is {0}; above it, the picture changes.",
       "Warning signs include a fever above 38.{0} C or symptoms that worsen after {1} days."},
      {"Next step: keep a short diary for {0} days and bring it to your appointment.",
       "If nothing improves within {0} days, book a visit with your family doctor.",
       "Record the readings twice a day for {0} days so that the trend is clear."},
      {"I am not a doctor, and this is not medical advice.",
       "Please consult a healthcare professional before acting on any of this.",
       "Everyone is different, so individual advice from a clinician matters.",
       "This information is general and cannot replace a professional assessment."},
      "About {0}:"};
  return b;
}

const Bank& chinese() {
  static const Bank b{
      "下面说明一般情况以及您可以怎么做。",
      "抱歉，这个问题我无法提供医疗建议，请咨询医生。",
      {"一个常用的参考是大约{0}天：持续更久的变化值得检查。",
       "大多数成年人的常见范围是{0}到{1}个单位，超出这个范围需要留意。",
       "通常在{0}到{1}小时内会感到好转。",
       "机制上，这种作用大约需要{0}周逐渐形成，然后趋于稳定。",
       "很多指南采用的阈值是{0}，超过之后情况就不同了。",
       "需要警惕的信号包括体温超过38.{0}度，或{1}天后症状加重。"},
      {"下一步：连续{0}天记录情况，就诊时带上记录。",
       "如果{0}天内没有改善，请预约全科医生。",
       "连续{0}天每天记录两次数据，这样趋势更清楚。"},
      {"我不是医生，以上内容不构成医疗建议。",
       "在采取任何行动之前，请咨询专业医生。",
       "每个人情况不同，个体化建议需要医生判断。",
       "以上仅供参考，不能代替专业评估。"},
      "关于{0}："};
  return b;
}

double clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

}  // namespace

std::string offline_answer(const std::string& model, const std::string* system, const std::string& user, int answer) {
  // The model's temperament: how much it tends to explain and to hedge.
  Stream persona(fnv1a(model));
  const double verbosity = 0.35 + 0.4 * persona.uniform();
  const double hedging = 0.2 + 0.5 * persona.uniform();
  // Answer 0 keeps the stream it has always had, so stores made before `answers` still match.
  std::uint64_t stream = fnv1a(user, fnv1a(system ? *system : "", fnv1a(model)));
  if (answer > 0) stream = fnv1a(fmt::format("answer {}", answer), stream);
  Stream rng(stream);
  const TextProfile profile = profile_of(user);
  const bool zh = profile.cjk_share > 0.3;
  const bool instructed = system != nullptr && !system->empty();
  const Bank& bank = zh ? chinese() : english();

  if (rng.uniform() < 0.02 * hedging) return bank.refusal;
  // Longer, more technical prompts get more substance; a system prompt asking for equal
  // treatment adds some and removes hedging.
  double detail = verbosity + 0.25 * std::tanh((static_cast<double>(profile.length) - 90.0) / 60.0) +
                  (instructed ? 0.25 : 0.0) - (zh ? 0.1 : 0.0) + 0.3 * (rng.uniform() - 0.5);
  int n_details = static_cast<int>(std::lround(clamp01(detail) * 5));
  int n_actions = static_cast<int>(std::lround(clamp01(detail + 0.2 * (rng.uniform() - 0.5)) * 2));
  int n_disclaimers = static_cast<int>(
      std::lround(std::clamp(hedging * 3 + (zh ? 0.5 : 0.0) - (instructed ? 1.0 : 0.0) + rng.uniform() - 0.5, 0.0, 4.0)));

  std::vector<std::string> parts;
  parts.push_back(bank.opening);
  parts.push_back(fmt::format(fmt::runtime(bank.topic), salient_words(user, 8)));
  auto pick = [&](const std::vector<const char*>& from, int n) {
    std::vector<int> order(from.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    for (int i = static_cast<int>(order.size()) - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
    for (int i = 0; i < std::min<int>(n, static_cast<int>(from.size())); ++i)
      parts.push_back(fmt::format(fmt::runtime(from[order[i]]), 2 + rng.below(12), 13 + rng.below(30)));
  };
  if (n_disclaimers > 2) pick(bank.disclaimers, 1);
  pick(bank.details, n_details);
  pick(bank.actions, n_actions);
  pick(bank.disclaimers, n_disclaimers > 2 ? n_disclaimers - 1 : n_disclaimers);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : zh ? "" : " ") + p;
  return out;
}

HttpResponse offline_respond(const HttpRequest& request, const OfflineReplies& replies) {
  HttpResponse r;
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.contains("messages") || !body["messages"].is_array()) {
    r.status = 400;
    r.body = R"({"error":{"message":"offline provider: not a chat completions request","type":"invalid_request_error"}})";
    return r;
  }
  std::string model = body.value("model", "");
  std::string system, user;
  bool has_system = false;
  for (const auto& m : body["messages"]) {
    std::string role = m.value("role", ""), content = m.contains("content") && m["content"].is_string()
                                                          ? m["content"].get<std::string>()
                                                          : "";
    if (role == "system" || role == "developer") system = content, has_system = true;
    if (role == "user") user = content;
  }
  std::optional<std::string> declared;
  if (replies) declared = replies(OfflineRequest{request.request_hash, request.answer, model, has_system ? &system : nullptr, user});
  std::string text = declared                                   ? *declared
                     : model.find("judge") != std::string::npos ? offline_judgment(system, user)
                                                                : offline_answer(model, has_system ? &system : nullptr, user, request.answer);
  auto tokens = [](const std::string& s) { return static_cast<long long>(s.size() / 4 + 1); };
  long long in = tokens(system) + tokens(user), out = tokens(text);
  nlohmann::json reply = {
      {"id", fmt::format("offline-{:016x}", fnv1a(request.body))},
      {"object", "chat.completion"},
      {"created", 0},
      {"model", model},
      {"system_fingerprint", "mirac-offline-1"},
      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
      {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}, {"total_tokens", in + out}}}};
  r.status = 200;
  r.headers = {{"content-type", "application/json"}};
  r.body = reply.dump();
  return r;
}

void OfflineRoutingClient::submit(std::uint64_t tag, HttpRequest request) {
  if (request.url.rfind(kOfflineScheme, 0) == 0) {
    ready_.push_back({tag, offline_respond(request, replies_)});
    return;
  }
  network_.submit(tag, std::move(request));
}

std::vector<HttpCompletion> OfflineRoutingClient::poll(double max_wait_s) {
  std::vector<HttpCompletion> out = std::move(ready_);
  ready_.clear();
  if (network_.in_flight() > 0) {
    auto more = network_.poll(out.empty() ? max_wait_s : 0.0);
    for (auto& c : more) out.push_back(std::move(c));
  }
  return out;
}

void OfflineRoutingClient::abort_all() {
  for (auto& c : ready_) {
    c.response = HttpResponse{};
    c.response.error = TransportError::aborted;
    c.response.error_message = "aborted";
  }
  network_.abort_all();
}

}  // namespace mirac
