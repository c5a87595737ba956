// ranks.hpp: average ranks with tie bookkeeping, shared by the rank-based tests.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace mirac::stats {

/// Ranks of `x` (1-based), ties receiving the mean of the ranks they span, as
/// scipy.stats.rankdata(method='average') and R's rank(ties.method = "average").
struct Ranking {
  std::vector<double> ranks;             ///< ranks[i] is the rank of x[i]
  std::vector<std::size_t> tie_sizes;    ///< size t of every tie group with t > 1
};

/// Average ranks. Throws std::invalid_argument("average_ranks: ...") on NaN input.
Ranking average_ranks(std::span<const double> x);

}  // namespace mirac::stats
