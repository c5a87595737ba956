// nonparametric.cpp: Wilcoxon signed-rank (scipy 1.10.1 conventions) and Spearman's rho.
#include "runtime/stats/nonparametric.hpp"
#include "runtime/stats/nan.hpp"
#include "runtime/stats/p_value.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "runtime/stats/ranks.hpp"

namespace mirac::stats {
namespace {

// Number of subsets of {1..n} with rank sum r, r = 0..n(n+1)/2: the null distribution of R+
// times 2^n (Wilcoxon 1945). Exact in 64 bits for n <= 50 since every count is below 2^50.
std::vector<std::uint64_t> signed_rank_counts(std::size_t n) {
  std::vector<std::uint64_t> c(n * (n + 1) / 2 + 1, 0);
  c[0] = 1;
  std::size_t top = 0;
  for (std::size_t k = 1; k <= n; ++k) {  // add rank k: c_k(r) = c_{k-1}(r) + c_{k-1}(r - k)
    top += k;
    for (std::size_t r = top; r >= k; --r) c[r] += c[r - k];
  }
  return c;
}

}  // namespace

WilcoxonResult wilcoxon_signed_rank(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("wilcoxon_signed_rank: x and y differ in length");
  std::vector<double> d(x.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = x[i] - y[i];
  return wilcoxon_signed_rank(d);
}

WilcoxonResult wilcoxon_signed_rank(std::span<const double> d_all) {
  if (d_all.empty()) throw std::invalid_argument("wilcoxon_signed_rank: no differences");
  for (double v : d_all) {
    if (std::isnan(v)) throw std::invalid_argument("wilcoxon_signed_rank: NaN difference");
  }
  WilcoxonResult res;
  // scipy 1.10.1 'auto': exact when len(d) <= 50 counting zeros, then falls back to the
  // normal approximation if any difference is zero. Ties alone do not force the fallback.
  res.method = d_all.size() <= 50 ? WilcoxonMethod::exact : WilcoxonMethod::normal_approximation;
  std::vector<double> d;  // zero_method='wilcox': drop zero differences (Wilcoxon 1945)
  for (double v : d_all) {
    if (v != 0.0) d.push_back(v);
  }
  res.n_zero = d_all.size() - d.size();
  res.n_used = d.size();
  if (d.empty()) throw std::invalid_argument("wilcoxon_signed_rank: every difference is zero");
  if (res.n_zero > 0) res.method = WilcoxonMethod::normal_approximation;

  std::vector<double> magnitude(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) magnitude[i] = std::fabs(d[i]);
  const Ranking ranking = average_ranks(magnitude);
  for (std::size_t i = 0; i < d.size(); ++i) {
    (d[i] > 0.0 ? res.r_plus : res.r_minus) += ranking.ranks[i];  // R+ and R-
  }
  res.statistic = std::min(res.r_plus, res.r_minus);  // two-sided statistic T = min(R+, R-)
  const auto n = static_cast<double>(d.size());

  if (res.method == WilcoxonMethod::normal_approximation) {
    const double mean = n * (n + 1.0) * 0.25;              // E[T] = n(n+1)/4
    double var24 = n * (n + 1.0) * (2.0 * n + 1.0);        // 24 Var[T] = n(n+1)(2n+1)
    for (std::size_t t : ranking.tie_sizes) {              // tie correction: - sum (t^3 - t) / 2
      const auto tt = static_cast<double>(t);
      var24 -= 0.5 * tt * (tt * tt - 1.0);
    }
    const double se = std::sqrt(var24 / 24.0);
    res.z = (res.statistic - mean) / se;                   // no continuity correction (scipy default)
    const boost::math::normal_distribution<double> norm;
    res.p_value = floor_p(2.0 * boost::math::cdf(boost::math::complement(norm, std::fabs(res.z))));
    return res;
  }

  // Exact: P-values from the distribution of R+. scipy 1.10.1 truncates a tied (non-integer)
  // R+ to an integer before the lookup; we do the same to agree with it.
  res.z = kNaN;
  const auto counts = signed_rank_counts(d.size());
  const auto r_plus = static_cast<std::size_t>(res.r_plus);
  const std::size_t last = counts.size() - 1;
  if (r_plus == last / 2) {  // R+ at the centre of the distribution
    res.p_value = 1.0;
    return res;
  }
  std::uint64_t less = 0, greater = 0;  // #{R+ <= r} and #{R+ >= r}, times 2^n
  for (std::size_t r = 0; r <= r_plus; ++r) less += counts[r];
  for (std::size_t r = r_plus; r <= last; ++r) greater += counts[r];
  const double total = std::ldexp(1.0, static_cast<int>(d.size()));  // 2^n
  res.p_value = std::min(1.0, 2.0 * static_cast<double>(std::min(less, greater)) / total);
  return res;
}

double spearman_p_value(double rho, std::size_t n) {
  if (n < 3 || std::isnan(rho)) return kNaN;
  const double df = static_cast<double>(n) - 2.0;
  // t = rho sqrt(df / ((1 + rho)(1 - rho))), clipped at 0 like scipy
  const double ratio = std::max(0.0, df / ((rho + 1.0) * (1.0 - rho)));
  const double t = rho * std::sqrt(ratio);
  if (std::isinf(t)) return 0.0;
  const boost::math::students_t_distribution<double> dist(df);
  return floor_p(2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

SpearmanResult spearman(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("spearman: x and y differ in length");
  SpearmanResult res;
  res.n = x.size();
  res.df = static_cast<double>(res.n) - 2.0;
  const auto constant = [](std::span<const double> v) {
    return std::all_of(v.begin(), v.end(), [&](double a) { return a == v[0]; });
  };
  if (res.n <= 1 || constant(x) || constant(y)) {  // scipy: correlation undefined
    res.rho = res.t = res.p_value = kNaN;
    return res;
  }
  const auto rx = average_ranks(x).ranks;  // throws on NaN
  const auto ry = average_ranks(y).ranks;
  // rho = Pearson correlation of the ranks (Spearman 1904), two-pass centred sums
  const double mean = (static_cast<double>(res.n) + 1.0) / 2.0;  // mean rank, exact with ties
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < res.n; ++i) {
    const double a = rx[i] - mean, b = ry[i] - mean;
    sxy += a * b;
    sxx += a * a;
    syy += b * b;
  }
  res.rho = std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
  if (res.n < 3) {
    res.t = res.p_value = kNaN;
    return res;
  }
  const double ratio = std::max(0.0, res.df / ((res.rho + 1.0) * (1.0 - res.rho)));
  res.t = res.rho * std::sqrt(ratio);
  res.p_value = spearman_p_value(res.rho, res.n);
  return res;
}

}  // namespace mirac::stats
