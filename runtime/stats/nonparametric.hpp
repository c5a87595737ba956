// nonparametric.hpp: rank-based tests (Wilcoxon signed-rank, Spearman correlation).
#pragma once

#include <cstddef>
#include <span>

namespace mirac::stats {

/// Which null distribution produced a Wilcoxon p-value.
enum class WilcoxonMethod { exact, normal_approximation };

/// Two-sided Wilcoxon signed-rank test on paired differences.
struct WilcoxonResult {
  double statistic = 0.0;  ///< W = min(R+, R-), as scipy.stats.wilcoxon two-sided
  double p_value = 1.0;    ///< two-sided
  std::size_t n_used = 0;  ///< differences left after dropping zeros (zero_method='wilcox')
  std::size_t n_zero = 0;  ///< zero differences dropped
  WilcoxonMethod method = WilcoxonMethod::normal_approximation;
  double z = 0.0;          ///< (W - n(n+1)/4) / sd, only when method == normal_approximation
  double r_plus = 0.0;     ///< sum of ranks of positive differences
  double r_minus = 0.0;    ///< sum of ranks of negative differences
};

/// Wilcoxon signed-rank test of d = x - y against a zero median, matching
/// scipy.stats.wilcoxon(x, y) defaults of scipy 1.10 (zero_method='wilcox', correction=False,
/// alternative='two-sided', mode='auto'); see docs/statistics.md for the exact rule.
/// Throws std::invalid_argument("wilcoxon_signed_rank: ...") on size mismatch, NaN, or when
/// every difference is zero.
WilcoxonResult wilcoxon_signed_rank(std::span<const double> x, std::span<const double> y);
/// Same on differences directly.
WilcoxonResult wilcoxon_signed_rank(std::span<const double> d);

/// Spearman rank correlation with its t-approximation p-value.
struct SpearmanResult {
  double rho = 0.0;      ///< Pearson correlation of average ranks
  double t = 0.0;        ///< rho sqrt((n-2) / ((1+rho)(1-rho)))
  double df = 0.0;       ///< n - 2
  double p_value = 1.0;  ///< two-sided, 2 P(T_{n-2} > |t|), as scipy.stats.spearmanr
  std::size_t n = 0;
};

/// Spearman's rho, as scipy.stats.spearmanr(x, y) (nan_policy='propagate' is not
/// supported: NaN input throws). A constant input gives rho = NaN and p = NaN, as scipy.
SpearmanResult spearman(std::span<const double> x, std::span<const double> y);

/// Two-sided p-value of Spearman's rho at sample size n (the t approximation alone). Lets a
/// caller check a published (rho, n, p) triple such as the MIRA paper's Table 6.
double spearman_p_value(double rho, std::size_t n);

}  // namespace mirac::stats
