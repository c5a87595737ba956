// charts.hpp: the two kinds of figure the report draws, as SVG documents: grouped bar
// charts (means or flag rates by group, each bar labelled with its value and n) and
// dot-and-whisker charts (estimates with their confidence intervals and a zero line).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mirac::report {

struct Bar {
  std::optional<double> value;  ///< none: no bar, "—" in its place
  std::string value_text;       ///< printed above the bar ("2.30")
  std::string n_text;           ///< printed above the value ("n=570"); may be empty
};

/// Bars grouped by category; one bar (and one colour) per series in each category.
struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;
  std::vector<std::string> series;
  std::vector<std::vector<Bar>> bars;  ///< [category][series]
  std::optional<double> y_max;         ///< top of the axis (the rubric scale's top); none: from the data
};

struct IntervalRow {
  std::string label;
  std::optional<double> estimate;
  std::optional<double> lower, upper;  ///< none: the dot alone
  std::string value_text;              ///< printed right of the plot ("0.093 [-0.007, 0.177]")
};
/// Rows in labelled blocks (one per contrast or analysis).
struct IntervalBlock {
  std::string name;
  std::vector<IntervalRow> rows;
};
struct IntervalChart {
  std::string title;
  std::string x_label;
  std::vector<IntervalBlock> blocks;
};

std::string bar_chart_svg(const BarChart& chart);
std::string interval_chart_svg(const IntervalChart& chart);

/// Round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

}  // namespace mirac::report
