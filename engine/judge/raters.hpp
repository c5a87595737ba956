// raters.hpp: the scores of a rater over the plan, read from the run store: a judge, a
// panel of judges, or people (`human`: the adjudicated value where there is one, else the
// median of the annotators; `human.NAME`: one annotator). What the analyses and the
// agreement between raters work on.
#pragma once

#include <string>
#include <vector>

#include "interpreter/plan/plan.hpp"
#include "interpreter/scores/scores.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

/// A panel's scores of one answer from its judges' (`member_scores`, one vector per judge
/// in rubric order, NaN = N/A): per dimension the mean or median of the judges that gave a
/// score (N/A when none did); then, in rubric order, a dimension whose `na when` holds on
/// the panel's scores is N/A, as it would be for a judge. `row` carries the answer's seed,
/// model, arm and levels; its scores are set.
void combine_panel(const Spec& spec, const Panel& panel, const analyze::ScoreTable& shape,
                   const std::vector<std::vector<double>>& member_scores, analyze::ScoreRow& row);

/// Every request of the plan that `rater` has scored, in plan order (`table.path` names the
/// store). A panel scores an answer once every one of its judges has; people score the
/// answers annotated (`mirac annotate import`), on the analyses' rubric's dimensions.
analyze::ScoreTable rater_scores(const Spec& spec, const Plan& plan, const SourceManager& sources, Store& store,
                                 const std::string& rater, int max_repairs);

/// The dimensions of the analyses' rubric that only people score (`scored by human`), taken
/// into `table` from `human` (people's scores of the same answers; N/A where none).
void fill_human_dimensions(const Spec& spec, analyze::ScoreTable& table, const analyze::ScoreTable& human);

/// Adds `other`'s rows to `table.others`, on `table`'s dimensions (N/A where `other`'s
/// rubric has no such dimension).
void add_other_rater(analyze::ScoreTable& table, const analyze::ScoreTable& other);

}  // namespace mirac
