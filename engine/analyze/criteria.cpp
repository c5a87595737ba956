// criteria.cpp: `criteria() { rater elements  compare hls: low vs high  by model }`: which of a
// seed's checklist elements an answer meets, element by element (per-criterion grading).
// Without `compare`, the share of answers meeting each element. With it, answers matched on
// everything but the compared factor: per element the shares at both levels, the pairs
// where the element is dropped (met at the control level, not at the treatment) or gained,
// and the exact McNemar test of dropped against gained, BH-adjusted over the elements;
// overall, the difference in the share met with a cluster-bootstrap interval over seeds.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <fmt/format.h>

#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"
#include "interpreter/judge/criteria.hpp"
#include "runtime/stats/bootstrap.hpp"
#include "runtime/stats/mcnemar.hpp"
#include "runtime/stats/multiple_testing.hpp"

namespace mirac::analyze {

namespace {

const ast::RubricDecl* rubric_of(const Spec& spec, const std::string& rater) {
  if (int j = spec.judge_index(rater); j >= 0) return spec.find_rubric(spec.judges[static_cast<std::size_t>(j)].rubric);
  if (const Panel* p = spec.find_panel(rater)) return spec.find_rubric(p->rubric);
  return nullptr;
}

// Tallies of one element (or of all of them) over answers or pairs.
struct CriterionTally {
  std::size_t n = 0, met_treatment = 0, met_control = 0, dropped = 0, gained = 0;
  void add(const CriterionTally& o) {
    n += o.n, met_treatment += o.met_treatment, met_control += o.met_control, dropped += o.dropped, gained += o.gained;
  }
};

double share(std::size_t met, std::size_t n) {
  return n ? static_cast<double>(met) / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

// The overall statistic's interval over seeds, from per-seed tallies, as `result[key]`
// ([lower, upper], or null), with the interval's method and whether its design is smaller
// than any whose coverage is verified beside it. True when it is.
bool seed_interval(const Context& ctx, const std::vector<CriterionTally>& per_seed,
                   const std::function<double(const CriterionTally&)>& statistic, nlohmann::ordered_json& result,
                   const std::string& key) {
  result[key] = nullptr;
  if (per_seed.size() < 2) return false;
  std::vector<std::int64_t> cluster(per_seed.size());
  for (std::size_t i = 0; i < cluster.size(); ++i) cluster[i] = static_cast<std::int64_t>(i);
  std::mt19937_64 rng(ctx.options.seed);
  stats::BootstrapInterval ci = stats::cluster_bootstrap(
      cluster,
      [&](std::span<const std::size_t> rows) {
        CriterionTally sum;
        for (std::size_t i : rows) sum.add(per_seed[i]);
        return statistic(sum);
      },
      rng, ctx.options.resamples, 0.95, true);
  if (std::isnan(ci.lower) || std::isnan(ci.upper)) return false;
  const bool small = ci.clusters < stats::kSmallestVerifiedClusters;
  result[key] = nlohmann::ordered_json::array({ci.lower, ci.upper});
  result["ci_method"] = stats::method_name(ci.method);
  result["small_design"] = small;
  return small;
}

struct ElementKey {
  int seed;
  std::size_t element;
  bool operator<(const ElementKey& o) const { return std::tie(seed, element) < std::tie(o.seed, o.element); }
};

}  // namespace

nlohmann::ordered_json run_criteria(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  nlohmann::ordered_json j{{"name", a.name.name}, {"kind", "criteria"}};
  std::string rater = ctx.scores.rater;
  if (const auto* o = find_option(a.options, "rater"); o && !o->values.empty()) rater = rater_name(o->values[0].value);
  j["rater"] = rater;
  const ast::RubricDecl* rubric = rubric_of(spec, rater);
  const std::vector<ScoreRow>* rater_rows = ctx.scores.rows_of(rater);
  if (!rater_rows || rater_rows->empty() || !rubric || !rubric->criteria) {
    const std::string why = !rubric || !rubric->criteria ? fmt::format("rater '{}' grades no criteria", rater)
                            : !rater_rows ? fmt::format("no criteria of rater '{}' (a scores file holds scores only; "
                                                        "run the analysis on the run store)", rater)
                                          : fmt::format("nothing graded by rater '{}' yet", rater);
    ctx.diags.warning(a.name.range, fmt::format("analysis {}: {}", a.name.name, why));
    j["error"] = why;
    return j;
  }
  j["criteria"] = "checklist." + criteria_field(*rubric->criteria);
  ScoreTable anchor{ctx.scores.path, ctx.scores.dims, *rater_rows, rater, {}};
  Context actx{spec, anchor, ctx.options, ctx.sources, ctx.diags};
  const std::vector<std::string> by = option_variables(find_option(a.options, "by"));
  j["by"] = by;
  const std::vector<Group> groups = group_rows(spec, anchor, filter_rows(actx, a.options), by);
  std::vector<Comparison> comparisons = comparisons_of(find_option(a.options, "compare"));
  const bool compared = !comparisons.empty();
  if (!compared) comparisons.push_back({});  // one pass over the answers themselves

  std::map<int, std::vector<std::string>> texts;  // seed -> its criteria
  auto text_of = [&](const ElementKey& k) -> std::string {
    auto it = texts.find(k.seed);
    if (it == texts.end()) it = texts.emplace(k.seed, criteria_of(spec, *rubric, spec.seeds[k.seed].id)).first;
    return k.element < it->second.size() ? it->second[k.element] : "";
  };

  Table table{"criteria_" + a.name.name, {}, {}};
  table.header = {"compare", "group", "seed", "element", "criterion", compared ? "pairs" : "answers"};
  for (const char* h : compared ? std::vector<const char*>{"share_treatment", "share_control", "difference", "dropped",
                                                            "gained", "p", "q"}
                                : std::vector<const char*>{"share_met"})
    table.header.push_back(h);

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::size_t small_designs = 0;  // intervals over fewer seeds than their coverage is verified at
  for (const Comparison& cmp : comparisons) {
    for (const Group& g : groups) {
      std::map<ElementKey, CriterionTally> elements;
      std::map<int, CriterionTally> per_seed;
      auto add = [&](const ScoreRow& t, const ScoreRow* c) {
        const std::size_t n = c ? std::min(t.criteria.size(), c->criteria.size()) : t.criteria.size();
        for (std::size_t e = 0; e < n; ++e) {
          CriterionTally one;
          one.n = 1;
          one.met_treatment = t.criteria[e];
          if (c) {
            one.met_control = c->criteria[e];
            one.dropped = one.met_control && !one.met_treatment;
            one.gained = one.met_treatment && !one.met_control;
          }
          elements[{t.seed, e}].add(one);
          per_seed[t.seed].add(one);
        }
      };
      std::size_t units = 0;
      if (compared) {
        const Matched m = match_pairs(spec, anchor, g.rows, cmp.variable, cmp.treatment, cmp.control,
                                      default_keys(spec, cmp.variable));
        for (auto [t, c] : m.pairs) add(anchor.rows[t], &anchor.rows[c]);
        units = m.pairs.size();
      } else {
        for (std::size_t i : g.rows) add(anchor.rows[i], nullptr);
        units = g.rows.size();
      }
      std::vector<std::pair<ElementKey, CriterionTally>> list(elements.begin(), elements.end());
      std::vector<double> p;
      for (const auto& [k, t] : list) p.push_back(stats::mcnemar_exact(t.dropped, t.gained));
      std::vector<double> q(p.size(), std::numeric_limits<double>::quiet_NaN());
      if (compared) {
        std::vector<double> defined;
        for (double x : p)
          if (!std::isnan(x)) defined.push_back(x);
        const std::vector<double> adjusted = stats::benjamini_hochberg(defined);
        for (std::size_t i = 0, d = 0; i < p.size(); ++i)
          if (!std::isnan(p[i])) q[i] = adjusted[d++];
      }
      // Most dropped (or least met) first.
      std::vector<std::size_t> order(list.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      auto key = [&](std::size_t i) {
        const CriterionTally& t = list[i].second;
        return compared ? share(t.met_treatment, t.n) - share(t.met_control, t.n) : share(t.met_treatment, t.n);
      };
      std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) < key(y); });

      CriterionTally total;
      std::vector<CriterionTally> seeds;
      for (const auto& [s, t] : per_seed) total.add(t), seeds.push_back(t);
      nlohmann::ordered_json r = group_json(by, g);
      if (compared) {
        r["compare"] = cmp.label();
        r["treatment"] = cmp.treatment;
        r["control"] = cmp.control;
        r["pairs"] = units;
        r["share_treatment"] = json_number(share(total.met_treatment, total.n));
        r["share_control"] = json_number(share(total.met_control, total.n));
        r["difference"] = json_number(share(total.met_treatment, total.n) - share(total.met_control, total.n));
        small_designs += seed_interval(
            ctx, seeds, [](const CriterionTally& t) { return share(t.met_treatment, t.n) - share(t.met_control, t.n); }, r,
            "difference_ci");
        r["dropped"] = total.dropped;
        r["gained"] = total.gained;
      } else {
        r["answers"] = units;
        r["share_met"] = json_number(share(total.met_treatment, total.n));
        small_designs +=
            seed_interval(ctx, seeds, [](const CriterionTally& t) { return share(t.met_treatment, t.n); }, r, "share_met_ci");
      }
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (std::size_t i : order) {
        const auto& [k, t] = list[i];
        nlohmann::ordered_json e{{"seed", spec.seeds[k.seed].id}, {"element", k.element + 1}, {"criterion", text_of(k)}};
        std::vector<std::string> row = {compared ? cmp.label() : "", group_label(g), spec.seeds[k.seed].id,
                                        std::to_string(k.element + 1), text_of(k), std::to_string(t.n)};
        if (compared) {
          e["pairs"] = t.n;
          e["share_treatment"] = json_number(share(t.met_treatment, t.n));
          e["share_control"] = json_number(share(t.met_control, t.n));
          e["difference"] = json_number(key(i));
          e["dropped"] = t.dropped;
          e["gained"] = t.gained;
          e["p"] = json_number(p[i]);
          e["q"] = json_number(q[i]);
          for (double x : {share(t.met_treatment, t.n), share(t.met_control, t.n), key(i)}) row.push_back(csv_number(x));
          row.push_back(std::to_string(t.dropped));
          row.push_back(std::to_string(t.gained));
          row.push_back(csv_number(p[i]));
          row.push_back(csv_number(q[i]));
        } else {
          e["answers"] = t.n;
          e["share_met"] = json_number(key(i));
          row.push_back(csv_number(key(i)));
        }
        items.push_back(std::move(e));
        table.rows.push_back(std::move(row));
      }
      r["elements"] = std::move(items);
      results.push_back(std::move(r));
    }
  }
  j["results"] = std::move(results);
  out.tables.push_back(std::move(table));
  warn_small_designs(ctx, a, small_designs);
  return j;
}

}  // namespace mirac::analyze
