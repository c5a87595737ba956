// corrected.hpp: the pieces of a `corrected` analysis (judge-corrected estimates, issue
// 28) shared by corrected.cpp (the analysis, its dimensions and its certification) and
// corrected_parts.cpp (its contrasts and flags). Internal to engine/analyze.
#pragma once

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/analyze/context.hpp"
#include "runtime/stats/bootstrap.hpp"
#include "runtime/stats/judge_correction.hpp"

namespace mirac::analyze::corrected_detail {

/// One `certify METRIC >= BOUND` of the analysis.
struct CertifyRule {
  std::string metric;  ///< qwk, exact or adjacent
  bool strict = false;  ///< `>` rather than `>=`
  double bound = 0;
  std::string text() const;  ///< "qwk >= 0.6"
};

/// The judge's agreement with people on what one dimension or flag's corrected figures
/// rest on, and whether it meets every rule.
struct Certification {
  std::size_t n = 0;  ///< answers both scored (N/A left out)
  double qwk = 0, exact = 0, adjacent = 0;
  bool certified = true;
  std::vector<std::string> failed;  ///< "qwk 0.41 < 0.6", one per rule not met
  nlohmann::ordered_json json() const;
};

/// What every part of the analysis reads: its options, both raters' rows, the answers kept.
struct Setup {
  const Context& ctx;
  const ast::AnalysisDecl& a;
  std::string judge, people;
  stats::PpiMethod method = stats::PpiMethod::ppi;
  std::vector<CertifyRule> rules;
  ScoreTable judge_table;   ///< the judge's rows: `where` and `by` read them
  ScoreTable people_table;  ///< people's rows, on the same dimensions
  std::unordered_map<std::string, std::size_t> people_of;  ///< answer key -> people's row
  std::vector<std::size_t> rows;  ///< the judge's rows the analysis's `where` keeps
  std::vector<std::string> by;

  /// People's row of the answer a judge's row scores, or null.
  const ScoreRow* people_row(const ScoreRow& judge_row) const;
  /// The context that evaluates conditions on the judge's rows.
  Context judge_context() const { return Context{ctx.spec, judge_table, ctx.options, ctx.sources, ctx.diags}; }
};

/// Agreement of two raters' values (NaN pairs left out) against the rules; `labels` the
/// scale's points (for the kappa; empty or values off them: no kappa).
Certification certify(const std::vector<CertifyRule>& rules, std::span<const double> judge, std::span<const double> people,
                      std::span<const double> labels);

/// An estimate on every answer and its seed-bootstrap interval.
struct Interval {
  double estimate = 0;
  nlohmann::ordered_json ci;  ///< [lower, upper], or null
  std::size_t undefined = 0;  ///< resamples on which the estimate was undefined
  nlohmann::ordered_json json() const;
};

/// The share of resamples above which an interval is not reported: a figure undefined on
/// a resample that drew none of the seeds people scored answers of (a cell with one or two
/// scored answers) would otherwise get an interval from the draws that happened to include
/// them, in which the correction hardly varies: far too narrow.
inline constexpr double kMostUndefinedResamples = 0.05;

/// What a figure with an estimate but no interval says of it.
inline constexpr const char* kTooFewForInterval =
    "too few of people's scores, or from too few seeds, for an interval";

/// The estimate of `statistic` on the sum of every seed's parts (`zero` is an empty sum), and its cluster-bootstrap
/// interval over the seeds (resamples where it is undefined are left out and counted). The
/// draws restart from the stream of `key`, so two statistics with one key are resampled
/// alike: the judge's figure and the corrected one are compared on the same draws.
template <typename Parts>
Interval seed_interval(const Setup& s, const std::string& key, const std::vector<Parts>& per_seed, const Parts& zero,
                       const std::function<double(const Parts&)>& statistic) {
  auto total = [&](std::span<const std::size_t> seeds) {
    Parts sum = zero;
    for (std::size_t i : seeds) sum.add(per_seed[i]);
    return statistic(sum);
  };
  std::vector<std::size_t> every(per_seed.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  Interval out;
  out.estimate = total(every);
  out.ci = nullptr;
  if (!std::isfinite(out.estimate) || per_seed.size() < 2) return out;
  std::vector<std::int64_t> cluster(per_seed.size());
  for (std::size_t i = 0; i < cluster.size(); ++i) cluster[i] = static_cast<std::int64_t>(i);
  std::mt19937_64 rng(stats::stream_seed(s.ctx.options.seed, key));
  const stats::BootstrapInterval ci = stats::cluster_bootstrap(cluster, total, rng, s.ctx.options.resamples, 0.95, true);
  out.undefined = ci.undefined;
  const bool sparse = static_cast<double>(ci.undefined) > kMostUndefinedResamples * static_cast<double>(ci.resamples);
  if (!sparse && std::isfinite(ci.lower) && std::isfinite(ci.upper))
    out.ci = nlohmann::ordered_json::array({ci.lower, ci.upper});
  return out;
}

/// Per-seed parts: one slot per seed of `rows`, in seed order.
std::map<int, std::size_t> seed_slots(const ScoreTable& table, const std::vector<std::size_t>& rows);

/// One line of the analysis's CSV table.
std::vector<std::string> csv_row(const std::string& part, const std::string& name, const std::string& group, double N,
                                 double n, const Interval& judge, const Interval& corrected, const Interval* rogan_gladen,
                                 const Certification* certification);

/// The `contrasts` the analysis corrects (corrected_parts.cpp).
nlohmann::ordered_json corrected_contrasts(const Setup& s, const std::map<std::string, Certification>& by_dimension,
                                           Table& table);
/// The unit `flags` the analysis corrects (corrected_parts.cpp).
nlohmann::ordered_json corrected_flags(const Setup& s, Table& table);

}  // namespace mirac::analyze::corrected_detail
