// row_variables.hpp: how the analyses read a row's variables and expand a formula's fixed
// terms: shared by the run's analyses (engine/analyze) and the checks made on the plan
// before anything is paid for (plan_analyses.cpp), so that both see the same levels and
// the same design.
#pragma once

#include <string>
#include <vector>

#include "interpreter/model/spec.hpp"
#include "interpreter/scores/scores.hpp"
#include "runtime/stats/design.hpp"

namespace mirac::analyze {

/// The value of a grouping variable on a row: a factor's level, `model` (or a model
/// group), `arm`, `seed` (the id), `cell` (the design's levels joined by '.'), `answer`
/// (from 1), `prompt` (the seed and every factor's level), or a seed field.
std::string variable_value(const Spec& spec, const ScoreRow& row, const std::string& variable);

/// The declared order of a variable's levels (a factor's, the models', the arms'); empty
/// for the others, whose values the analyses sort.
std::vector<std::string> declared_levels(const Spec& spec, const std::string& variable);

/// The fixed terms of a formula: `a*b*c` is every non-empty subset of {a, b, c}, ordered by
/// degree, then as written, which is R's and patsy's order.
std::vector<stats::FixedTerm> expand_terms(const ast::Formula& f);

}  // namespace mirac::analyze
