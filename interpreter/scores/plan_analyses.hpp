// plan_analyses.hpp: checks, on the plan, that each declared analysis can run on the answers
// the plan would pay for: what counting levels over the planned requests can tell before
// anything is sent (docs/language.md, "Analyses the plan cannot feed"; issue 30). Here,
// after the plan and beside the score rows, because it reads each planned request as the
// score row its answer will be.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interpreter/model/diagnostics.hpp"
#include "interpreter/plan/plan.hpp"

namespace mirac {

/// Reports, at the analysis (or its term or option), an `lmm`/`clmm` whose fixed variable
/// has fewer than two levels in the planned requests (after a `where` that reads no
/// scores), whose `reference` level is absent there, or whose fixed-effects design is not of
/// full rank over the planned cells; a `wilcoxon`/`paired` comparison whose two sides never
/// match, or that has fewer than two matched pairs in every group; and, as a warning, a
/// `spearman` over fewer than three groups. A `where` that reads scores cannot be known
/// before the run: its analysis is skipped. Nothing is reported for a plan without requests.
/// With `selection`, the analyses are checked on its requests (a pilot's `--only`, `--sample`,
/// `--limit`), and the messages name them as `selection->planned` does.
struct PlanSelection {
  std::optional<std::vector<std::size_t>> rows;  ///< indices into plan.requests; none: all of them
  std::string planned;                           ///< "the 40 requests selected by --sample 40"
};
void check_plan_analyses(const Spec& spec, const Plan& plan, Diagnostics& diags, const PlanSelection* selection = nullptr);

}  // namespace mirac
