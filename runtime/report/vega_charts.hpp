// vega_charts.hpp: the kinds of figure the report shows, as Vega-Lite specs with their
// data inline (`data.values`), drawn in report.html by vega-embed: grouped bars (means or
// flag rates by group, one colour per series with a legend, value and n in the tooltip),
// dot-and-whisker intervals (estimates with their confidence intervals, a zero rule) and
// rank scatters (one point per group, its rank on two measures, the diagonal of perfect
// agreement). All fill the page's width ("width": "container"); bars and intervals grow in
// height with their rows, so a figure of 40 bars stays as readable as one of 4.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mirac::report {

struct Bar {
  std::optional<double> value;  ///< none: no bar, "—" in its place
  std::string value_text;       ///< shown at the bar's end ("2.30")
  std::string n_text;           ///< in the tooltip and the data ("570", "3/12"); may be empty
};

/// Bars grouped by category; one bar (and one colour) per series in each category. The
/// field names become the data's columns (figures/STEM.csv), so they name what they hold;
/// they must be plain identifiers (a "." would read as a nested field).
struct BarChart {
  std::string title;
  std::string category_field = "group", category_title;  ///< e.g. "group", "model / arm"
  std::string series_field = "series", series_title;     ///< e.g. "dimension", "model"
  std::string value_field = "value", value_title;        ///< e.g. "mean", "mean score"
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<Bar>> bars;  ///< [category][series]
  std::optional<double> value_max;     ///< end of the value axis (the rubric scale's top)
  bool whole_numbers = false;          ///< the values are counts: ticks at whole numbers only
};

struct IntervalRow {
  std::string label;
  std::optional<double> estimate;
  std::optional<double> lower, upper;  ///< none: the dot alone
  std::string value_text;              ///< "0.093 [-0.007, 0.177]"
};
/// Rows in labelled blocks (one per contrast or analysis), one colour per block.
struct IntervalBlock {
  std::string name;
  std::vector<IntervalRow> rows;
};
struct IntervalChart {
  std::string title;
  std::string x_title;
  std::string block_title = "contrast";  ///< what a block is, for the legend and the data
  std::vector<IntervalBlock> blocks;
};

/// One group of a rank scatter: its ranks (1 the lowest; ties share their mean rank) and
/// the values they rank.
struct RankPoint {
  std::string label;           ///< the group, named in the tooltip and beside the point
  double x_rank = 0, y_rank = 0;
  std::optional<double> x_value, y_value;
  std::string n_text;          ///< answers behind the x value, in the tooltip and the data
};
/// Rank-order alignment of two measures (the paper's Figure 4): x is one measure's rank,
/// y the other's; points on the diagonal rank the same on both. The field names become the
/// data's columns (figures/STEM.csv), plain identifiers as in BarChart.
struct RankScatter {
  std::string title;
  std::string x_field = "x_rank", x_title;              ///< the axes: what each rank is of
  std::string y_field = "y_rank", y_title;
  std::string x_value_field = "x_value", x_value_title;  ///< the ranked values, in the tooltip
  std::string y_value_field = "y_value", y_value_title;
  std::vector<RankPoint> points;
};

using VegaSpec = nlohmann::ordered_json;

VegaSpec bar_chart_spec(const BarChart& chart);
VegaSpec interval_chart_spec(const IntervalChart& chart);
VegaSpec rank_scatter_spec(const RankScatter& chart);

/// `x` rounded to 4 decimals, for the figures' data: enough for any axis and tooltip, and
/// the same text on every platform.
double round4(double x);

}  // namespace mirac::report
