// ranks.cpp: average ranks (scipy rankdata 'average').
#include "runtime/stats/ranks.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace mirac::stats {

Ranking average_ranks(std::span<const double> x) {
  const std::size_t n = x.size();
  for (double v : x) {
    if (std::isnan(v)) throw std::invalid_argument("average_ranks: NaN in input");
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  Ranking out;
  out.ranks.assign(n, 0.0);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && x[order[j]] == x[order[i]]) ++j;
    // positions i..j-1 (0-based) share rank mean(i+1..j) = (i + 1 + j) / 2
    const double rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) out.ranks[order[k]] = rank;
    if (j - i > 1) out.tie_sizes.push_back(j - i);
    i = j;
  }
  return out;
}

}  // namespace mirac::stats
