// judge_correction.hpp: estimates corrected for a judge's error with people's scores on a
// sample of the answers: prediction-powered inference for a mean (Angelopoulos, Bates,
// Fannjiang, Jordan & Zrnic 2023) and its power-tuned form (PPI++, Angelopoulos, Duchi &
// Zrnic 2023), and the Rogan-Gladen correction of a rate for the judge's sensitivity and
// specificity (Rogan & Gladen 1978). docs/statistics.md, section 7c, has the formulas.
//
// The judge scored N answers; people scored n of them (the sample is a subset of the N,
// drawn without looking at the scores). Everything is computed from sums that add up over
// disjoint sets of answers, so a cluster bootstrap over seeds sums per-seed parts.
#pragma once

#include <cstddef>
#include <limits>
#include <span>

namespace mirac::stats {

/// An estimate with a normal-theory interval estimate +- z_{(1+level)/2} se; NaN parts
/// where undefined (se needs two observations).
struct NormalEstimate {
  double estimate = std::numeric_limits<double>::quiet_NaN();
  double se = std::numeric_limits<double>::quiet_NaN();
  double lower = std::numeric_limits<double>::quiet_NaN();
  double upper = std::numeric_limits<double>::quiet_NaN();
};

/// estimate +- z se at `level` (NaN bounds when se is NaN).
NormalEstimate normal_interval(double estimate, double se, double level = 0.95);

/// The difference a - b of two independent estimates (two cells of a contrast, each
/// corrected on its own sample): se = sqrt(se_a^2 + se_b^2).
NormalEstimate difference(const NormalEstimate& a, const NormalEstimate& b, double level = 0.95);

/// Sums over answers: the judge's score f on each of the N answers, and on the n answers
/// people also scored, people's score y with the judge's.
struct PpiSums {
  double all_n = 0, all_judge = 0, all_judge2 = 0;  ///< N, sum f, sum f^2 over every answer
  double n = 0, people = 0, judge = 0;              ///< n, sum y, sum f over the people's sample
  double people2 = 0, judge2 = 0, cross = 0;        ///< sum y^2, f^2, y f over the sample

  /// An answer only the judge scored.
  void add_judged(double judge_score);
  /// An answer both scored (it counts among the N as well).
  void add_scored_by_people(double judge_score, double people_score);
  void add(const PpiSums& other);
};

/// The judge's scores of every answer, and people's of the same answers (NaN: not scored by
/// people). A NaN judge score leaves the answer out (N/A to the judge).
PpiSums ppi_sums(std::span<const double> judge, std::span<const double> people);

enum class PpiMethod {
  /// theta = mean_N(f) + mean_n(y - f): the judge's mean rectified by its mean error.
  ppi,
  /// theta = lambda mean_N(f) + mean_n(y - lambda f), lambda = cov(y, f) / var(f) on the
  /// sample, which minimises the variance (never above people's mean alone, asymptotically).
  power_tuned,
};

struct PpiEstimate {
  double N = 0, n = 0;
  NormalEstimate judge_only;   ///< mean_N(f), se = sd(f) / sqrt(N): the judge taken at its word
  NormalEstimate people_only;  ///< mean_n(y), se = sd(y) / sqrt(n): the sample alone
  NormalEstimate corrected;    ///< theta, with the variance of docs/statistics.md, section 7c
  double lambda = 1;           ///< 1 for PPI; the tuned coefficient for PPI++
};

/// The corrected estimate alone (a bootstrap replicate); NaN without people's scores.
double ppi_point(const PpiSums& s, PpiMethod method);

/// Every estimate of PpiEstimate with `level` intervals. Sample variances divide by the
/// count minus one. With the sample inside the N answers the variance of theta is
///   lambda^2 var(f) / N + var(y - lambda f) / n + 2 lambda cov(f, y - lambda f) / N,
/// var(f) over all N, the other moments over the sample; the last term is what sharing
/// answers between the two means adds (it makes the variance var(y) / N when n = N).
PpiEstimate ppi_mean(const PpiSums& s, PpiMethod method, double level = 0.95);

/// Counts of a binary flag: the judge's on each of N answers and, on the n people scored,
/// the judge's against people's.
struct FlagSums {
  double all_n = 0, all_flagged = 0;           ///< N, answers the judge flags
  double positives = 0, true_positives = 0;   ///< sample answers people flag; of those, the judge's flags
  double negatives = 0, false_positives = 0;  ///< sample answers people do not flag; of those, the judge's flags

  void add_judged(bool judge_flag);
  void add_scored_by_people(bool judge_flag, bool people_flag);
  void add(const FlagSums& other);
};

/// The same counts as PPI sums of 0/1 scores (a rate is a mean of 0 and 1).
PpiSums ppi_sums(const FlagSums& f);

struct RoganGladen {
  double observed = 0;     ///< the judge's rate over N, p_obs
  double sensitivity = 0;  ///< P(judge flags | people flag), on the sample
  double specificity = 0;  ///< P(judge does not flag | people do not), on the sample
  double unclipped = 0;    ///< (p_obs + spec - 1) / (sens + spec - 1)
  /// The corrected rate clipped to [0, 1], with a delta-method interval, also clipped:
  /// var = [p_obs(1 - p_obs)/N + p^2 sens(1 - sens)/n_pos + (1 - p)^2 spec(1 - spec)/n_neg
  ///        - 2 p sens(1 - sens)/N - 2 (1 - p) spec(1 - spec)/N] / J^2,
  /// J = sens + spec - 1 and p the unclipped rate. The last two terms are the covariances of
  /// p_obs with the sample's rates, whose answers are among the N (with n = N the variance
  /// is p(1 - p)/N, as it must be: then p is people's rate).
  NormalEstimate corrected;
};

/// The corrected rate alone, clipped; NaN when the sample has no positive or no negative
/// answer, or J = sens + spec - 1 <= 0 (a judge no better than chance corrects nothing).
double rogan_gladen_point(const FlagSums& f);

/// Rogan-Gladen with its interval; the same NaN cases as rogan_gladen_point.
RoganGladen rogan_gladen(const FlagSums& f, double level = 0.95);

}  // namespace mirac::stats
