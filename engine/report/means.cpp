// means.cpp: `table means(D1, D3) { by model, arm }` and `figure bars(D3) { by model }`:
// mean scores with their n, merged from results.json's means by model x arm x cell.
#include <fmt/format.h>

#include "interpreter/scores.hpp"
#include "runtime/report/charts.hpp"
#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

struct Mean {
  std::optional<double> mean;
  double n = 0;
};

// The mean over several model x arm entries is the n-weighted mean of their means, which
// is the mean over their scores: results.json keeps every n.
Mean merge(const ModelArmGroup& g, const std::string& dim) {
  double sum = 0, n = 0;
  for (const Json* e : g.entries) {
    const Json* d = member(member(e, "dimensions"), dim);
    std::optional<double> mean = number(member(d, "mean")), count = number(member(d, "n"));
    if (mean && count && *count > 0) sum += *mean * *count, n += *count;
  }
  return {n > 0 ? std::optional<double>(sum / n) : std::nullopt, n};
}

std::string label(const ModelArmGroup& g) { return g.values.empty() ? "all" : fmt::format("{}", fmt::join(g.values, " / ")); }

}  // namespace

void means_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  std::vector<std::string> dims = item.args;
  if (dims.empty()) dims = analyze::score_dimensions(ctx.spec);
  // Means by cell merge exactly into any coarser grouping; results written before
  // cell_means existed still have the by-model-and-arm list.
  const Json* cells = member(&ctx.results, "cell_means");
  const bool by_cell = cells && cells->is_array();
  const Json* list = by_cell ? cells : member(&ctx.results, "means");
  if (!list || !list->is_array()) {
    out.push_back(Note{fmt::format("Mean scores ({}) are not in results.json.", fmt::join(dims, ", "))});
    return;
  }
  ModelArmGrouping g = group_by_model_arm(ctx, item, list, {"model", "arm"}, by_cell);
  for (const auto& n : g.notes) out.push_back(Note{n});
  if (g.failed) return;
  // A dimension results.json does not have (the scores came from another rubric) is named
  // once rather than shown as a column of dashes without explanation.
  for (const auto& d : dims) {
    bool present = false;
    for (const auto& e : *list) present = present || member(member(&e, "dimensions"), d);
    if (!present) out.push_back(Note{fmt::format("Dimension {} is not in results.json's means.", d)});
  }
  if (g.groups.empty()) {
    out.push_back(Note{fmt::format("No scored answers{}.", where_suffix(item))});
    return;
  }
  const std::string by_text = g.by.empty() ? "over all answers" : "by " + join_by(g.by);

  if (item.kind == "table") {
    Table t;
    t.caption = !item.title.empty() ? item.title : fmt::format("Mean score (n) {}{}", by_text, where_suffix(item));
    t.header = g.by;
    t.numeric.assign(g.by.size(), false);
    for (const auto& d : dims) t.header.push_back(d), t.numeric.push_back(true);
    for (const auto& group : g.groups) {
      std::vector<std::string> row = group.values;
      for (const auto& d : dims) {
        Mean m = merge(group, d);
        row.push_back(m.mean ? mean_with_n(m.mean, m.n) : kMissing);
      }
      t.rows.push_back(std::move(row));
    }
    out.push_back(std::move(t));
    return;
  }

  BarChart chart;
  chart.title = !item.title.empty() ? item.title
                                    : fmt::format("Mean {} {}{}", fmt::join(dims, ", "), by_text, where_suffix(item));
  chart.y_label = "mean score";
  chart.series = dims;
  chart.y_max = scale_top(ctx.spec);
  for (const auto& group : g.groups) {
    chart.categories.push_back(label(group));
    std::vector<Bar> bars;
    for (const auto& d : dims) {
      Mean m = merge(group, d);
      bars.push_back({m.mean, fixed(m.mean, 2), m.mean ? fmt::format("n={}", count(m.n)) : ""});
    }
    chart.bars.push_back(std::move(bars));
  }
  out.push_back(Figure{chart.title, fmt::format("bars-{}", fmt::join(dims, "-")), "", bar_chart_svg(chart)});
}

}  // namespace mirac::report
