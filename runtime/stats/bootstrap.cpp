// bootstrap.cpp: cluster bootstrap with an injected generator.
#include "runtime/stats/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace mirac::stats {

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
                                    bool drop_undefined) {
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
    out.lower = out.upper = std::numeric_limits<double>::quiet_NaN();
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
