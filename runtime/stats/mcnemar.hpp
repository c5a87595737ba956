// mcnemar.hpp: the exact McNemar test of paired binary outcomes, for per-criterion grading
// (is an element dropped under one level more often than it is gained?).
#pragma once

#include <cstddef>

namespace mirac::stats {

/// Two-sided exact McNemar p-value from the discordant pairs: `b` pairs changed one way and
/// `c` the other. Under the null each discordant pair goes either way with probability 1/2,
/// so p = min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2); NaN without discordant
/// pairs. Matches scipy.stats.binomtest(b, b + c, 0.5).pvalue.
double mcnemar_exact(std::size_t b, std::size_t c);

}  // namespace mirac::stats
