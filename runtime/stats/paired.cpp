// paired.cpp: paired effect sizes and summaries.
#include "runtime/stats/paired.hpp"

#include "runtime/stats/multiple_testing.hpp"

#include <cmath>

#include <boost/math/distributions/students_t.hpp>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mirac::stats {
namespace {

std::vector<double> differences(std::span<const double> treatment, std::span<const double> control,
                                const char* fn) {
  if (treatment.size() != control.size()) {
    throw std::invalid_argument(std::string(fn) + ": treatment and control differ in length");
  }
  std::vector<double> d(treatment.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    d[i] = treatment[i] - control[i];
    if (std::isnan(d[i])) throw std::invalid_argument(std::string(fn) + ": NaN in input");
  }
  return d;
}

double mean_of(std::span<const double> v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

Change change_of(double delta) {
  if (delta > 0.0) return Change::increased;
  if (delta < 0.0) return Change::decreased;
  return Change::unchanged;
}

}  // namespace

double mean_difference(std::span<const double> treatment, std::span<const double> control) {
  const auto d = differences(treatment, control, "mean_difference");
  if (d.empty()) throw std::invalid_argument("mean_difference: no pairs");
  return mean_of(d);
}

double cohen_dz(std::span<const double> treatment, std::span<const double> control) {
  const auto d = differences(treatment, control, "cohen_dz");
  if (d.size() < 2) throw std::invalid_argument("cohen_dz: need at least 2 pairs");
  const double mean = mean_of(d);
  double ss = 0.0;  // sum of squared deviations, two-pass for accuracy
  for (double x : d) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / static_cast<double>(d.size() - 1));  // ddof = 1
  if (sd == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return mean / sd;  // d_z = mean(d) / sd(d)
}

PairedSummary paired_summary(std::span<const double> treatment, std::span<const double> control) {
  const auto d = differences(treatment, control, "paired_summary");
  if (d.size() < 2) throw std::invalid_argument("paired_summary: need at least 2 pairs");
  PairedSummary s;
  s.n = d.size();
  s.mean_treatment = mean_of(treatment);
  s.mean_control = mean_of(control);
  s.mean_delta = mean_of(d);
  s.cohen_dz = cohen_dz(treatment, control);
  double ss = 0.0;
  for (double x : d) ss += (x - s.mean_delta) * (x - s.mean_delta);
  const double n = static_cast<double>(d.size());
  const double se = std::sqrt(ss / (n - 1.0) / n);
  const double t = boost::math::quantile(boost::math::students_t(n - 1.0), 0.975);
  s.delta_lower = s.mean_delta - t * se;
  s.delta_upper = s.mean_delta + t * se;
  for (double x : d) {
    switch (change_of(x)) {
      case Change::increased: ++s.n_increased; break;
      case Change::decreased: ++s.n_decreased; break;
      case Change::unchanged: ++s.n_unchanged; break;
    }
  }
  if (s.n_unchanged < s.n) {
    s.wilcoxon = wilcoxon_signed_rank(d);
    s.wilcoxon_defined = true;
  }
  return s;
}

std::vector<PairedComparison> paired_comparisons(const std::vector<PairedInput>& family) {
  std::vector<PairedComparison> out;
  std::vector<double> p;             // the BH family: defined tests only
  std::vector<std::size_t> members;  // index into out of each p
  for (const auto& in : family) {
    PairedComparison c;
    c.label = in.label;
    c.summary = paired_summary(in.treatment, in.control);
    c.q_value = std::numeric_limits<double>::quiet_NaN();
    if (c.summary.wilcoxon_defined) {
      p.push_back(c.summary.wilcoxon.p_value);
      members.push_back(out.size());
    }
    out.push_back(std::move(c));
  }
  const auto q = benjamini_hochberg(p);
  for (std::size_t i = 0; i < q.size(); ++i) out[members[i]].q_value = q[i];
  return out;
}

JointChangeTable joint_changes(std::span<const double> treatment_a, std::span<const double> control_a,
                               std::span<const double> treatment_b, std::span<const double> control_b) {
  const auto da = differences(treatment_a, control_a, "joint_changes");
  const auto db = differences(treatment_b, control_b, "joint_changes");
  if (da.size() != db.size()) throw std::invalid_argument("joint_changes: outcomes A and B differ in length");
  JointChangeTable t;
  for (std::size_t i = 0; i < da.size(); ++i) {
    ++t.counts[static_cast<std::size_t>(change_of(da[i]))][static_cast<std::size_t>(change_of(db[i]))];
  }
  return t;
}

}  // namespace mirac::stats
