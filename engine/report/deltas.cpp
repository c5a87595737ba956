// deltas.cpp: `table deltas(rq4)` and `figure deltas(rq4)`: what a paired analysis found,
// as the paper shows mitigation: the mean difference treatment - control by group (model)
// and dimension (Table 18), the same with 95% t intervals (Figure 5), and how many pairs
// went up, down or stayed (Appendix G).
#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"

namespace mirac::report {

namespace {

std::string share(const Json* summary, const char* key) {
  const std::optional<double> k = number(member(summary, key)), n = number(member(summary, "n"));
  return fmt::format("{} ({})", count(k), percent(k && n && *n > 0 ? std::optional<double>(*k / *n) : std::nullopt));
}

// The dimensions in the order of the first group that has them.
std::vector<std::string> dimensions_of(const Json* groups) {
  std::vector<std::string> dims;
  if (groups && groups->is_array())
    for (const auto& g : *groups)
      if (const Json* d = member(&g, "dimensions"); d && d->is_object()) {
        for (const auto& [dim, s] : d->items()) dims.push_back(dim);
        break;
      }
  return dims;
}

void comparison_blocks(const Context& ctx, const Item& item, const std::string& name, const Json* by, const Json& cmp,
                       std::vector<Block>& out) {
  const std::string compare = text(member(&cmp, "compare"));
  const Json* groups = member(&cmp, "groups");
  const std::vector<std::string> dims = dimensions_of(groups);
  if (dims.empty()) {
    out.push_back(Note{fmt::format("Analysis {}, {}: no group has matched pairs.", name, compare)});
    return;
  }
  if (item.kind == "figure") {
    IntervalChart chart;
    chart.title = !item.title.empty() ? item.title : fmt::format("Analysis {}: mean difference {} (95% t interval)", name, compare);
    chart.x_title = "mean difference, treatment - control (95% CI)";
    chart.block_title = "dimension";
    for (const auto& dim : dims) {
      IntervalBlock block{dim, {}};
      for (const auto& g : *groups) {
        const Json* s = member(member(&g, "dimensions"), dim);
        if (!s || member(s, "error")) continue;
        const std::optional<double> est = number(member(s, "mean_delta")), lo = number(member(s, "delta_lower")),
                                    hi = number(member(s, "delta_upper"));
        block.rows.push_back({group_values_label(g, by), est, lo, hi, fmt::format("{} {}", signed_estimate(est), interval(lo, hi))});
      }
      chart.blocks.push_back(std::move(block));
    }
    out.push_back(Figure{chart.title, "deltas-" + name, "", interval_chart_spec(chart)});
    return;
  }
  Table t;
  t.caption = !item.title.empty() ? item.title : fmt::format("Analysis {}: mean difference {}", name, compare);
  const std::string group_header = by && by->is_array() && by->size() == 1 ? text(&by->front()) : "group";
  t.header = {group_header};
  for (const auto& dim : dims) t.header.push_back("Δ" + dim);
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  Table changes;
  changes.caption = fmt::format("Analysis {}: matched pairs that went up, down or stayed, {}", name, compare);
  changes.header = {group_header, "dimension", "pairs", "increased", "decreased", "unchanged"};
  changes.numeric = {false, false, true, true, true, true};
  for (const auto& g : *groups) {
    const std::string label = group_values_label(g, by);
    std::vector<std::string> row = {label};
    for (const auto& dim : dims) {
      const Json* s = member(member(&g, "dimensions"), dim);
      if (!s || member(s, "error")) {
        row.push_back(kMissing);
        continue;
      }
      row.push_back(signed_estimate(number(member(s, "mean_delta"))) + significance_marks(number(member(s, "q"))));
      changes.rows.push_back({label, dim, count(number(member(s, "n"))), share(s, "increased"), share(s, "decreased"),
                              share(s, "unchanged")});
    }
    t.rows.push_back(std::move(row));
  }
  out.push_back(std::move(t));
  out.push_back(Paragraph{fmt::format("Treatment minus control on matched answers ({}); {} from the Wilcoxon "
                                      "signed-rank q-values (BH over the comparison's groups and dimensions).",
                                      worst_is_low(ctx.spec) ? "positive is better" : "negative is better",
                                      kSignificanceLegend)});
  out.push_back(std::move(changes));
  // The analysis's `patterns` (Appendix G: D3 worse and Q3 worse, D3 worse but Q3 better).
  Table patterns;
  patterns.caption = fmt::format("Analysis {}: answer-pair patterns, {}", name, compare);
  patterns.header = {group_header, "pattern", "pairs", "share"};
  patterns.numeric = {false, false, true, true};
  for (const auto& g : *groups)
    if (const Json* p = member(&g, "patterns"); p && p->is_array())
      for (const auto& pattern : *p)
        patterns.rows.push_back({group_values_label(g, by), text(member(&pattern, "pattern")),
                                 fmt::format("{} of {}", count(number(member(&pattern, "count"))),
                                             count(number(member(&pattern, "pairs")))),
                                 percent(number(member(&pattern, "rate")))});
  if (!patterns.rows.empty()) out.push_back(std::move(patterns));
}

}  // namespace

void deltas_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  for (const auto& name : item.args) {
    const Json* a = named_entry(ctx.results, "analyses", name);
    if (!a) {
      out.push_back(Note{fmt::format("Analysis {} is not in results.json (it was not computed).", name)});
      continue;
    }
    if (text(member(a, "kind")) != "paired") {
      out.push_back(Note{fmt::format("Analysis {} is a {} analysis; deltas are a paired analysis's.", name, text(member(a, "kind")))});
      continue;
    }
    if (const Json* error = member(a, "error")) {
      out.push_back(Note{fmt::format("Analysis {} could not be computed: {}", name, text(error))});
      continue;
    }
    if (const Json* comparisons = member(a, "comparisons"); comparisons && comparisons->is_array())
      for (const auto& cmp : *comparisons) comparison_blocks(ctx, item, name, member(a, "by"), cmp, out);
  }
}

}  // namespace mirac::report
