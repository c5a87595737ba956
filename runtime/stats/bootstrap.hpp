// bootstrap.hpp: cluster (block) bootstrap intervals: a t interval from the bootstrap's
// standard error (the default) and the percentile interval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace mirac::stats {

/// How the interval is made from the bootstrap replicates.
enum class IntervalMethod {
  /// A t interval from the bootstrap's standard error: estimate +- t_{G-1, 1-alpha/2} x
  /// SE x sqrt(G / (G - 1)), G the number of clusters and SE the standard deviation of the
  /// replicates, kept within the smallest and largest replicate. The small-cluster
  /// t interval of cluster-robust inference with the bootstrap for its SE: it holds its
  /// level from 12 clusters up where the percentile intervals fall short; docs/statistics.md,
  /// section 6, gives the simulated coverage and why not the expanded percentile interval.
  t_bootstrap_se,
  /// The percentile interval (Efron 1979) at alpha/2 and 1 - alpha/2: too narrow with few
  /// clusters (coverage 0.91 at 12 seeds, 0.93 at 24, where 0.95 is nominal).
  percentile,
};

/// "t_bootstrap_se" or "percentile", as results.json records the method.
std::string_view method_name(IntervalMethod method);

/// The fewest clusters at which the default interval's coverage is verified (by
/// tests/simulate/interval_coverage_test.cpp, at 12 and 24 seeds). An interval over fewer
/// clusters is reported, marked as from a small design.
inline constexpr std::size_t kSmallestVerifiedClusters = 12;

/// An interval from a cluster bootstrap.
struct BootstrapInterval {
  double estimate = 0.0;            ///< statistic on the original rows
  double lower = 0.0;
  double upper = 0.0;
  double level = 0.95;
  IntervalMethod method = IntervalMethod::t_bootstrap_se;
  double standard_error = 0.0;      ///< SD of the replicates (n - 1 divisor), NaN below two
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
/// their rows. The interval is made from the replicates by `method` (the percentile
/// interval's quantiles by linear interpolation, numpy.quantile's default, Hyndman-Fan
/// type 7); the method never changes the draws. With t_bootstrap_se, one cluster gives the
/// estimate as both bounds and fewer than two defined replicates NaN bounds.
/// `cluster` gives a cluster id per row. Throws std::invalid_argument("cluster_bootstrap: ...").
/// A statistic that is NaN on a resample throws, unless `drop_undefined`: then such
/// resamples are counted in `undefined` and left out of the interval (a kappa is undefined
/// on a resample without variation); the bounds are NaN when every resample is.
BootstrapInterval cluster_bootstrap(std::span<const std::int64_t> cluster, const RowStatistic& statistic,
                                    std::mt19937_64& rng, std::size_t resamples = 2000,
                                    double level = 0.95, bool drop_undefined = false,
                                    IntervalMethod method = IntervalMethod::t_bootstrap_se);

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
