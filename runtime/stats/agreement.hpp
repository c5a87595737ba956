// agreement.hpp: agreement between raters of ordinal scores: exact and adjacent agreement,
// mean signed error, Cohen's kappa with quadratic weights (two raters) and Krippendorff's
// alpha (any number of raters, missing values allowed).
#pragma once

#include <span>
#include <vector>

namespace mirac::stats {

/// Two raters over the same n items (no missing values).
struct PairAgreement {
  std::size_t n = 0;
  double exact = 0;              ///< share with a == b
  double adjacent = 0;           ///< share with |a - b| <= 1
  double mean_signed_error = 0;  ///< mean of a - b
  double qwk = 0;                ///< quadratic weighted kappa; NaN when undefined
};

/// Cohen's kappa with quadratic weights over the categories `labels` (ascending), as
/// sklearn.metrics.cohen_kappa_score(a, b, labels=labels, weights="quadratic"): weights
/// (i - j)^2 between label positions, expected counts from the two raters' margins. NaN
/// when the expected weighted disagreement is 0 (every rating in one category). Values not
/// among `labels` throw std::invalid_argument.
double quadratic_weighted_kappa(std::span<const double> a, std::span<const double> b, std::span<const double> labels);

/// The same from a k x k confusion matrix (row-major; rows the first rater's label).
double quadratic_weighted_kappa(std::span<const double> confusion, std::size_t k);

/// All of PairAgreement; `labels` as for quadratic_weighted_kappa (empty: QWK is NaN).
PairAgreement pair_agreement(std::span<const double> a, std::span<const double> b, std::span<const double> labels);

enum class AlphaMetric { nominal, ordinal, interval };

/// Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"):
/// `units[u]` holds the values the raters gave unit u (missing ones left out); units with
/// fewer than two values are not pairable and do not count. 1 - (n - 1) * sum(o_ck d_ck) /
/// sum(n_c n_k d_ck) over the coincidence matrix o; for the ordinal metric d_ck is
/// (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 over the values in ascending order. NaN when fewer
/// than two pairable values or no expected disagreement.
double krippendorff_alpha(const std::vector<std::vector<double>>& units, AlphaMetric metric);

/// The same from a coincidence matrix (row-major, k x k) over `values` (ascending, k of
/// them); values no unit used may be included (their counts are 0 and change nothing).
/// Matrices of disjoint sets of units add up, which is what a bootstrap over clusters sums.
double krippendorff_alpha(std::span<const double> coincidences, std::span<const double> values, AlphaMetric metric);

/// Adds one unit's values (missing ones left out; fewer than two add nothing) to the
/// coincidence matrix over `values` (each value of the unit must be among them).
void add_coincidences(std::span<const double> unit, std::span<const double> values, std::vector<double>& coincidences);

}  // namespace mirac::stats
