// vega_charts.hpp: the two kinds of figure the report shows, as Vega-Lite specs with their
// data inline (`data.values`), drawn in report.html by vega-embed: grouped bars (means or
// flag rates by group, one colour per series with a legend, value and n in the tooltip)
// and dot-and-whisker intervals (estimates with their confidence intervals, a zero rule).
// Both fill the page's width ("width": "container") and grow in height with their rows,
// so a figure of 40 bars stays as readable as one of 4.
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

using VegaSpec = nlohmann::ordered_json;

VegaSpec bar_chart_spec(const BarChart& chart);
VegaSpec interval_chart_spec(const IntervalChart& chart);

/// `x` rounded to 4 decimals, for the figures' data: enough for any axis and tooltip, and
/// the same text on every platform.
double round4(double x);

}  // namespace mirac::report
