// invariance_forecast.hpp: what an `invariance` analysis's check may cost (`mirac plan`):
// its translations and its judge's requests over the sample, bounded as the judging's are
// (plan_summary.hpp). Pure: the sample is drawn from the plan, as `mirac run` draws it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interpreter/model/source.hpp"
#include "interpreter/model/spec.hpp"
#include "interpreter/plan/plan.hpp"

namespace mirac {

/// One invariance check's requests over the whole plan.
struct InvarianceForecast {
  std::string name;
  long long translations = 0, judgments = 0;  ///< a rubric check translates nothing
  long long max_input_tokens = 0, max_output_tokens = 0;
  /// At the translator's and the judge's prices; none when either is unpriced.
  std::optional<double> max_cost_usd;
};

/// Per `invariance` analysis: input tokens of each translation (instruction, and the answer
/// at its model's token limit) and of each judgment (the judge's instructions and message,
/// the text judged at its token limit), output tokens at the translator's and the judge's
/// limits; repairs not counted.
std::vector<InvarianceForecast> forecast_invariance(const Spec& spec, const Plan& plan, const SourceManager& sources);

}  // namespace mirac
