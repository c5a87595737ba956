// plan_summary.hpp: what a plan holds and may cost, for people and for scripts (`mirac
// plan`, `--json`, `--show=plan`). Above the judge phase: the forecast of the judging is
// made from each judge's own requests.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "interpreter/model/source.hpp"
#include "interpreter/model/spec.hpp"
#include "interpreter/plan/plan.hpp"
#include "interpreter/summary/invariance_forecast.hpp"

namespace mirac {

/// A cost at most: at the price declared (`batch true`: the batch price), at the list price
/// and at the batch price (what `--batch` would cost).
struct Costs {
  double declared = 0, list = 0, batch = 0;
};

/// One model's answers: tokens in (estimated), out at most, and what they may cost.
struct ModelForecast {
  long long input_tokens = 0, max_output_tokens = 0;
  bool batch = false;
  std::optional<Costs> cost;  ///< none: no price
};

/// One judge's requests over the whole plan (see forecast_judging).
struct JudgingForecast {
  std::string judge;
  long long calls = 0, max_input_tokens = 0, max_output_tokens = 0;
  bool batch = false;
  std::optional<Costs> cost;
};

/// What a plan holds and may cost, counted once; plan_summary and plan_summary_text format it.
struct PlanCounts {
  std::size_t cells = 1;
  std::vector<std::size_t> by_model, by_arm;     ///< requests, in the spec's order
  std::vector<std::vector<std::size_t>> by_level;  ///< requests per factor and level
  std::vector<ModelForecast> models;               ///< in the spec's order
  long long input_tokens = 0, max_output_tokens = 0;
  double max_cost_usd = 0, max_cost_usd_batch = 0;  ///< over the priced models
  std::vector<std::string> unpriced_models;
  std::optional<std::vector<JudgingForecast>> judging;  ///< with the sources only
  std::optional<std::vector<InvarianceForecast>> invariance;  ///< with the sources only
};

/// The share of the list price a batch request costs at a provider (1: no batch API).
double batch_share(const Spec& spec, const std::string& provider);
/// Per judge, an upper bound of its requests' tokens and cost over the plan.
std::vector<JudgingForecast> forecast_judging(const Spec& spec, const Plan& plan, const SourceManager& sources);
/// Counts by model, arm and level, and the forecasts (the judging's with `sources`).
PlanCounts count_plan(const Spec& spec, const Plan& plan, const SourceManager* sources);

/// A summary of the requests a selection keeps (`mirac plan --only ...`): its plan holds them
/// alone (selected_plan), and this says how and what the whole plan holds.
struct SummarySelection {
  std::string by;  ///< "--only seed=1,2 --sample 40"
  std::size_t seeds = 0, prompts = 0, requests = 0, judge_calls = 0;  ///< the whole plan's
};

/// How many seeds the plan's prompts are of: the spec's, or fewer in a selection's plan.
std::size_t planned_seeds(const Plan& plan);

/// Counts by model, arm and factor level; totals; the forecast of the answers' tokens and
/// cost and, with `sources` (the judges' instructions quote the rubric), of the judging's:
/// an upper bound from each judge's instructions and message with the answer at its
/// model's token limit. `mirac plan --json`. With `selected`, `plan` is the selection's and
/// every count and forecast is of it; the whole plan's counts are under `selected`.
nlohmann::ordered_json plan_summary(const Spec& spec, const Plan& plan, const SourceManager* sources = nullptr,
                                    const SummarySelection* selected = nullptr);
/// The same for people; with `selected`, a line under the title says that the counts are of
/// the selection, and each count is followed by the whole plan's.
std::string plan_summary_text(const Spec& spec, const Plan& plan, const SourceManager* sources = nullptr,
                              const SummarySelection* selected = nullptr);
/// The whole plan, one JSON object per prompt, request and judge task (`--show=plan`).
nlohmann::ordered_json plan_dump(const Spec& spec, const Plan& plan);

}  // namespace mirac
