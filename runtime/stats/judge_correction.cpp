// judge_correction.cpp: PPI, PPI++ and Rogan-Gladen from sums (judge_correction.hpp).
#include "runtime/stats/judge_correction.hpp"
#include "runtime/stats/nan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/normal.hpp>

namespace mirac::stats {

namespace {

// Sample (co)variance from sums over `count` values, dividing by count - 1.
double covariance(double sum_xy, double sum_x, double sum_y, double count) {
  if (count < 2) return kNaN;
  return (sum_xy - sum_x * sum_y / count) / (count - 1.0);
}

// The moments every estimate reads, from the sums.
struct Moments {
  double N, n;
  double mean_all_judge, var_all_judge;  // over every answer
  double mean_people, mean_judge;        // over the sample
  double var_people, var_judge, cov;     // over the sample
};

Moments moments(const PpiSums& s) {
  Moments m{};
  m.N = s.all_n;
  m.n = s.n;
  m.mean_all_judge = s.all_n > 0 ? s.all_judge / s.all_n : kNaN;
  m.var_all_judge = covariance(s.all_judge2, s.all_judge, s.all_judge, s.all_n);
  m.mean_people = s.n > 0 ? s.people / s.n : kNaN;
  m.mean_judge = s.n > 0 ? s.judge / s.n : kNaN;
  m.var_people = covariance(s.people2, s.people, s.people, s.n);
  m.var_judge = covariance(s.judge2, s.judge, s.judge, s.n);
  m.cov = covariance(s.cross, s.people, s.judge, s.n);
  return m;
}

// PPI++'s coefficient: the slope of people's scores on the judge's over the sample; 0
// (people's mean alone) when the judge's sample scores do not vary, where no slope exists.
double tuned_lambda(const Moments& m) {
  if (!(m.var_judge > 0)) return 0.0;
  return m.cov / m.var_judge;
}

double lambda_of(const Moments& m, PpiMethod method) { return method == PpiMethod::ppi ? 1.0 : tuned_lambda(m); }

double theta(const Moments& m, double lambda) {
  if (m.N <= 0 || m.n <= 0) return kNaN;
  // lambda 0 must not turn a NaN judge mean into one: 0 * NaN is NaN.
  return (lambda == 0.0 ? 0.0 : lambda * m.mean_all_judge) + m.mean_people - lambda * m.mean_judge;
}

}  // namespace

NormalEstimate normal_interval(double estimate, double se, double level) {
  if (!(level > 0.0 && level < 1.0)) throw std::invalid_argument("normal_interval: level must be in (0, 1)");
  const double z = boost::math::quantile(boost::math::normal(), (1.0 + level) / 2.0);
  NormalEstimate e;
  e.estimate = estimate;
  e.se = se;
  if (std::isfinite(estimate) && std::isfinite(se)) {
    e.lower = estimate - z * se;
    e.upper = estimate + z * se;
  }
  return e;
}

NormalEstimate difference(const NormalEstimate& a, const NormalEstimate& b, double level) {
  return normal_interval(a.estimate - b.estimate, std::sqrt(a.se * a.se + b.se * b.se), level);
}

void PpiSums::add_judged(double f) {
  all_n += 1;
  all_judge += f;
  all_judge2 += f * f;
}

void PpiSums::add_scored_by_people(double f, double y) {
  add_judged(f);
  n += 1;
  people += y;
  judge += f;
  people2 += y * y;
  judge2 += f * f;
  cross += y * f;
}

void PpiSums::add(const PpiSums& o) {
  all_n += o.all_n, all_judge += o.all_judge, all_judge2 += o.all_judge2;
  n += o.n, people += o.people, judge += o.judge;
  people2 += o.people2, judge2 += o.judge2, cross += o.cross;
}

PpiSums ppi_sums(std::span<const double> judge, std::span<const double> people) {
  if (judge.size() != people.size()) throw std::invalid_argument("ppi_sums: judge and people differ in length");
  PpiSums s;
  for (std::size_t i = 0; i < judge.size(); ++i) {
    if (std::isnan(judge[i])) continue;
    if (std::isnan(people[i])) s.add_judged(judge[i]);
    else s.add_scored_by_people(judge[i], people[i]);
  }
  return s;
}

double ppi_point(const PpiSums& s, PpiMethod method) {
  const Moments m = moments(s);
  return theta(m, lambda_of(m, method));
}

PpiEstimate ppi_mean(const PpiSums& s, PpiMethod method, double level) {
  const Moments m = moments(s);
  PpiEstimate out;
  out.N = m.N;
  out.n = m.n;
  out.judge_only = normal_interval(m.mean_all_judge, std::sqrt(m.var_all_judge / m.N), level);
  out.people_only = normal_interval(m.mean_people, std::sqrt(m.var_people / m.n), level);
  const double lambda = lambda_of(m, method);
  out.lambda = lambda;
  // var(f) / N is the judge's mean's own noise; var(y - lambda f) / n the rectifier's; the
  // covariance term is there because the sample's answers are among the N.
  const double residual = m.var_people - 2.0 * lambda * m.cov + lambda * lambda * m.var_judge;
  const double shared = 2.0 * lambda * (m.cov - lambda * m.var_judge);
  double variance = residual / m.n;
  if (lambda != 0.0) variance += (lambda * lambda * m.var_all_judge + shared) / m.N;
  out.corrected = normal_interval(theta(m, lambda), std::sqrt(std::max(variance, 0.0)), level);
  if (std::isnan(variance)) out.corrected.se = out.corrected.lower = out.corrected.upper = kNaN;
  return out;
}

void FlagSums::add_judged(bool judge_flag) {
  all_n += 1;
  all_flagged += judge_flag ? 1 : 0;
}

void FlagSums::add_scored_by_people(bool judge_flag, bool people_flag) {
  add_judged(judge_flag);
  if (people_flag) {
    positives += 1;
    true_positives += judge_flag ? 1 : 0;
  } else {
    negatives += 1;
    false_positives += judge_flag ? 1 : 0;
  }
}

void FlagSums::add(const FlagSums& o) {
  all_n += o.all_n, all_flagged += o.all_flagged;
  positives += o.positives, true_positives += o.true_positives;
  negatives += o.negatives, false_positives += o.false_positives;
}

PpiSums ppi_sums(const FlagSums& f) {
  // For 0/1 values x^2 = x, and y f counts the answers both flag.
  PpiSums s;
  s.all_n = f.all_n;
  s.all_judge = s.all_judge2 = f.all_flagged;
  s.n = f.positives + f.negatives;
  s.people = f.positives;
  s.people2 = f.positives;
  s.judge = s.judge2 = f.true_positives + f.false_positives;
  s.cross = f.true_positives;
  return s;
}

namespace {

struct RatesOf {
  double observed, sensitivity, specificity, youden, unclipped;
};

RatesOf rates_of(const FlagSums& f) {
  RatesOf r{};
  r.observed = f.all_n > 0 ? f.all_flagged / f.all_n : kNaN;
  r.sensitivity = f.positives > 0 ? f.true_positives / f.positives : kNaN;
  r.specificity = f.negatives > 0 ? 1.0 - f.false_positives / f.negatives : kNaN;
  r.youden = r.sensitivity + r.specificity - 1.0;
  r.unclipped = r.youden > 0 ? (r.observed + r.specificity - 1.0) / r.youden : kNaN;
  return r;
}

double clip01(double x) { return std::isnan(x) ? x : std::clamp(x, 0.0, 1.0); }

}  // namespace

double rogan_gladen_point(const FlagSums& f) { return clip01(rates_of(f).unclipped); }

RoganGladen rogan_gladen(const FlagSums& f, double level) {
  const RatesOf r = rates_of(f);
  RoganGladen out;
  out.observed = r.observed;
  out.sensitivity = r.sensitivity;
  out.specificity = r.specificity;
  out.unclipped = r.unclipped;
  const double p = r.unclipped;
  const double sens_var = r.sensitivity * (1.0 - r.sensitivity), spec_var = r.specificity * (1.0 - r.specificity);
  // The sample's answers count in p_obs too: its rates covary with p_obs by their own
  // variance over N, which the gradient (1, -p, 1 - p) / J turns into the last two terms.
  const double variance = (r.observed * (1.0 - r.observed) / f.all_n + p * p * sens_var / f.positives +
                           (1.0 - p) * (1.0 - p) * spec_var / f.negatives - 2.0 * p * sens_var / f.all_n -
                           2.0 * (1.0 - p) * spec_var / f.all_n) /
                          (r.youden * r.youden);
  NormalEstimate e = normal_interval(p, std::sqrt(std::max(variance, 0.0)), level);
  e.estimate = clip01(e.estimate);
  e.lower = clip01(e.lower);
  e.upper = clip01(e.upper);
  out.corrected = e;
  return out;
}

}  // namespace mirac::stats
