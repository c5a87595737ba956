// invariance_forecast.cpp: the invariance checks' requests and what they may cost
// (invariance_forecast.hpp).
#include "interpreter/summary/invariance_forecast.hpp"

#include <cmath>

#include "interpreter/judge/invariance.hpp"
#include "interpreter/judge/judge.hpp"
#include "runtime/scheduler/scheduler.hpp"

namespace mirac {

namespace {

long long token_limit(const nlohmann::json& params) {
  return params.contains("max_tokens") && params["max_tokens"].is_number() ? params["max_tokens"].get<long long>()
                                                                          : SchedulerOptions{}.default_max_output_tokens;
}

// A price per million tokens in and out, or none.
std::optional<Price> translator_price(const Spec& spec, const ModelCall& translator) {
  auto provider = spec.providers.find(translator.provider);
  if (provider == spec.providers.end()) return std::nullopt;
  auto price = provider->second.prices.find(translator.model);
  if (price == provider->second.prices.end()) return std::nullopt;
  return price->second;
}

}  // namespace

std::vector<InvarianceForecast> forecast_invariance(const Spec& spec, const Plan& plan, const SourceManager& sources) {
  std::vector<InvarianceForecast> out;
  for (const InvarianceCheck& check : invariance_checks(spec)) {
    const Judge& judge = spec.judges[static_cast<std::size_t>(check.judge)];
    const JudgeBuilder builder(spec, sources, check.judge, check.rubric);
    const double instructions = static_cast<double>(builder.instructions().size()) / 4.0;
    const double judge_out = static_cast<double>(token_limit(judge.params));
    const std::optional<Price> translator = check.translates() ? translator_price(spec, check.translator) : std::nullopt;
    InvarianceForecast f;
    f.name = check.name;
    double translate_in = 0, translate_out = 0, judge_in = 0;
    Diagnostics ignored;  // a `where` that cannot be evaluated is reported by mirac check
    for (const InvarianceItem& item : invariance_sample(spec, plan, check, ignored)) {
      const RequestRow& answered = plan.requests[item.row];
      const double answer = static_cast<double>(token_limit(answered.target->params));
      double judged = answer;
      if (check.translates()) {
        translate_in += static_cast<double>(check.instructions[static_cast<std::size_t>(item.target_level)].size()) / 4.0 +
                        answer;
        translate_out += static_cast<double>(kTranslatorMaxTokens);
        judged = static_cast<double>(kTranslatorMaxTokens);
        ++f.translations;
      }
      judge_in += instructions + static_cast<double>(builder.message(plan, plan.requests[item.counterpart], "").size()) / 4.0 +
                  judged;
      ++f.judgments;
    }
    const double judge_out_total = static_cast<double>(f.judgments) * judge_out;
    f.max_input_tokens = std::llround(translate_in + judge_in);
    f.max_output_tokens = std::llround(translate_out + judge_out_total);
    if (judge.price && (!check.translates() || translator)) {
      double cost = judge_in / 1e6 * judge.price->input + judge_out_total / 1e6 * judge.price->output;
      if (translator) cost += translate_in / 1e6 * translator->input + translate_out / 1e6 * translator->output;
      f.max_cost_usd = cost;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace mirac
