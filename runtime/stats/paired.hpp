// paired.hpp: effect sizes and summaries for paired (matched-prompt) comparisons.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "runtime/stats/nonparametric.hpp"

namespace mirac::stats {

/// Mean of d_i = treatment_i - control_i.
double mean_difference(std::span<const double> treatment, std::span<const double> control);

/// Cohen's d for paired data, d_z = mean(d) / sd(d) with sd using n - 1 (Cohen 1988, eq. 2.3.5;
/// Lakens 2013, eq. 6). NaN when sd(d) = 0. Throws on size mismatch or n < 2.
double cohen_dz(std::span<const double> treatment, std::span<const double> control);

/// Direction of a paired change, from the sign of treatment - control.
enum class Change { decreased = 0, unchanged = 1, increased = 2 };

/// What the MIRA paper reports per model for mitigation vs baseline (Sec. 5.4, Table 18).
struct PairedSummary {
  std::size_t n = 0;
  double mean_treatment = 0.0;
  double mean_control = 0.0;
  double mean_delta = 0.0;      ///< mean(treatment - control)
  double cohen_dz = 0.0;        ///< NaN when all differences are equal
  /// 95% t interval of mean_delta (scipy.stats.ttest_rel(...).confidence_interval()):
  /// mean_delta +- t(0.975, n - 1) sd / sqrt(n); equal to mean_delta when sd is 0.
  double delta_lower = 0.0;
  double delta_upper = 0.0;
  std::size_t n_increased = 0;  ///< treatment > control
  std::size_t n_decreased = 0;  ///< treatment < control
  std::size_t n_unchanged = 0;  ///< treatment == control
  /// Wilcoxon signed-rank on the differences. When every difference is zero the test is
  /// undefined (scipy raises): `wilcoxon_defined` is false and `wilcoxon` is left empty.
  bool wilcoxon_defined = false;
  WilcoxonResult wilcoxon;
};

/// Summary of paired vectors (treatment = e.g. mitigation, control = baseline).
PairedSummary paired_summary(std::span<const double> treatment, std::span<const double> control);

/// One paired comparison of a family, e.g. "English, condition A vs B" over matched prompts.
struct PairedInput {
  std::string label;
  std::vector<double> treatment;
  std::vector<double> control;
};

/// A family member's summary with its Benjamini-Hochberg q-value over the family.
struct PairedComparison {
  std::string label;
  PairedSummary summary;
  double q_value = 0.0;  ///< BH over the family's Wilcoxon p-values; NaN if the test is undefined
};

/// Paired summaries of every comparison, then BH (benjamini_hochberg) over the Wilcoxon
/// p-values of those whose test is defined, as the MIRA paper's Table 5 (Sec. 4.4, 5.2).
/// Comparisons whose differences are all zero get q = NaN and are not in the family.
std::vector<PairedComparison> paired_comparisons(const std::vector<PairedInput>& family);

/// Joint direction counts over two outcomes measured on the same pairs:
/// counts[a][b] = #pairs whose change in outcome A is `a` and in outcome B is `b`,
/// indexed by Change. E.g. "D3 worse and Q3 worse" (higher = worse) is
/// counts[Change::increased][Change::increased] with A = D3, B = Q3.
struct JointChangeTable {
  std::array<std::array<std::size_t, 3>, 3> counts{};
  std::size_t at(Change a, Change b) const {
    return counts[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
  }
};

/// Cross-tabulates the sign of (treatment_a - control_a) against (treatment_b - control_b).
JointChangeTable joint_changes(std::span<const double> treatment_a, std::span<const double> control_a,
                               std::span<const double> treatment_b, std::span<const double> control_b);

}  // namespace mirac::stats
