// analyses.cpp: `table analysis(rq1, rq2)`: each analysis as the table(s) of its kind
// (lmm coefficients, clmm coefficients and thresholds in clmm.cpp, Wilcoxon tests, paired comparisons and patterns, Spearman
// correlations, in spearman.cpp). `figure analysis(...)` draws an lmm's coefficients with
// their Wald intervals and a Spearman analysis's ranks; other kinds have no
// figure and are shown as their tables.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"

namespace mirac::report {

namespace {

// 97.5% quantile of the standard normal: the Wald interval drawn for lmm coefficients.
constexpr double kZ975 = 1.959963984540054;

// The analysis's `where` as the spec writes it: results.json does not repeat it, and a
// reader needs it to know which answers the numbers are about.
std::string spec_where(const Spec& spec, const std::string& name) {
  for (const auto& a : spec.analyses)
    if (a.name.name == name)
      for (const auto& o : a.options)
        if (o.key.name == "where" && !o.values.empty()) return " where " + expr_text(o.values.front().value);
  return "";
}

// "condition: A vs B" with the levels' labels: "condition: authoritative (A) vs baseline (B)".
std::string compare_label(const Spec& spec, const std::string& compare) {
  const auto colon = compare.find(": "), vs = compare.find(" vs ");
  if (colon == std::string::npos || vs == std::string::npos || vs < colon) return compare;
  const std::string factor = compare.substr(0, colon);
  return fmt::format("{}: {} vs {}", factor, level_label(spec, factor, compare.substr(colon + 2, vs - colon - 2)),
                     level_label(spec, factor, compare.substr(vs + 4)));
}

std::string values_label(const Spec& spec, const Json* obj) {
  if (!obj || !obj->is_object() || obj->empty()) return "all";
  std::vector<std::string> values;
  for (const auto& [k, v] : obj->items()) values.push_back(level_label(spec, k, text(&v)));
  return fmt::format("{}", fmt::join(values, " / "));
}

void lmm(const Context& ctx, const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  const Json* fixed_list = member(&a, "fixed");
  std::string caption = !item.title.empty() ? item.title
                                            : fmt::format("Analysis {}: linear mixed model {}{} (n = {})", name,
                                                          text(member(&a, "formula")), spec_where(ctx.spec, name),
                                                          count_of(&a, "n"));
  const Json* cv = member(&a, "convergence");
  if (cv && text(member(cv, "status")) != "converged")
    out.push_back(Note{fmt::format("Analysis {}: the fit ended with status '{}': {}", name, text(member(cv, "status")),
                                   text(member(cv, "message")))});
  if (item.kind == "figure") {
    IntervalChart chart;
    chart.title = caption;
    chart.x_title = "estimate (95% Wald CI)";
    chart.block_title = "analysis";
    IntervalBlock block{name, {}};
    if (fixed_list && fixed_list->is_array())
      for (const auto& f : *fixed_list) {
        // The intercept is on another scale (the response's level), and would squeeze
        // the differences the figure is about into a corner.
        if (text(member(&f, "term")) == "(Intercept)") continue;
        std::optional<double> est = number(member(&f, "estimate")), se = number(member(&f, "se"));
        std::optional<double> lo, hi;
        if (est && se) lo = *est - kZ975 * *se, hi = *est + kZ975 * *se;
        block.rows.push_back({text(member(&f, "term")), est, lo, hi,
                              fmt::format("{} {}", estimate(est), interval(lo, hi))});
      }
    chart.blocks.push_back(std::move(block));
    out.push_back(Figure{caption, "analysis-" + name, "", interval_chart_spec(chart)});
    return;
  }
  if (const Json* refs = member(&a, "reference"); refs && refs->is_object() && !refs->empty()) {
    std::vector<std::string> parts;
    for (const auto& [factor, level] : refs->items())
      parts.push_back(fmt::format("{} = {}", factor, level_label(ctx.spec, factor, text(&level))));
    out.push_back(Paragraph{fmt::format("Reference levels of {}: {}. Each coefficient is a difference from them.", name,
                                        fmt::join(parts, ", "))});
  }
  Table t;
  t.caption = caption;
  t.header = {"term", "estimate", "SE", "z", "p (normal)", "df", "p (Satterthwaite)"};
  t.numeric = {false, true, true, true, true, true, true};
  if (fixed_list && fixed_list->is_array())
    for (const auto& f : *fixed_list)
      t.rows.push_back({term_label(ctx.spec, text(member(&f, "term"))), estimate(number(member(&f, "estimate"))),
                        estimate(number(member(&f, "se"))),
                        fixed(number(member(&f, "z")), 2), p_value(number(member(&f, "p_normal"))),
                        fixed(number(member(&f, "df")), 1), p_value(number(member(&f, "p_satterthwaite")))});
  out.push_back(std::move(t));
  std::vector<std::string> parts;
  if (const Json* random = member(&a, "random"); random && random->is_array())
    for (const auto& r : *random)
      parts.push_back(fmt::format("random intercept of {} ({} groups): variance {}", text(member(&r, "group")),
                                  count_of(&r, "groups"), estimate(number(member(&r, "variance")))));
  parts.push_back(fmt::format("residual variance {}", estimate(number(member(&a, "residual_variance")))));
  parts.push_back(fmt::format("REML criterion {}", fixed(number(member(&a, "reml_criterion")), 2)));
  if (cv) parts.push_back(fmt::format("convergence: {}", text(member(cv, "status"))));
  std::string line = fmt::format("{}", fmt::join(parts, "; "));
  line[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(line[0])));
  out.push_back(Paragraph{line + "."});
}

// The columns a paired summary (wilcoxon test or paired dimension) fills.
std::vector<std::string> summary_cells(const Json& s, bool with_dz) {
  const Json* w = member(&s, "wilcoxon");
  std::vector<std::string> cells = {count_of(&s, "n"), fixed(number(member(&s, "mean_treatment")), 2),
                                    fixed(number(member(&s, "mean_control")), 2), estimate(number(member(&s, "mean_delta")))};
  if (with_dz) cells.push_back(estimate(number(member(&s, "cohen_dz"))));
  cells.push_back(fmt::format("{} / {} / {}", count_of(&s, "increased"), count_of(&s, "decreased"), count_of(&s, "unchanged")));
  cells.push_back(p_value(number(member(w, "p"))));
  cells.push_back(p_value(number(member(&s, "q"))));
  return cells;
}

std::vector<std::string> summary_header(bool with_dz) {
  std::vector<std::string> h = {"n", "mean treatment", "mean control", "mean delta"};
  if (with_dz) h.push_back("d_z");
  h.insert(h.end(), {"up / down / same", "p", "q"});
  return h;
}

// The paper's Table 5: per `within` group and dimension, one row per level of the compared
// factor in the factor's order, the control level marked as the base, the others with
// their difference from it, q and d.
void wilcoxon(const Spec& spec, const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  const bool with_dz = text(member(&a, "effect")) != "none";
  struct Test {
    const Json* json;
    std::string factor, treatment, control;
  };
  // Tests grouped by (within, dimension, factor, control), in results.json's order.
  std::vector<std::pair<std::string, std::vector<Test>>> families;
  double duplicates = 0;
  if (const Json* tests = member(&a, "tests"); tests && tests->is_array())
    for (const auto& test : *tests) {
      const std::string compare = text(member(&test, "compare"));
      const auto colon = compare.find(": "), vs = compare.find(" vs ");
      if (colon == std::string::npos || vs == std::string::npos || vs < colon) continue;
      Test t{&test, compare.substr(0, colon), compare.substr(colon + 2, vs - colon - 2), compare.substr(vs + 4)};
      const Json* within = member(&test, "within");
      const std::string key = fmt::format("{}|{}|{}|{}", within ? within->dump() : "", text(member(&test, "dimension")),
                                          t.factor, t.control);
      auto it = std::find_if(families.begin(), families.end(), [&](const auto& f) { return f.first == key; });
      if (it == families.end()) it = families.insert(families.end(), {key, {}});
      it->second.push_back(t);
      duplicates += number(member(&test, "duplicate_keys")).value_or(0);
      if (member(&test, "error"))
        out.push_back(Note{fmt::format("Analysis {}, {} ({}, {}): {}.", name, compare_label(spec, compare),
                                       values_label(spec, within), text(member(&test, "dimension")),
                                       text(member(&test, "error")))});
    }
  Table t;
  t.caption = !item.title.empty() ? item.title
                                  : fmt::format("Analysis {}: Wilcoxon signed-rank tests on matched answers, q = p adjusted "
                                                "({}) over {} tests",
                                                name, text(member(&a, "adjust")), count_of(&a, "family_size"));
  std::string within_header = "within";
  if (!families.empty())
    if (const Json* w = member(families.front().second.front().json, "within"); w && w->is_object() && !w->empty()) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : w->items()) keys.push_back(k);
      within_header = fmt::format("{}", fmt::join(keys, " / "));
    }
  t.header = {within_header, "level", "dimension", "n", "mean", "Δ vs base", "p", "q"};
  if (with_dz) t.header.push_back("d_z");
  t.numeric = {false, false, false, true, true, true, true, true};
  t.numeric.resize(t.header.size(), true);
  bool base_differs = false;
  for (const auto& [key, tests] : families) {
    const Test& first = tests.front();
    const std::string within = values_label(spec, member(first.json, "within"));
    const std::string dim = text(member(first.json, "dimension"));
    // Levels in the factor's declared order; the control among them as the base.
    std::vector<std::string> levels;
    if (int f = spec.factor_index(first.factor); f >= 0) {
      for (const auto& l : spec.factors[f].levels) levels.push_back(l.name.name);
    } else {  // a comparison of arms or models: the base, then the others as compared
      levels.push_back(first.control);
      for (const auto& test : tests)
        if (std::find(levels.begin(), levels.end(), test.treatment) == levels.end()) levels.push_back(test.treatment);
    }
    auto test_of = [&](const std::string& level) -> const Test* {
      for (const auto& test : tests)
        if (test.treatment == level) return &test;
      return nullptr;
    };
    for (const auto& level : levels) {
      const std::string label = fmt::format("{} = {}", first.factor, level_label(spec, first.factor, level));
      if (level == first.control) {
        const std::optional<double> base = number(member(first.json, "mean_control"));
        for (const auto& test : tests) {
          const std::optional<double> other = number(member(test.json, "mean_control"));
          if (base && other && std::fabs(*base - *other) > 1e-12) base_differs = true;
        }
        std::vector<std::string> row = {within, label, dim, count_of(first.json, "n"), fixed(base, 3), "base", "–", "–"};
        if (with_dz) row.push_back("–");
        t.rows.push_back(std::move(row));
        continue;
      }
      const Test* test = test_of(level);
      if (!test) continue;
      const Json& j = *test->json;
      const bool failed = member(&j, "error") != nullptr;
      const std::string delta_text = signed_estimate(number(member(&j, "mean_delta")));
      std::vector<std::string> row = {within, label, dim, count_of(&j, "n"), fixed(number(member(&j, "mean_treatment")), 3),
                                      failed ? kMissing : delta_text, p_value(number(member(member(&j, "wilcoxon"), "p"))),
                                      p_value(number(member(&j, "q")))};
      if (with_dz) row.push_back(estimate(number(member(&j, "cohen_dz"))));
      t.rows.push_back(std::move(row));
    }
  }
  if (duplicates > 0)
    out.push_back(Note{fmt::format("Analysis {}: pairing keys with more than one answer on a side were left out "
                                   "(see duplicate_keys in results.json).",
                                   name)});
  if (base_differs)
    out.push_back(Note{fmt::format("Analysis {}: the comparisons matched different answers of the base level (N/A "
                                   "scores differ); its row shows the first comparison's mean.",
                                   name)});
  out.push_back(std::move(t));
  out.push_back(Paragraph{fmt::format("Means over the matched answers; Δ: mean difference from the base level on the "
                                      "same prompts; p: Wilcoxon signed-rank{}.",
                                      with_dz ? "; d_z: Cohen's d of the paired differences" : "")});
}

void paired(const Item& item, const Json& a, std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  const Json* by = member(&a, "by");
  const Json* comparisons = member(&a, "comparisons");
  if (!comparisons || !comparisons->is_array()) return;
  for (const auto& cmp : *comparisons) {
    const std::string compare = text(member(&cmp, "compare"));
    Table t;
    t.caption = !item.title.empty() ? item.title
                                    : fmt::format("Analysis {}: paired comparison {}, q = p adjusted (bh) per comparison",
                                                  name, compare);
    t.header = {"group", "dimension"};
    std::vector<std::string> h = summary_header(true);
    t.header.insert(t.header.end(), h.begin(), h.end());
    t.numeric.assign(2, false);
    t.numeric.resize(t.header.size(), true);
    Table patterns;
    patterns.caption = fmt::format("Analysis {}: answer-pair patterns, {}", name, compare);
    patterns.header = {"group", "pattern", "count", "pairs", "rate"};
    patterns.numeric = {false, false, true, true, true};
    const Json* groups = member(&cmp, "groups");
    if (!groups || !groups->is_array()) continue;
    for (const auto& g : *groups) {
      const std::string label = group_values_label(g, by);
      if (const Json* dims = member(&g, "dimensions"); dims && dims->is_object())
        for (const auto& [dim, s] : dims->items()) {
          std::vector<std::string> row = {label, dim};
          std::vector<std::string> cells = summary_cells(s, true);
          if (member(&s, "error")) {
            cells.assign(cells.size(), kMissing);
            cells[0] = count_of(&g, "pairs");
            out.push_back(Note{fmt::format("Analysis {}, {} ({}, {}): {}.", name, compare, label, dim, text(member(&s, "error")))});
          }
          row.insert(row.end(), cells.begin(), cells.end());
          t.rows.push_back(std::move(row));
        }
      if (const Json* p = member(&g, "patterns"); p && p->is_array())
        for (const auto& pattern : *p)
          patterns.rows.push_back({label, text(member(&pattern, "pattern")), count_of(&pattern, "count"),
                                   count_of(&pattern, "pairs"), percent(number(member(&pattern, "rate")))});
    }
    out.push_back(std::move(t));
    if (!patterns.rows.empty()) out.push_back(std::move(patterns));
  }
}

}  // namespace

void analyses_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  const Json* list = member(&ctx.results, "analyses");
  for (const auto& name : item.args) {
    const Json* a = list && list->is_array() ? named_entry(ctx.results, "analyses", name) : nullptr;
    if (!a) {
      out.push_back(Note{fmt::format("Analysis {} is not in results.json (it was not computed).", name)});
      continue;
    }
    const std::string kind = text(member(a, "kind"));
    // What is empty for want of people's scores or of external data says how to supply them.
    if (missing_people_scores(item, *a, out) || missing_external_data(ctx, item, *a, out)) continue;
    if (const Json* error = member(a, "error")) {
      const bool skipped = member(a, "skipped") != nullptr;
      out.push_back(Note{fmt::format("Analysis {} ({}) {}: {}", name, kind,
                                     skipped ? "was skipped on this subset of the plan" : "could not be computed",
                                     text(error))});
      continue;
    }
    if (item.kind == "figure" && kind != "lmm" && kind != "spearman")
      out.push_back(Note{fmt::format("A {} analysis has no figure; analysis {} is shown as a table.", kind, name)});
    if (kind == "lmm") lmm(ctx, item, *a, out);
    else if (kind == "clmm") clmm_analysis(ctx, item, *a, spec_where(ctx.spec, name), out);
    else if (kind == "wilcoxon") wilcoxon(ctx.spec, item, *a, out);
    else if (kind == "paired") paired(item, *a, out);
    else if (kind == "spearman") spearman_analysis(ctx, item, *a, out);
    else if (kind == "agreement") agreement_table(item, *a, out);
    else if (kind == "criteria") criteria_table(item, *a, out);
    else if (kind == "corrected") corrected_table(ctx, item, *a, out);
    else if (kind == "invariance") invariance_table(ctx, item, *a, out);
    else out.push_back(Note{fmt::format("Analysis {} has a kind the report does not know ('{}').", name, kind)});
  }
}

}  // namespace mirac::report
