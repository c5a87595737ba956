// bootstrap.cpp: cluster bootstrap with an injected generator.
#include "runtime/stats/bootstrap.hpp"
#include "runtime/stats/nan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

namespace mirac::stats {

std::string_view method_name(IntervalMethod method) {
  switch (method) {
    case IntervalMethod::t_bootstrap_se: return "t_bootstrap_se";
    case IntervalMethod::percentile: return "percentile";
  }
  return "";
}

namespace {

// The SD of the replicates (divisor n - 1); NaN below two.
double standard_deviation(const std::vector<double>& values) {
  if (values.size() < 2) return kNaN;
  double mean = 0.0;
  for (double x : values) mean += x;
  mean /= static_cast<double>(values.size());
  double squares = 0.0;
  for (double x : values) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

// estimate +- t_{G-1} SE sqrt(G / (G-1)). The bootstrap's variance of a mean over G clusters
// is the plug-in one, which divides by G where the unbiased one divides by G - 1; with that
// factor the interval is the cluster-robust t interval with G - 1 degrees of freedom (the
// small-cluster correction of Cameron & Miller 2015), its SE taken from the replicates so
// that it applies to any statistic. Kept within the replicates' range, so that it never
// claims a value no resample reached (a share above 1, a kappa above 1), and never so far
// as to leave out the estimate itself.
void t_interval(BootstrapInterval& out) {
  const std::vector<double>& r = out.replicates;
  if (out.clusters < 2) {  // every resample is the one cluster: the estimate itself
    out.lower = out.upper = out.estimate;
    return;
  }
  if (r.size() < 2) {  // no spread to measure
    out.lower = out.upper = kNaN;
    return;
  }
  const double g = static_cast<double>(out.clusters);
  const double t = boost::math::quantile(boost::math::students_t(g - 1.0), 0.5 + out.level / 2.0);
  const double half_width = t * out.standard_error * std::sqrt(g / (g - 1.0));
  const auto [smallest, largest] = std::minmax_element(r.begin(), r.end());
  out.lower = std::min(std::max(out.estimate - half_width, *smallest), out.estimate);
  out.upper = std::max(std::min(out.estimate + half_width, *largest), out.estimate);
}

}  // namespace

std::size_t uniform_index(std::mt19937_64& rng, std::size_t bound) {
  if (bound == 0) throw std::invalid_argument("uniform_index: empty range");
  // reject the top partial block of [0, 2^64) so every residue is equally likely
  const std::uint64_t b = bound;
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % b;
  std::uint64_t u = rng();
  while (u >= limit) u = rng();
  return static_cast<std::size_t>(u % b);
}

double quantile_type7(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("quantile_type7: no values");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile_type7: q outside [0, 1]");
  std::sort(values.begin(), values.end());
  const double h = (static_cast<double>(values.size()) - 1.0) * q;  // type 7: h = (n-1) q
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

BootstrapInterval cluster_bootstrap(std::span<const std::int64_t> cluster, const RowStatistic& statistic,
                                    std::mt19937_64& rng, std::size_t resamples, double level,
                                    bool drop_undefined, IntervalMethod method) {
  if (cluster.empty()) throw std::invalid_argument("cluster_bootstrap: no rows");
  if (resamples == 0) throw std::invalid_argument("cluster_bootstrap: resamples must be positive");
  if (!(level > 0.0 && level < 1.0)) throw std::invalid_argument("cluster_bootstrap: level must be in (0, 1)");

  // rows of each cluster, clusters in increasing id order (deterministic, independent of row order)
  std::map<std::int64_t, std::vector<std::size_t>> by_id;
  for (std::size_t i = 0; i < cluster.size(); ++i) by_id[cluster[i]].push_back(i);
  std::vector<std::vector<std::size_t>> members;
  members.reserve(by_id.size());
  for (auto& [id, rows] : by_id) members.push_back(std::move(rows));

  BootstrapInterval out;
  out.level = level;
  out.method = method;
  out.resamples = resamples;
  out.clusters = members.size();
  std::vector<std::size_t> all(cluster.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  out.estimate = statistic(all);

  out.replicates.reserve(resamples);
  std::vector<std::size_t> rows;
  for (std::size_t b = 0; b < resamples; ++b) {
    rows.clear();
    for (std::size_t g = 0; g < members.size(); ++g) {  // G draws with replacement
      const auto& pick = members[uniform_index(rng, members.size())];
      rows.insert(rows.end(), pick.begin(), pick.end());
    }
    const double t = statistic(rows);
    if (std::isnan(t)) {
      if (!drop_undefined) throw std::invalid_argument("cluster_bootstrap: statistic returned NaN on a resample");
      ++out.undefined;
      continue;
    }
    out.replicates.push_back(t);
  }
  if (out.replicates.empty()) {
    out.lower = out.upper = kNaN;
    return out;
  }
  out.standard_error = standard_deviation(out.replicates);
  if (method == IntervalMethod::t_bootstrap_se) {
    t_interval(out);
    return out;
  }
  const double alpha = 1.0 - level;
  out.lower = quantile_type7(out.replicates, alpha / 2.0);  // percentile interval (Efron 1979)
  out.upper = quantile_type7(out.replicates, 1.0 - alpha / 2.0);
  return out;
}

std::uint64_t stream_seed(std::uint64_t seed, std::string_view key) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (unsigned char c : key) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  std::uint64_t z = seed ^ h;  // splitmix64's finaliser: nearby keys give unrelated seeds
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace mirac::stats
