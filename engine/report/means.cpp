// means.cpp: `table means(D1, D3) { by model, arm }` and `figure bars(D3) { by model }`:
// mean scores with their n, merged from results.json's means by model x arm x cell.
#include <algorithm>

#include <fmt/format.h>

#include "interpreter/scores/scores.hpp"
#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"

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

std::string joined(const std::vector<std::string>& values) {
  return values.empty() ? "all" : fmt::format("{}", fmt::join(values, " / "));
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// One dimension grouped by model and something else (`by cell, model`): a colour per
// model and a group of bars per cell, so that models compare within each cell. Otherwise
// a colour per dimension and a group per model x arm (or whatever `by` says).
BarChart bar_chart(const ModelArmGrouping& g, const std::vector<std::string>& dims) {
  BarChart chart;
  chart.value_field = "mean", chart.value_title = "mean score";
  const auto model_at = std::find(g.by.begin(), g.by.end(), "model");
  if (dims.size() == 1 && g.by.size() > 1 && model_at != g.by.end()) {
    const auto m = static_cast<std::size_t>(model_at - g.by.begin());
    std::vector<std::string> rest = g.by;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(m));
    chart.category_field = "group", chart.category_title = join_by(rest);
    chart.series_field = "model", chart.series_title = "model";
    std::vector<std::pair<std::string, std::string>> keys;  // (category, model) per group
    for (const auto& group : g.groups) {
      std::vector<std::string> others = group.labels;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(m));
      keys.emplace_back(joined(others), group.labels[m]);
      add_unique(chart.categories, keys.back().first);
      add_unique(chart.series, keys.back().second);
    }
    chart.bars.assign(chart.categories.size(), std::vector<Bar>(chart.series.size()));
    for (std::size_t i = 0; i < g.groups.size(); ++i) {
      const auto c = std::find(chart.categories.begin(), chart.categories.end(), keys[i].first) - chart.categories.begin();
      const auto s = std::find(chart.series.begin(), chart.series.end(), keys[i].second) - chart.series.begin();
      Mean mean = merge(g.groups[i], dims.front());
      chart.bars[static_cast<std::size_t>(c)][static_cast<std::size_t>(s)] =
          {mean.mean, fixed(mean.mean, 2), mean.mean ? count(mean.n) : ""};
    }
    return chart;
  }
  chart.category_field = "group", chart.category_title = g.by.empty() ? "" : join_by(g.by);
  chart.series_field = "dimension", chart.series_title = "dimension";
  chart.series = dims;
  for (const auto& group : g.groups) {
    chart.categories.push_back(joined(group.labels));
    std::vector<Bar> bars;
    for (const auto& d : dims) {
      Mean m = merge(group, d);
      bars.push_back({m.mean, fixed(m.mean, 2), m.mean ? count(m.n) : ""});
    }
    chart.bars.push_back(std::move(bars));
  }
  return chart;
}

// The answers a group's means average, for mirac view: the `where` and the group's values
// (a cell its factors' levels, read from the first entry: every entry of the group is in
// that cell). nullopt when the view's filters cannot say it.
std::optional<AnswerQuery> group_answers(const Spec& spec, const std::optional<AnswerQuery>& where,
                                         const ModelArmGrouping& g, const ModelArmGroup& group) {
  if (!where || group.entries.empty()) return std::nullopt;
  AnswerQuery q = *where;
  for (std::size_t i = 0; i < g.by.size() && i < group.values.size(); ++i) {
    if (g.by[i] != "cell") {
      if (!add_group_param(spec, q, g.by[i], group.values[i])) return std::nullopt;
      continue;
    }
    const Json* cell = member(group.entries.front(), "cell");
    for (int f : cell_factors(spec)) {
      const std::string& factor = spec.factors[static_cast<std::size_t>(f)].name;
      if (!add_group_param(spec, q, factor, text(member(cell, factor)))) return std::nullopt;
    }
  }
  return q;
}

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
    const std::optional<AnswerQuery> where = where_query(ctx.spec, item.where);
    for (const auto& group : g.groups) {
      std::vector<std::string> row = group.labels;
      // A mean's n counts the answers scored on its dimension (N/A ones aside), so the
      // link asks for those: the view then lists exactly n answers.
      std::vector<std::string> answers(group.values.size());
      const std::optional<AnswerQuery> base = group_answers(ctx.spec, where, g, group);
      for (const auto& d : dims) {
        Mean m = merge(group, d);
        row.push_back(m.mean ? mean_with_n(m.mean, m.n) : kMissing);
        AnswerQuery q = base.value_or(AnswerQuery{});
        answers.push_back(base && m.mean && add_param(q, "scored_on", d) ? query_string(q) : "");
      }
      t.rows.push_back(std::move(row));
      t.answers.push_back(std::move(answers));
    }
    out.push_back(std::move(t));
    return;
  }

  BarChart chart = bar_chart(g, dims);
  chart.title = !item.title.empty() ? item.title
                                    : fmt::format("Mean {} {}{}", fmt::join(dims, ", "), by_text, where_suffix(item));
  chart.value_max = scale_top(ctx.spec, dims);
  out.push_back(Figure{chart.title, fmt::format("bars-{}", fmt::join(dims, "-")), "", bar_chart_spec(chart)});
}

}  // namespace mirac::report
