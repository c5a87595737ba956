// invariance.cpp: an `invariance` analysis (docs/judging.md, "Judge invariance";
// docs/statistics.md, section 7d). Each sampled answer at level a (or b) of the factor was
// translated into b (or a) and judged again as the answer to b's prompt. With the judge
// adding beta_l to text at level l and translation changing a score by -tau on average,
//
//   shift_a = mean(re-judged - judged | answers at a) = beta_b - beta_a - tau
//   shift_b = mean(re-judged - judged | answers at b) = beta_a - beta_b - tau
//
// so the judge's gap beta_a - beta_b = (shift_b - shift_a) / 2 and the translation's loss
// tau = -(shift_a + shift_b) / 2, whatever the answers' own quality. Each with a cluster
// bootstrap over seeds. A declared contrast that is a sum of cell means (every DTI) gets
// its judge's part: the gap times each cell's share of answers at a, through the contrast.
//
// A rubric check judges each sampled answer again with another rubric, as the answer to its
// own prompt. Its shifts are what the other rubric changes at each level; their difference
// shift_a - shift_b is the change of the a - b effect (0 for a judge whose level effect does
// not depend on the rubric's wording or language) and their mean the rubric's overall
// change. A contrast's change is each cell's shift at its levels, through the contrast.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/analyze/contrast_cells.hpp"
#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"
#include "interpreter/judge/invariance.hpp"
#include "runtime/stats/bootstrap.hpp"
#include "runtime/stats/nan.hpp"

namespace mirac::analyze {

namespace {

using stats::kNaN;

// One seed's differences (re-judged - judged) per dimension, at level a ([0]) and b ([1]).
struct Sums {
  std::vector<double> n[2], sum[2];
  explicit Sums(std::size_t dims = 0) {
    for (int s = 0; s < 2; ++s) n[s].assign(dims, 0), sum[s].assign(dims, 0);
  }
  void add(const Sums& o) {
    for (int s = 0; s < 2; ++s)
      for (std::size_t d = 0; d < n[s].size(); ++d) n[s][d] += o.n[s][d], sum[s][d] += o.sum[s][d];
  }
  double shift(int side, std::size_t d) const { return n[side][d] > 0 ? sum[side][d] / n[side][d] : kNaN; }
  double gap(std::size_t d) const { return (shift(1, d) - shift(0, d)) / 2; }
  double loss(std::size_t d) const { return 0.0 - (shift(0, d) + shift(1, d)) / 2; }  // never -0
  double effect_change(std::size_t d) const { return shift(0, d) - shift(1, d); }
  double mean_shift(std::size_t d) const { return (shift(0, d) + shift(1, d)) / 2; }
};

// Names of what a check reports, by its kind: [0] and [1] per dimension, [2] per contrast
// (the part of it, or its change) and [3] the contrast with it removed or under the rubric.
struct Figures {
  const char* names[4];
};
constexpr Figures kTranslationFigures{{"judge_gap", "translation_loss", "judge_part", "without_judge"}};
constexpr Figures kRubricFigures{{"effect_change", "mean_shift", "change", "under_rubric"}};
const Figures& figures_of(const InvarianceCheck& check) {
  return check.translates() ? kTranslationFigures : kRubricFigures;
}

// A statistic of the seeds' summed parts, with its cluster-bootstrap interval over seeds.
nlohmann::ordered_json interval(const Context& ctx, const std::string& key, const std::vector<Sums>& per_seed,
                                const std::function<double(const Sums&)>& statistic) {
  const std::size_t dims = per_seed.empty() ? 0 : per_seed.front().n[0].size();
  auto total = [&](std::span<const std::size_t> seeds) {
    Sums sum(dims);
    for (std::size_t i : seeds) sum.add(per_seed[i]);
    return statistic(sum);
  };
  std::vector<std::size_t> every(per_seed.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  const double estimate = total(every);
  nlohmann::ordered_json out{{"estimate", json_number(estimate)}, {"ci", nullptr}};
  if (!std::isfinite(estimate) || per_seed.size() < 2) return out;
  std::vector<std::int64_t> cluster(per_seed.size());
  for (std::size_t i = 0; i < cluster.size(); ++i) cluster[i] = static_cast<std::int64_t>(i);
  std::mt19937_64 rng(stats::stream_seed(ctx.options.seed, key));
  const stats::BootstrapInterval ci = stats::cluster_bootstrap(cluster, total, rng, ctx.options.resamples, 0.95, true);
  // A resample without answers at one level has no shift: too few seeds to say.
  if (static_cast<double>(ci.undefined) <= 0.05 * static_cast<double>(ci.resamples) && std::isfinite(ci.lower))
    out["ci"] = nlohmann::ordered_json::array({ci.lower, ci.upper});
  return out;
}

// What the analysis compares: its judge's rows and the translations' scores of the same answers.
struct Compared {
  const ScoreTable& judged;                   ///< the judge's rows (`where` and `by` read them)
  std::vector<const ScoreRow*> rejudged;      ///< per judged row: its translation's scores, or null
  std::vector<std::size_t> rows;              ///< judged rows with a translation, kept by `where`
};

// Per-seed sums over `rows` (judged rows with a translation) for the dimensions `dims`.
std::vector<Sums> seed_sums(const Compared& c, const InvarianceCheck& check, const std::vector<int>& dims,
                            const std::vector<std::size_t>& rows) {
  std::map<int, std::size_t> slot;
  for (std::size_t i : rows) slot.emplace(c.judged.rows[i].seed, 0);
  std::size_t k = 0;
  for (auto& [seed, s] : slot) s = k++;
  std::vector<Sums> out(slot.size(), Sums(dims.size()));
  const auto f = static_cast<std::size_t>(check.factor);
  for (std::size_t i : rows) {
    const ScoreRow& row = c.judged.rows[i];
    const int side = row.levels[f] == check.level_a ? 0 : 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const double before = row.scores[static_cast<std::size_t>(dims[d])];
      const double after = c.rejudged[i]->scores[static_cast<std::size_t>(dims[d])];
      if (is_na(before) || is_na(after)) continue;
      Sums& s = out[slot.at(row.seed)];
      s.n[side][d] += 1, s.sum[side][d] += after - before;
    }
  }
  return out;
}

// The contrast's judge's part in one group: the gap of each dimension times, per cell, its
// share of answers at level a, carried through the contrast; and its value as judged.
nlohmann::ordered_json contrast_part(const Context& ctx, const Compared& c, const InvarianceCheck& check,
                                     const ast::ContrastDecl& contrast, const ContrastCells& shape, const Group& cell_rows,
                                     const std::vector<std::size_t>& pairs, const std::string& key) {
  const auto f = static_cast<std::size_t>(check.factor);
  std::vector<double> means(shape.cells.size(), 0), share_a(shape.cells.size(), 0), zero(shape.cells.size(), 0);
  std::vector<int> dims;
  bool other_levels = false;
  for (std::size_t k = 0; k < shape.cells.size(); ++k) {
    const Cell& cell = shape.cells[k];
    double n = 0, sum = 0, at_a = 0;
    for (std::size_t i : cell_rows.rows) {
      const ScoreRow& row = c.judged.rows[i];
      const double s = row.scores[static_cast<std::size_t>(cell.dim)];
      if (is_na(s) || !at_levels(cell, row)) continue;
      n += 1, sum += s;
      at_a += row.levels[f] == check.level_a;
      other_levels = other_levels || (row.levels[f] != check.level_a && row.levels[f] != check.level_b);
    }
    means[k] = n > 0 ? sum / n : kNaN;
    share_a[k] = n > 0 ? at_a / n : 0;
    if (std::find(dims.begin(), dims.end(), cell.dim) == dims.end()) dims.push_back(cell.dim);
  }
  const double judged = contrast_value(contrast.value, shape, means);
  // The contrast's weight on each dimension's gap: its change when that dimension's cells
  // move by their share at a. Linear contrasts only: a doubled move must double it.
  // For a rubric check, likewise its weight on each dimension's shift at b.
  const double base = contrast_value(contrast.value, shape, zero);
  std::vector<double> weight(dims.size(), 0), weight_b(dims.size(), 0);
  bool linear = true;
  auto weight_of = [&](std::size_t d, const std::function<double(std::size_t)>& share) {
    std::vector<double> once = zero, twice = zero;
    for (std::size_t k = 0; k < shape.cells.size(); ++k)
      if (shape.cells[k].dim == dims[d]) once[k] = share(k), twice[k] = 2 * share(k);
    const double w = contrast_value(contrast.value, shape, once) - base;
    const double doubled = contrast_value(contrast.value, shape, twice) - base;
    linear = linear && std::isfinite(w) && std::abs(doubled - 2 * w) < 1e-9;
    return w;
  };
  for (std::size_t d = 0; d < dims.size(); ++d) {
    weight[d] = weight_of(d, [&](std::size_t k) { return share_a[k]; });
    if (!check.translates()) weight_b[d] = weight_of(d, [&](std::size_t k) { return 1 - share_a[k]; });
  }
  const Figures& names = figures_of(check);
  nlohmann::ordered_json out{{"judged", json_number(judged)}};
  if (!linear || other_levels) {
    out["note"] = !linear ? fmt::format("not a sum of cell means: {} is not defined for it",
                                        check.translates() ? "the judge's part" : "its change under the rubric")
                          : "its cells hold answers at levels the check does not compare";
    return out;
  }
  const std::vector<Sums> per_seed = seed_sums(c, check, dims, pairs);
  const nlohmann::ordered_json part = interval(ctx, key, per_seed, [&](const Sums& s) {
    double total = 0;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (check.translates()) {
        if (weight[d] != 0) total += weight[d] * s.gap(d);
      } else {
        if (weight[d] != 0) total += weight[d] * s.shift(0, d);
        if (weight_b[d] != 0) total += weight_b[d] * s.shift(1, d);
      }
    }
    return total;
  });
  out[names.names[2]] = part;
  const double estimate = part["estimate"].is_number() ? part["estimate"].get<double>() : kNaN;
  out[names.names[3]] = json_number(check.translates() ? judged - estimate : judged + estimate);
  return out;
}

}  // namespace

nlohmann::ordered_json run_invariance(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  const std::vector<InvarianceCheck> checks = invariance_checks(spec);
  auto found = std::find_if(checks.begin(), checks.end(), [&](const InvarianceCheck& c) { return c.name == a.name.name; });
  if (found == checks.end()) throw std::invalid_argument("its options do not resolve against the spec");
  const InvarianceCheck& check = *found;
  const Factor& factor = spec.factors[static_cast<std::size_t>(check.factor)];
  const std::string judge = spec.judges[static_cast<std::size_t>(check.judge)].name;
  const std::string level_a = factor.levels[static_cast<std::size_t>(check.level_a)].name.name;
  const std::string level_b = factor.levels[static_cast<std::size_t>(check.level_b)].name.name;
  const std::vector<std::string> by = option_variables(find_option(a.options, "by"));
  nlohmann::ordered_json j{{"name", a.name.name},
                           {"kind", "invariance"},
                           {"judge", judge},
                           {"factor", factor.name},
                           {"levels", {level_a, level_b}},
                           {"transformation", check.translates() ? "translate" : "rubric"},
                           {"sample", check.sample},
                           {"by", by}};
  if (check.translates()) j["translator"] = check.translator.provider + "/" + check.translator.model;
  else j["rubric"] = check.rubric;
  const Figures& names = figures_of(check);
  const auto* judged_rows = ctx.scores.rows_of(judge);
  const auto* rejudged_rows = ctx.scores.rows_of(a.name.name);
  if (!judged_rows || !rejudged_rows || rejudged_rows->empty()) {
    const std::string why = !judged_rows ? fmt::format("no scores of judge '{}'", judge)
                            : check.translates() ? "no translated answer has been judged again yet (mirac run translates "
                                                   "and judges the sample)"
                                                 : fmt::format("no answer has been judged again with rubric '{}' yet "
                                                               "(mirac run judges the sample)",
                                                               check.rubric);
    ctx.diags.warning(a.name.range, fmt::format("analysis {}: {}", a.name.name, why));
    j["error"] = why;
    return j;
  }
  // The judge's rows as a table: the analysed table itself when the judge is its rater (a
  // copy of 432,000 rows was a tenth of this analysis at ten times MIRA), else a copy.
  std::optional<ScoreTable> other_judge;
  if (judged_rows != &ctx.scores.rows) other_judge = ScoreTable{ctx.scores.path, ctx.scores.dims, *judged_rows, judge, {}};
  Compared c{other_judge ? *other_judge : ctx.scores, {}, {}};
  std::unordered_map<std::string, const ScoreRow*> translated;
  for (const ScoreRow& r : *rejudged_rows) translated.emplace(answer_key(r), &r);
  c.rejudged.assign(c.judged.rows.size(), nullptr);
  const Context judged_ctx{spec, c.judged, ctx.options, ctx.sources, ctx.diags};
  for (std::size_t i : filter_rows(judged_ctx, a.options)) {
    auto it = translated.find(answer_key(c.judged.rows[i]));
    if (it == translated.end()) continue;
    c.rejudged[i] = it->second;
    c.rows.push_back(i);
  }
  std::vector<int> dims;
  for (const auto& arg : a.args) {
    const int d = ctx.scores.dim_index(name_of(arg));
    if (d < 0) throw std::invalid_argument(fmt::format("no scores of dimension {}", name_of(arg)));
    dims.push_back(d);
  }

  Table table{"invariance_" + a.name.name,
              {"part", "name", "group", "n_" + level_a, "n_" + level_b, "shift_" + level_a, "shift_" + level_a + "_lower",
               "shift_" + level_a + "_upper", "shift_" + level_b, "shift_" + level_b + "_lower",
               "shift_" + level_b + "_upper", names.names[0], std::string(names.names[0]) + "_lower",
               std::string(names.names[0]) + "_upper", names.names[1], std::string(names.names[1]) + "_lower",
               std::string(names.names[1]) + "_upper", "judged", names.names[3]},
              {}};
  auto cells = [](const nlohmann::ordered_json& x) -> std::vector<std::string> {
    const double e = x["estimate"].is_number() ? x["estimate"].get<double>() : kNaN;
    const bool ci = x["ci"].is_array();
    return {csv_number(e), ci ? csv_number(x["ci"][0].get<double>()) : "", ci ? csv_number(x["ci"][1].get<double>()) : ""};
  };
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::size_t fewest_seeds = 0;
  bool small = false;
  for (const Group& g : group_rows(spec, c.judged, c.rows, by)) {
    const std::vector<Sums> per_seed = seed_sums(c, check, dims, g.rows);
    // Below the verified number of seeds an interval may cover less than it says.
    if (per_seed.size() < stats::kSmallestVerifiedClusters) {
      fewest_seeds = small ? std::min(fewest_seeds, per_seed.size()) : per_seed.size();
      small = true;
    }
    Sums total(dims.size());
    for (const Sums& s : per_seed) total.add(s);
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::string& dim = ctx.scores.dims[static_cast<std::size_t>(dims[d])];
      const std::string key = fmt::format("invariance/{}/{}/{}", a.name.name, dim, group_label(g));
      nlohmann::ordered_json entry = group_json(by, g);
      entry["dimension"] = dim;
      entry["seeds"] = per_seed.size();
      if (per_seed.size() < stats::kSmallestVerifiedClusters) entry["small_design"] = true;
      entry["n"] = {static_cast<std::size_t>(total.n[0][d]), static_cast<std::size_t>(total.n[1][d])};
      entry["shift"] = {{level_a, interval(ctx, key, per_seed, [d](const Sums& s) { return s.shift(0, d); })},
                        {level_b, interval(ctx, key, per_seed, [d](const Sums& s) { return s.shift(1, d); })}};
      if (check.translates()) {
        entry[names.names[0]] = interval(ctx, key, per_seed, [d](const Sums& s) { return s.gap(d); });
        entry[names.names[1]] = interval(ctx, key, per_seed, [d](const Sums& s) { return s.loss(d); });
      } else {
        entry[names.names[0]] = interval(ctx, key, per_seed, [d](const Sums& s) { return s.effect_change(d); });
        entry[names.names[1]] = interval(ctx, key, per_seed, [d](const Sums& s) { return s.mean_shift(d); });
      }
      std::vector<std::string> row = {"dimension", dim, group_label(g), csv_number(total.n[0][d]), csv_number(total.n[1][d])};
      for (const auto* part : {&entry["shift"][level_a], &entry["shift"][level_b], &entry[names.names[0]], &entry[names.names[1]]})
        for (auto& cell : cells(*part)) row.push_back(std::move(cell));
      row.insert(row.end(), {"", ""});
      table.rows.push_back(std::move(row));
      results.push_back(std::move(entry));
    }
  }
  j["results"] = std::move(results);
  if (small) {
    j["small_design"] = true;
    ctx.diags.warning(a.name.range, fmt::format("analysis {}: a group's sample covers only {} seeds; below {} its intervals "
                                                "may cover less than 95% (docs/statistics.md, section 6)",
                                                a.name.name, fewest_seeds, stats::kSmallestVerifiedClusters));
  }

  if (const ast::AnalysisOption* named = find_option(a.options, "contrasts")) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const ast::ContrastDecl* contrast : named_contrasts(spec, *named)) {
      ContrastCells shape;
      find_cells(spec, c.judged, contrast->value, shape);
      std::vector<std::size_t> rows(c.judged.rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
      if (contrast->where && !rows_where(judged_ctx, *contrast->where, rows)) continue;  // reported at the condition
      std::vector<std::string> contrast_by;
      for (const auto& id : contrast->by) contrast_by.push_back(id.name);
      // The gap (or shifts) of each group of the contrast, from the sampled answers in that group.
      std::vector<std::size_t> kept_pairs;
      std::set_intersection(rows.begin(), rows.end(), c.rows.begin(), c.rows.end(), std::back_inserter(kept_pairs));
      const std::vector<Group> pair_groups = group_rows(spec, c.judged, kept_pairs, contrast_by);
      nlohmann::ordered_json groups = nlohmann::ordered_json::array();
      for (const Group& g : group_rows(spec, c.judged, rows, contrast_by)) {
        auto pg = std::find_if(pair_groups.begin(), pair_groups.end(), [&](const Group& p) { return p.values == g.values; });
        const std::vector<std::size_t> none;
        nlohmann::ordered_json entry = group_json(contrast_by, g);
        entry.update(contrast_part(ctx, c, check, *contrast, shape, g, pg == pair_groups.end() ? none : pg->rows,
                                   fmt::format("invariance/{}/{}/{}", a.name.name, contrast->name.name, group_label(g))));
        std::vector<std::string> row = {"contrast", contrast->name.name, group_label(g), "", ""};
        row.resize(11, "");
        if (entry.contains(names.names[2]))
          for (auto& cell : cells(entry[names.names[2]])) row.push_back(std::move(cell));
        row.resize(17, "");
        row.push_back(entry["judged"].is_number() ? csv_number(entry["judged"].get<double>()) : "");
        row.push_back(entry.contains(names.names[3]) && entry[names.names[3]].is_number()
                          ? csv_number(entry[names.names[3]].get<double>())
                          : "");
        table.rows.push_back(std::move(row));
        groups.push_back(std::move(entry));
      }
      list.push_back({{"name", contrast->name.name},
                      {"definition", contrast->definition.empty() ? source_text(ctx, contrast->value.range) : contrast->definition},
                      {"by", contrast_by},
                      {"groups", std::move(groups)}});
    }
    j["contrasts"] = std::move(list);
  }
  out.tables.push_back(std::move(table));
  return j;
}

}  // namespace mirac::analyze
