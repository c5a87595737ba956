// multiple_testing.cpp: Benjamini-Hochberg, following statsmodels' multipletests step by step
// so that results agree to the last bit.
#include "runtime/stats/multiple_testing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace mirac::stats {

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const std::size_t m = p.size();
  for (double v : p) {
    if (std::isnan(v) || v < 0.0 || v > 1.0) {
      throw std::invalid_argument("benjamini_hochberg: p-values must lie in [0, 1]");
    }
  }
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });

  // raw_(i) = p_(i) / (i / m): statsmodels divides by the ecdf factor, so do we (same rounding)
  std::vector<double> adjusted_sorted(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double ecdf = static_cast<double>(i + 1) / static_cast<double>(m);
    adjusted_sorted[i] = p[order[i]] / ecdf;
  }
  // q_(i) = min_{j >= i} raw_(j): the step-up monotonicity (reverse cumulative minimum)
  for (std::size_t i = m; i-- > 1;) {
    adjusted_sorted[i - 1] = std::min(adjusted_sorted[i - 1], adjusted_sorted[i]);
  }
  std::vector<double> q(m);
  for (std::size_t i = 0; i < m; ++i) q[order[i]] = std::min(adjusted_sorted[i], 1.0);
  return q;
}

}  // namespace mirac::stats
