// multiple_testing.hpp: false-discovery-rate adjustment of p-values.
#pragma once

#include <span>
#include <vector>

namespace mirac::stats {

/// Benjamini-Hochberg (1995) step-up adjusted p-values ("q-values"), in the input order.
/// Matches statsmodels.stats.multitest.multipletests(p, method='fdr_bh')[1]:
///   q_(i) = min_{j >= i} p_(j) * m / j, clipped to 1.
/// Throws std::invalid_argument("benjamini_hochberg: ...") on NaN or p outside [0, 1].
std::vector<double> benjamini_hochberg(std::span<const double> p);

}  // namespace mirac::stats
