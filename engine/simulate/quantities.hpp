// quantities.hpp: what a simulation checks, read from one analysis's results: each
// contrast group's estimate and bootstrap interval, each lmm coefficient with its
// Satterthwaite t interval and p, each Wilcoxon test's and paired comparison's mean
// difference with its t interval and (adjusted) p.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/analyze/context.hpp"

namespace mirac {

struct QuantityId {
  std::string source, kind, label;
  std::string key() const { return source + "\n" + label; }
};

struct Estimate {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  double estimate = nan, lower = nan, upper = nan, p = nan;
};

struct Estimated {
  QuantityId id;
  Estimate value;
};

/// Every quantity in `results` (its "contrasts" and "analyses" entries), in their order.
std::vector<Estimated> read_quantities(const nlohmann::ordered_json& results);

/// The coefficients of lmm `a` fitted by least squares to the scores of `ctx` (the expected
/// scores: noise-free, where REML has no residual variance to estimate). On balanced data
/// these are what the mixed model estimates on average. Keys as read_quantities gives them.
std::vector<Estimated> least_squares_truth(const analyze::Context& ctx, const ast::AnalysisDecl& a);

}  // namespace mirac
