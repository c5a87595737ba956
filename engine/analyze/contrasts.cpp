// contrasts.cpp: contrasts of cell means (the DTI, paper Sec. 4.5) with 95% intervals from
// a cluster bootstrap over seeds (a t interval from the bootstrap's SE, docs/statistics.md
// section 6). Seeds are the clusters because the answers to one seed's prompts are
// correlated; resampling rows would understate the interval.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "engine/analyze/parts.hpp"
#include "interpreter/eval/eval.hpp"
#include "runtime/stats/bootstrap.hpp"

namespace mirac::analyze {

namespace {

// One `D3[zh, low]` of the expression: the dimension and the (factor, level) it requires.
struct Term {
  int dim = -1;
  std::vector<std::pair<int, int>> levels;
  bool matches(const ScoreRow& r) const {
    for (auto [f, l] : levels)
      if (r.levels[f] != l) return false;
    return true;
  }
};

struct Compiled {
  std::vector<Term> terms;
  // Maps each CellSelect node to its term, by address (the expression outlives this).
  std::map<const ast::CellSelect*, std::size_t> term_of;
};

void compile(const Spec& spec, const ScoreTable& scores, const ast::Expr& e, Compiled& c) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::CellSelect>) {
          Term t;
          t.dim = scores.dim_index(name_of(*n.base));
          for (const auto& item : n.items) {
            int f = item.factor ? spec.factor_index(item.factor->name) : -1;
            for (std::size_t k = 0; f < 0 && k < spec.factors.size(); ++k)
              if (spec.factors[k].level_index(item.level.name) >= 0) f = static_cast<int>(k);
            t.levels.emplace_back(f, spec.factors[f].level_index(item.level.name));
          }
          c.term_of[&n] = c.terms.size();
          c.terms.push_back(std::move(t));
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          compile(spec, scores, *n.operand, c);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          compile(spec, scores, *n.lhs, c);
          compile(spec, scores, *n.rhs, c);
        } else if constexpr (!std::is_same_v<T, ast::NumberLit>) {
          throw EvalError(e.range, "a contrast is built from cell means like D3[zh, low], numbers and + - * /");
        }
      },
      e.node);
}

double value(const ast::Expr& e, const Compiled& c, const std::vector<double>& means) {
  if (const auto* n = std::get_if<ast::NumberLit>(&e.node)) return n->value;
  if (const auto* s = std::get_if<ast::CellSelect>(&e.node)) return means[c.term_of.at(s)];
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) return -value(*u->operand, c, means);
  const auto& b = std::get<ast::Binary>(e.node);
  double x = value(*b.lhs, c, means), y = value(*b.rhs, c, means);
  if (b.op == "+") return x + y;
  if (b.op == "-") return x - y;
  if (b.op == "*") return x * y;
  if (b.op == "/") return x / y;
  throw EvalError(e.range, fmt::format("operator '{}' cannot be used in a contrast", b.op));
}

// Per-seed sums and counts of every term, so a bootstrap replicate costs O(seeds x terms)
// rather than a pass over the rows.
struct SeedSums {
  std::vector<std::int64_t> seeds;             ///< seed index per cluster, increasing
  std::vector<std::vector<double>> sum;        ///< [cluster][term]
  std::vector<std::vector<std::size_t>> count;
};

SeedSums seed_sums(const ScoreTable& scores, const std::vector<std::size_t>& rows, const Compiled& c) {
  std::map<int, std::size_t> cluster;
  for (std::size_t i : rows) cluster.emplace(scores.rows[i].seed, 0);
  SeedSums s;
  for (auto& [seed, k] : cluster) {
    k = s.seeds.size();
    s.seeds.push_back(seed);
  }
  s.sum.assign(s.seeds.size(), std::vector<double>(c.terms.size(), 0.0));
  s.count.assign(s.seeds.size(), std::vector<std::size_t>(c.terms.size(), 0));
  for (std::size_t i : rows) {
    const ScoreRow& r = scores.rows[i];
    std::size_t k = cluster[r.seed];
    for (std::size_t t = 0; t < c.terms.size(); ++t) {
      const Term& term = c.terms[t];
      if (is_na(r.scores[term.dim]) || !term.matches(r)) continue;
      s.sum[k][t] += r.scores[term.dim];
      ++s.count[k][t];
    }
  }
  return s;
}

// Intervals over fewer seeds than the coverage test verifies, gathered so that the analysis
// warns once, at the first contrast concerned, rather than once per group.
struct SmallDesigns {
  std::size_t intervals = 0;
  std::size_t fewest = 0;
  std::optional<SourceRange> first;
  void note(SourceRange at, std::size_t seeds) {
    if (!first) first = at;
    fewest = intervals == 0 ? seeds : std::min(fewest, seeds);
    ++intervals;
  }
};

// The contrast on one set of rows: each term's mean over them.
double contrast_of(const ast::ContrastDecl& c, const Compiled& compiled, const SeedSums& sums) {
  std::vector<double> sum(compiled.terms.size(), 0.0), count(compiled.terms.size(), 0.0);
  for (std::size_t k = 0; k < sums.seeds.size(); ++k)
    for (std::size_t t = 0; t < sum.size(); ++t) {
      sum[t] += sums.sum[k][t];
      count[t] += static_cast<double>(sums.count[k][t]);
    }
  for (std::size_t t = 0; t < sum.size(); ++t) sum[t] = count[t] > 0 ? sum[t] / count[t] : std::nan("");
  return value(c.value, compiled, sum);
}

// The contrast's noise floor with several answers per prompt: the contrast on each answer
// alone (every prompt's k-th answer), and how far two such reruns of the whole audit land
// apart on average, |c_k - c_k'| over every two answers. No factor differs between reruns,
// so it is what rerunning alone moves the contrast by. NaN when a rerun lacks a cell.
double contrast_noise_floor(const Context& ctx, const ast::ContrastDecl& c, const Compiled& compiled,
                            const std::vector<std::size_t>& rows) {
  const std::size_t answers = static_cast<std::size_t>(ctx.spec.answers);
  std::vector<std::vector<std::size_t>> by_answer(answers);
  for (std::size_t i : rows)
    if (const int k = ctx.scores.rows[i].answer; k >= 0 && static_cast<std::size_t>(k) < answers) by_answer[k].push_back(i);
  std::vector<double> rerun;
  for (const auto& part : by_answer) rerun.push_back(contrast_of(c, compiled, seed_sums(ctx.scores, part, compiled)));
  double sum = 0;
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < rerun.size(); ++a)
    for (std::size_t b = a + 1; b < rerun.size(); ++b, ++pairs) sum += std::fabs(rerun[a] - rerun[b]);
  return pairs ? sum / static_cast<double>(pairs) : std::nan("");
}

}  // namespace

void add_contrasts(const Context& ctx, Output& out) {
  SmallDesigns small_design;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  Table table{"contrasts", {"contrast", "group", "estimate", "lower", "upper", "seeds", "resamples"}, {}};
  const bool reruns = ctx.spec.answers > 1;
  if (reruns) table.header.push_back("noise_floor");
  std::vector<std::size_t> all(ctx.scores.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (const auto& c : ctx.spec.contrasts) {
    Compiled compiled;
    try {
      compile(ctx.spec, ctx.scores, c.value, compiled);
    } catch (const EvalError& e) {
      ctx.diags.error(e.range, e.what());
      continue;
    }
    std::vector<std::string> by;
    for (const auto& id : c.by) by.push_back(id.name);
    std::vector<std::size_t> rows;
    if (!c.where) {
      rows = all;
    } else if (!rows_where(ctx, *c.where, rows)) {
      continue;  // reported at the condition
    }
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const Group& g : group_rows(ctx.spec, ctx.scores, rows, by)) {
      SeedSums sums = seed_sums(ctx.scores, g.rows, compiled);
      auto statistic = [&](std::span<const std::size_t> clusters) {
        std::vector<double> sum(compiled.terms.size(), 0.0), count(compiled.terms.size(), 0.0);
        for (std::size_t k : clusters)
          for (std::size_t t = 0; t < sum.size(); ++t) {
            sum[t] += sums.sum[k][t];
            count[t] += static_cast<double>(sums.count[k][t]);
          }
        for (std::size_t t = 0; t < sum.size(); ++t) sum[t] = count[t] > 0 ? sum[t] / count[t] : std::nan("");
        return value(c.value, compiled, sum);
      };
      nlohmann::ordered_json entry = group_json(by, g);
      std::vector<std::size_t> identity(sums.seeds.size());
      for (std::size_t k = 0; k < identity.size(); ++k) identity[k] = k;
      double estimate = statistic(identity);
      entry["estimate"] = json_number(estimate);
      entry["seeds"] = sums.seeds.size();
      std::string lower, upper;
      // Each interval draws from a stream of its own, derived from the run's seed and the
      // contrast and group: the intervals' Monte Carlo errors are independent, and an
      // interval does not depend on which other contrasts the spec declares.
      std::mt19937_64 rng(stats::stream_seed(ctx.options.seed, c.name.name + "/" + group_label(g)));
      try {
        if (std::isnan(estimate)) throw std::invalid_argument("a cell of the contrast has no scores");
        stats::BootstrapInterval ci = stats::cluster_bootstrap(sums.seeds, statistic, rng, ctx.options.resamples);
        const bool small = ci.clusters < stats::kSmallestVerifiedClusters;
        entry["ci"] = {{"lower", ci.lower},   {"upper", ci.upper},
                       {"level", ci.level},   {"resamples", ci.resamples},
                       {"method", stats::method_name(ci.method)}, {"small_design", small}};
        if (small) small_design.note(c.name.range, ci.clusters);
        lower = csv_number(ci.lower);
        upper = csv_number(ci.upper);
      } catch (const std::invalid_argument& e) {
        entry["ci"] = nullptr;
        entry["error"] = e.what();
      }
      table.rows.push_back({c.name.name, group_label(g), csv_number(estimate), lower, upper, std::to_string(sums.seeds.size()),
                            std::to_string(ctx.options.resamples)});
      if (reruns) {
        const double floor = contrast_noise_floor(ctx, c, compiled, g.rows);
        entry["noise_floor"] = {{"value", json_number(floor)}, {"answers", ctx.spec.answers}};
        table.rows.back().push_back(csv_number(floor));
      }
      groups.push_back(std::move(entry));
    }
    const std::string definition = c.definition.empty() ? source_text(ctx, c.value.range) : c.definition;
    nlohmann::ordered_json entry{{"name", c.name.name}, {"definition", definition}, {"by", by}};
    entry["where"] = c.where ? nlohmann::ordered_json(source_text(ctx, c.where->range)) : nlohmann::ordered_json(nullptr);
    entry["groups"] = std::move(groups);
    list.push_back(std::move(entry));
  }
  out.json["contrasts"] = std::move(list);
  out.tables.push_back(std::move(table));
  if (small_design.intervals > 0)
    ctx.diags.warning(*small_design.first,
                      fmt::format("{} contrast interval{} on fewer than {} seeds (the fewest: {}), a design smaller "
                                  "than any whose coverage is verified: such intervals may hold the true contrast "
                                  "less often than their level says (docs/statistics.md, section 6)",
                                  small_design.intervals, small_design.intervals == 1 ? " rests" : "s rest",
                                  stats::kSmallestVerifiedClusters, small_design.fewest));
}

}  // namespace mirac::analyze
