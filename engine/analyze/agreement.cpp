// agreement.cpp: `agreement(D3, Q2) { raters judge, human  by model }`: how far raters of the
// same answers agree (paper, Tables 2 and 16): per dimension, group and pair of raters the
// exact and adjacent agreement, the mean signed error (first minus second) and the
// quadratic weighted kappa over the rubric's whole scale; Krippendorff's ordinal alpha over
// all the raters; each with a cluster-bootstrap interval over seeds.
#include <cmath>
#include <map>
#include <random>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"
#include "runtime/stats/agreement.hpp"
#include "runtime/stats/bootstrap.hpp"

namespace mirac::analyze {

namespace {

// One pair of raters' sufficient statistics over one seed's answers.
struct PairSums {
  double n = 0, exact = 0, adjacent = 0, error = 0;
  std::vector<double> confusion;  // k x k over the scale's labels
  void add(const PairSums& o) {
    n += o.n, exact += o.exact, adjacent += o.adjacent, error += o.error;
    for (std::size_t i = 0; i < confusion.size(); ++i) confusion[i] += o.confusion[i];
  }
};

nlohmann::ordered_json interval_json(const stats::BootstrapInterval& ci) {
  if (std::isnan(ci.estimate) || std::isnan(ci.lower) || std::isnan(ci.upper)) return nullptr;
  return nlohmann::ordered_json::array({ci.lower, ci.upper});
}

// A statistic on every answer, its interval over seeds, and how many resamples left it
// undefined (a kappa without variation); those are left out of the interval.
struct Estimate {
  double value = 0;
  nlohmann::ordered_json ci;
  std::size_t undefined = 0;
};

// The estimate and its interval over the seeds, for a statistic of summed per-seed parts.
template <typename Parts>
Estimate with_interval(const Context& ctx, const std::vector<Parts>& per_seed,
                                                        const std::function<double(const Parts&)>& statistic,
                                                        const Parts& zero) {
  auto total = [&](std::span<const std::size_t> rows) {
    Parts sum = zero;
    for (std::size_t i : rows) sum.add(per_seed[i]);
    return statistic(sum);
  };
  std::vector<std::size_t> all(per_seed.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const double estimate = total(all);
  if (std::isnan(estimate) || per_seed.size() < 2) return {estimate, nullptr, 0};
  std::vector<std::int64_t> cluster(per_seed.size());
  for (std::size_t i = 0; i < cluster.size(); ++i) cluster[i] = static_cast<std::int64_t>(i);
  std::mt19937_64 rng(ctx.options.seed);  // every interval restarts from the seed
  stats::BootstrapInterval ci = stats::cluster_bootstrap(cluster, total, rng, ctx.options.resamples, 0.95, true);
  return {estimate, interval_json(ci), ci.undefined};
}

struct Coincidences {
  std::vector<double> o;
  void add(const Coincidences& c) {
    for (std::size_t i = 0; i < o.size(); ++i) o[i] += c.o[i];
  }
};

// Every answer any of the raters scored, once: the table `where` and `by` are read on,
// and for each of its rows where each rater's row of that answer is.
struct AnswerUnion {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  ScoreTable table;
  std::vector<std::vector<std::size_t>> row_of;  ///< [answer][rater]: index into that rater's rows, or kNone
};

AnswerUnion answer_union(const std::string& path, const std::vector<std::string>& dims,
                         const std::vector<std::string>& raters, const std::vector<const std::vector<ScoreRow>*>& rows_of) {
  AnswerUnion u{ScoreTable{path, dims, {}, raters.empty() ? "" : raters[0], {}}, {}};
  std::unordered_map<std::string, std::size_t> answer_of;
  for (std::size_t r = 0; r < rows_of.size(); ++r)
    for (std::size_t i = 0; i < rows_of[r]->size(); ++i) {
      const ScoreRow& row = (*rows_of[r])[i];
      auto [it, added] = answer_of.emplace(answer_key(row), u.table.rows.size());
      if (added) {
        u.table.rows.push_back(row);
        u.row_of.emplace_back(rows_of.size(), AnswerUnion::kNone);
      }
      // A rater with two rows of one answer keeps its first, as the matching always has.
      if (u.row_of[it->second][r] == AnswerUnion::kNone) u.row_of[it->second][r] = i;
    }
  return u;
}

}  // namespace

nlohmann::ordered_json run_agreement(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  nlohmann::ordered_json j{{"name", a.name.name}, {"kind", "agreement"}};
  std::vector<std::string> raters;
  if (const auto* o = find_option(a.options, "raters"))
    for (const auto& v : o->values) {
      raters.push_back(rater_name(v.value));
      if (v.versus) raters.push_back(rater_name(*v.versus));
    }
  std::vector<const std::vector<ScoreRow>*> rows_of;
  for (const auto& r : raters) {
    const auto* rows = ctx.scores.rows_of(r);
    if (rows && !rows->empty()) {
      rows_of.push_back(rows);
      continue;
    }
    // Not yet scored (people score after the run): said, not an error of the run.
    const std::string why =
        !rows ? fmt::format("no scores of rater '{}' (a scores file holds several raters' scores in a 'rater' column, "
                            "as `mirac run` writes it)", r)
        : is_human_rater(r) ? fmt::format("no scores of rater '{}' yet (mirac annotate sample, then mirac annotate import)", r)
                            : fmt::format("no scores of rater '{}' yet", r);
    j["raters"] = raters;
    report_missing_scores(ctx, a, r, why, j);
    return j;
  }
  // The answers are every answer any rater scored, so that no statistic depends on the
  // order the raters are named in: an answer the first rater missed is still a unit of
  // alpha when two others scored it. `where` and `by` read the row of the first rater, in
  // the order named, who scored the answer.
  const AnswerUnion answers = answer_union(ctx.scores.path, ctx.scores.dims, raters, rows_of);
  Context actx{spec, answers.table, ctx.options, ctx.sources, ctx.diags};
  const std::vector<std::string> by = option_variables(find_option(a.options, "by"));
  const std::vector<Group> groups = group_rows(spec, answers.table, filter_rows(actx, a.options), by);

  const ast::RubricDecl* rubric = spec.scored_rubric();
  ScoreScale rubric_scale;
  if (rubric && rubric->scale) {
    const auto& range = std::get<ast::RangeLit>(rubric->scale->node);
    rubric_scale.lo = std::get<ast::NumberLit>(range.lo->node).value;
    rubric_scale.hi = std::get<ast::NumberLit>(range.hi->node).value;
  }
  j["raters"] = raters;
  j["by"] = by;
  j["scale"] = {rubric_scale.lo, rubric_scale.hi};

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::size_t small_designs = 0;  // groups on fewer seeds than the intervals are verified for
  Table table{"agreement_" + a.name.name,
              {"dimension", "group", "rater_a", "rater_b", "n", "na_pairs", "unmatched", "exact", "adjacent",
               "mean_signed_error", "qwk", "alpha"},
              {}};
  for (const auto& arg : a.args) {
    const std::string dim = name_of(arg);
    const int d = ctx.scores.dim_index(dim);
    if (d < 0) throw std::invalid_argument(fmt::format("no scores of dimension {}", dim));
    // Each dimension's own scale: its kappa weighs disagreements over its own points.
    const ScoreScale own = rubric ? dim_scale(*rubric, dim) : rubric_scale;
    const double lo = own.lo;
    const std::size_t k = static_cast<std::size_t>(own.hi - own.lo) + 1;
    for (const Group& g : groups) {
      // Each answer's value per rater (NaN: N/A or not scored by that rater), and its seed.
      std::vector<std::vector<double>> values;
      std::vector<int> seeds;
      std::vector<std::vector<bool>> present;
      for (std::size_t i : g.rows) {
        const ScoreRow& row = answers.table.rows[i];
        std::vector<double> v(raters.size(), std::nan(""));
        std::vector<bool> has(raters.size(), false);
        for (std::size_t r = 0; r < raters.size(); ++r)
          if (const std::size_t at = answers.row_of[i][r]; at != AnswerUnion::kNone) {
            v[r] = (*rows_of[r])[at].scores[static_cast<std::size_t>(d)];
            has[r] = true;
          }
        values.push_back(std::move(v));
        present.push_back(std::move(has));
        seeds.push_back(row.seed);
      }
      std::map<int, std::size_t> seed_slot;  // seed index -> position among this group's seeds
      for (int s : seeds) seed_slot.emplace(s, seed_slot.size());
      bool whole = true;  // every value a scale point (a mean panel's 3.5 is not)
      for (const auto& v : values)
        for (double x : v) whole = whole && (std::isnan(x) || (std::floor(x) == x && x >= lo && x <= own.hi));

      nlohmann::ordered_json entry{{"dimension", dim}};
      entry.update(group_json(by, g));
      // Below the verified number of seeds the intervals may cover less than they say.
      if (seed_slot.size() < stats::kSmallestVerifiedClusters) {
        entry["small_design"] = true;
        ++small_designs;
      }
      nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
      std::vector<std::string> alpha_cells;
      for (std::size_t ra = 0; ra < raters.size(); ++ra)
        for (std::size_t rb = ra + 1; rb < raters.size(); ++rb) {
          const PairSums zero{0, 0, 0, 0, std::vector<double>(whole ? k * k : 0, 0.0)};
          std::vector<PairSums> per_seed(seed_slot.size(), zero);
          std::size_t na_pairs = 0, unmatched = 0;
          for (std::size_t i = 0; i < values.size(); ++i) {
            if (!present[i][ra] && !present[i][rb]) continue;  // an answer only other raters scored
            if (!present[i][ra] || !present[i][rb]) {
              ++unmatched;
              continue;
            }
            const double x = values[i][ra], y = values[i][rb];
            if (std::isnan(x) || std::isnan(y)) {
              ++na_pairs;
              continue;
            }
            PairSums& s = per_seed[seed_slot[seeds[i]]];
            s.n += 1, s.exact += x == y, s.adjacent += std::fabs(x - y) <= 1, s.error += x - y;
            if (whole) s.confusion[static_cast<std::size_t>(x - lo) * k + static_cast<std::size_t>(y - lo)] += 1;
          }
          auto share = [](double part, double n) { return n > 0 ? part / n : std::nan(""); };
          const Estimate exact = with_interval<PairSums>(ctx, per_seed, [&](const PairSums& s) { return share(s.exact, s.n); }, zero);
          const Estimate adjacent =
              with_interval<PairSums>(ctx, per_seed, [&](const PairSums& s) { return share(s.adjacent, s.n); }, zero);
          const Estimate error = with_interval<PairSums>(ctx, per_seed, [&](const PairSums& s) { return share(s.error, s.n); }, zero);
          double n = 0;
          for (const auto& s : per_seed) n += s.n;
          nlohmann::ordered_json p{{"raters", {raters[ra], raters[rb]}},
                                   {"n", static_cast<std::size_t>(n)},
                                   {"na_pairs", na_pairs},
                                   {"unmatched", unmatched},
                                   {"exact", json_number(exact.value)},
                                   {"exact_ci", exact.ci},
                                   {"adjacent", json_number(adjacent.value)},
                                   {"adjacent_ci", adjacent.ci},
                                   {"mean_signed_error", json_number(error.value)},
                                   {"mean_signed_error_ci", error.ci}};
          double qwk = std::nan("");
          if (whole) {
            const Estimate kappa = with_interval<PairSums>(
                ctx, per_seed, [&](const PairSums& s) { return stats::quadratic_weighted_kappa(s.confusion, k); }, zero);
            qwk = kappa.value;
            p["qwk"] = json_number(kappa.value);
            p["qwk_ci"] = kappa.ci;
            if (kappa.undefined > 0) p["qwk_ci_undefined_resamples"] = kappa.undefined;
            if (std::isnan(kappa.value) && n > 0) p["qwk_note"] = "no variation in the scores: kappa is undefined";
          } else {
            p["qwk"] = nullptr;
            p["qwk_ci"] = nullptr;
            p["qwk_note"] = "scores between scale points (a mean or median panel): no kappa";
          }
          table.rows.push_back({dim, group_label(g), raters[ra], raters[rb], csv_number(n), std::to_string(na_pairs),
                                std::to_string(unmatched), csv_number(exact.value), csv_number(adjacent.value),
                                csv_number(error.value), csv_number(qwk), ""});
          pairs.push_back(std::move(p));
        }
      entry["pairs"] = std::move(pairs);

      // Krippendorff's ordinal alpha over every rater: an answer is a unit of the values given.
      std::vector<double> value_set;
      for (const auto& v : values)
        for (double x : v)
          if (!std::isnan(x)) value_set.push_back(x);
      std::sort(value_set.begin(), value_set.end());
      value_set.erase(std::unique(value_set.begin(), value_set.end()), value_set.end());
      const std::size_t kv = value_set.size();
      const Coincidences none{std::vector<double>(kv * kv, 0.0)};
      std::vector<Coincidences> per_seed(seed_slot.size(), none);
      std::size_t units = 0;
      for (std::size_t i = 0; i < values.size(); ++i) {
        std::vector<double> unit;
        for (double x : values[i])
          if (!std::isnan(x)) unit.push_back(x);
        if (unit.size() < 2) continue;
        ++units;
        stats::add_coincidences(unit, value_set, per_seed[seed_slot[seeds[i]]].o);
      }
      const Estimate alpha = with_interval<Coincidences>(
          ctx, per_seed,
          [&](const Coincidences& c) { return kv ? stats::krippendorff_alpha(c.o, value_set, stats::AlphaMetric::ordinal) : std::nan(""); },
          none);
      entry["alpha"] = json_number(alpha.value);
      entry["alpha_ci"] = alpha.ci;
      if (alpha.undefined > 0) entry["alpha_ci_undefined_resamples"] = alpha.undefined;
      entry["alpha_units"] = units;
      for (std::size_t t = table.rows.size() - raters.size() * (raters.size() - 1) / 2; t < table.rows.size(); ++t)
        table.rows[t].back() = csv_number(alpha.value);
      results.push_back(std::move(entry));
    }
  }
  j["results"] = std::move(results);
  out.tables.push_back(std::move(table));
  warn_small_designs(ctx, a, small_designs);
  return j;
}

}  // namespace mirac::analyze
