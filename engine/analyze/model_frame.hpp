// model_frame.hpp: the data and terms of a formula analysis (`lmm(...)`, `clmm(...)`),
// shared by lmm.cpp and clmm.cpp so that both read a formula the same way.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/analyze/context.hpp"
#include "runtime/stats/design.hpp"

namespace mirac::analyze {

struct ModelFrame {
  std::string formula;                            ///< as written back: "D3 ~ language * hls + (1 | seed)"
  std::vector<stats::FixedTerm> fixed;            ///< a*b expanded, by degree; no intercept term
  std::vector<std::string> random_intercepts;     ///< grouping variables, as written
  stats::DataFrame frame;                         ///< the `where` rows: response (NaN = N/A) and variables
  std::map<std::string, stats::LevelSpec> levels; ///< declared levels that occur, `reference` applied
  nlohmann::ordered_json references;              ///< variable -> the level its coefficients are against
  /// Why the model cannot be fitted to these rows, in the user's terms (a `reference` level
  /// with no scored answer, as in a pilot of other cells); empty when it can be tried.
  std::string problem;
};

/// The frame of analysis `a` (which has a formula), over the rows its `where` keeps.
ModelFrame model_frame(const Context& ctx, const ast::AnalysisDecl& a);

/// `f` written back as text.
std::string formula_text(const ast::Formula& f);

}  // namespace mirac::analyze
