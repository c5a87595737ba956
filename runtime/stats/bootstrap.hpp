// bootstrap.hpp: cluster (block) bootstrap percentile intervals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace mirac::stats {

/// Percentile interval from a cluster bootstrap.
struct BootstrapInterval {
  double estimate = 0.0;            ///< statistic on the original rows
  double lower = 0.0;               ///< quantile (1 - level) / 2 of the replicates
  double upper = 0.0;               ///< quantile (1 + level) / 2 of the replicates
  double level = 0.95;
  std::size_t resamples = 0;
  std::size_t clusters = 0;         ///< number of distinct clusters resampled
  std::vector<double> replicates;   ///< the statistic on every resample, in draw order
  std::size_t undefined = 0;        ///< resamples whose statistic was NaN (with drop_undefined)
};

/// Statistic evaluated on a multiset of row indices (a resample repeats rows of clusters
/// drawn more than once).
using RowStatistic = std::function<double(std::span<const std::size_t> rows)>;

/// Uniform integer in [0, bound) from a 64-bit Mersenne twister, by rejection, so the draw
/// sequence is the same with every standard library (std::uniform_int_distribution is not).
std::size_t uniform_index(std::mt19937_64& rng, std::size_t bound);

/// Resamples whole clusters with replacement (Davison & Hinkley 1997, sec. 3.8): each
/// replicate draws G cluster ids uniformly from the G observed clusters and concatenates
/// their rows. The interval is the percentile interval with quantiles by linear
/// interpolation (numpy.quantile's default, Hyndman-Fan type 7).
/// `cluster` gives a cluster id per row. Throws std::invalid_argument("cluster_bootstrap: ...").
/// A statistic that is NaN on a resample throws, unless `drop_undefined`: then such
/// resamples are counted in `undefined` and left out of the interval (a kappa is undefined
/// on a resample without variation); the bounds are NaN when every resample is.
BootstrapInterval cluster_bootstrap(std::span<const std::int64_t> cluster, const RowStatistic& statistic,
                                    std::mt19937_64& rng, std::size_t resamples = 2000,
                                    double level = 0.95, bool drop_undefined = false);

/// Quantile by linear interpolation between order statistics (type 7): h = (n-1) q.
double quantile_type7(std::vector<double> values, double q);

/// The seed of one interval's own random stream, from the run's seed and what the
/// interval is of ("DTI_lang/gpt"): splitmix64(seed xor FNV-1a-64(key)). Each interval then
/// draws from a stream of its own, so the Monte Carlo errors of two contrasts (or of two
/// models' groups of one contrast) are not correlated, and an interval still does not
/// depend on which others the spec declares. tests/analyze/reference/generate_reference.py
/// derives the same seeds to replay the draws.
std::uint64_t stream_seed(std::uint64_t seed, std::string_view key);

}  // namespace mirac::stats
