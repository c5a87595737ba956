// seeds.cpp: `figure seeds(category)` and `table seeds(category)`: how many of the analysed
// seeds have each value of a seed field, and their share, most first (the paper's Figure 6,
// seeds by medical category). From results.json `seeds`, which counts the seeds the
// scored answers cover; values of the spec's seed table without any are noted.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"

namespace mirac::report {

namespace {

// An empty value is a seed without the field, which a bar label would show as nothing.
std::string value_label(const Json& entry) {
  const std::string v = text(member(&entry, "value"));
  return v.empty() ? "(none)" : v;
}

void field_blocks(const Item& item, const std::string& field, const Json& list, std::optional<double> total,
                  std::vector<Block>& out) {
  // Most seeds first, as the paper's figure (results.json lists them so; sorting again keeps
  // a hand-made results.json right too), equal counts in results.json's order.
  std::vector<const Json*> values;
  for (const auto& v : list) values.push_back(&v);
  std::stable_sort(values.begin(), values.end(), [](const Json* a, const Json* b) {
    return number(member(a, "seeds")).value_or(0) > number(member(b, "seeds")).value_or(0);
  });
  const std::string caption =
      !item.title.empty() ? item.title
                          : fmt::format("Seeds by {}: {} analysed seeds over {} values", field, count(total), values.size());
  std::vector<std::string> unanswered;
  bool partial = false;  // some value has seeds in the spec that no analysed answer covers
  for (const Json* v : values) {
    const std::optional<double> seeds = number(member(v, "seeds")), declared = number(member(v, "declared"));
    if (declared && seeds && *declared > *seeds) partial = true;
    if (seeds && *seeds == 0) unanswered.push_back(value_label(*v));
  }
  if (!unanswered.empty())
    out.push_back(Note{fmt::format("Seeds by {}: no analysed answer covers the seeds of {}; they are counted as 0.", field,
                                   fmt::join(unanswered, ", "))});
  if (item.kind == "figure") {
    BarChart chart;
    chart.title = caption;
    // The field names the data's column of values (figures/STEM.csv), unless it would
    // collide with one of the chart's own columns.
    const bool own_column = field == "counted" || field == "seeds" || field == "label" || field == "n";
    chart.category_field = own_column ? "value" : field, chart.category_title = field;
    chart.series_field = "counted", chart.series_title = "counted", chart.series = {"seeds"};
    chart.value_field = "seeds", chart.value_title = "seeds";
    chart.whole_numbers = true;
    for (const Json* v : values) {
      const std::optional<double> seeds = number(member(v, "seeds"));
      chart.categories.push_back(value_label(*v));
      chart.bars.push_back({Bar{seeds, fmt::format("{} ({})", count(seeds), percent(number(member(v, "share")))),
                                fmt::format("{} of {}", count(seeds), count(total))}});
    }
    out.push_back(Figure{caption, "seeds-" + field, "", bar_chart_spec(chart)});
    return;
  }
  Table t;
  t.caption = caption;
  t.header = {field, "seeds", "share"};
  if (partial) t.header.push_back("in the seed table");
  t.numeric = {false, true, true, true};
  t.numeric.resize(t.header.size());
  for (const Json* v : values) {
    std::vector<std::string> row = {value_label(*v), count(number(member(v, "seeds"))),
                                    percent(number(member(v, "share")))};
    if (partial) row.push_back(count(number(member(v, "declared"))));
    t.rows.push_back(std::move(row));
  }
  out.push_back(std::move(t));
}

}  // namespace

void seeds_item(const Context& ctx, const Item& item, std::vector<Block>& out) {
  const Json* seeds = member(&ctx.results, "seeds");
  const Json* fields = member(seeds, "fields");
  if (!fields) {
    out.push_back(Note{"results.json has no seed counts (analyze again with this mirac)."});
    return;
  }
  for (const auto& field : item.args) {
    const Json* values = member(fields, field);
    if (!values || !values->is_array()) {
      out.push_back(Note{fmt::format("results.json has no seed counts by {}: only categories are counted, fields with "
                                     "one value per seed that no variant rewrites, at most 30 values of at most 60 "
                                     "characters (not questions or notes).",
                                     field)});
      continue;
    }
    field_blocks(item, field, *values, number(member(seeds, "count")), out);
  }
}

}  // namespace mirac::report
