// estimates.cpp: what a call will cost and whether it can be priced, before it is sent;
// used by the scheduler's budget, the plan's forecast and the run's price checks.
#include "runtime/scheduler/scheduler.hpp"

#include <set>

#include <fmt/format.h>

namespace mirac {

std::pair<double, double> estimate_tokens(const ModelCall& call, long long default_max_output) {
  return estimate_tokens(call, call.user.size(), default_max_output);
}

std::pair<double, double> estimate_tokens(const ModelCall& call, std::size_t user_chars, long long default_max_output) {
  double chars = static_cast<double>(user_chars + (call.system ? call.system->size() : 0));
  double in = chars / 4.0 + 16;  // ~4 characters per token, plus message framing
  double out = static_cast<double>(default_max_output);
  if (call.params.contains("max_tokens") && call.params["max_tokens"].is_number())
    out = call.params["max_tokens"].get<double>();
  return {in, out};
}

std::vector<std::string> unpriced_models(const CallRefs& calls, const std::map<std::string, ModelPrice>& prices,
                                         const std::function<bool(const ModelCall&)>& include) {
  std::set<std::string> out;
  for (const ModelCall* call : calls)
    if (const ModelCall& c = *call; !c.key_env.empty() && !prices.count(c.model) && (!include || include(c))) out.insert(c.model);
  return {out.begin(), out.end()};
}

std::string unpriced_message(const std::string& need, const CallRefs& calls,
                             const std::map<std::string, ModelPrice>& prices,
                             const std::function<bool(const ModelCall&)>& include) {
  std::map<std::string, std::set<std::string>> by_provider;  // provider -> unpriced model strings
  for (const ModelCall* call : calls)
    if (const ModelCall& c = *call; !c.key_env.empty() && !prices.count(c.model) && (!include || include(c))) by_provider[c.provider].insert(c.model);
  if (by_provider.empty()) return "";
  std::string models, declarations;
  for (const auto& [provider, strings] : by_provider) {
    std::string entries;
    for (const auto& m : strings) {
      models += (models.empty() ? "" : ", ") + m;
      entries += fmt::format(" \"{}\" {{ input USD output USD }}", m);
    }
    declarations += fmt::format("\n  prices {} {{{} }}", provider, entries);
  }
  return fmt::format("{}; no price for: {}. Give one in the spec, in USD per million tokens (docs/providers.md, "
                     "\"Prices\"):{}\nNothing was sent.",
                     need, models, declarations);
}

}  // namespace mirac
