#include "runtime/report/vega_charts.hpp"

#include <algorithm>
#include <cmath>

namespace mirac::report {

namespace {

// Okabe-Ito: distinguishable with the common colour-vision deficiencies and in greyscale.
const std::vector<std::string> kPalette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                           "#56B4E9", "#D55E00", "#F0E442", "#000000"};

// Pixels per bar (and per interval row): room for a 10-px label beside each.
constexpr int kBarStep = 16, kGroupGap = 10, kRowStep = 22;

VegaSpec number_or_null(std::optional<double> x) {
  return x && std::isfinite(*x) ? VegaSpec(round4(*x)) : VegaSpec(nullptr);
}

// What every figure shares: its title, the data, the page's width, and a plain look.
VegaSpec frame(const std::string& title, VegaSpec values, int height) {
  return {{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
          {"title", {{"text", title}, {"anchor", "start"}, {"fontSize", 13}}},
          {"width", "container"},
          {"height", height},
          // fit-x: the width is the container's, the plot's height is the one given.
          {"autosize", {{"type", "fit-x"}, {"contains", "padding"}}},
          {"data", {{"values", std::move(values)}}},
          {"config", {{"axis", {{"labelFontSize", 11}, {"titleFontSize", 11}, {"labelLimit", 260}}},
                      {"legend", {{"labelFontSize", 11}, {"titleFontSize", 11}, {"labelLimit", 260}}},
                      {"view", {{"stroke", nullptr}}}}}};
}

VegaSpec colour_scale(const std::vector<std::string>& domain) {
  VegaSpec range = VegaSpec::array();
  for (std::size_t i = 0; i < domain.size(); ++i) range.push_back(kPalette[i % kPalette.size()]);
  return {{"domain", domain}, {"range", range}};
}

}  // namespace

double round4(double x) {
  double r = std::round(x * 1e4) / 1e4;
  return r == 0.0 ? 0.0 : r;  // never "-0"
}

VegaSpec bar_chart_spec(const BarChart& c) {
  VegaSpec values = VegaSpec::array();
  for (std::size_t g = 0; g < c.categories.size(); ++g)
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      const Bar b = g < c.bars.size() && s < c.bars[g].size() ? c.bars[g][s] : Bar{};
      values.push_back({{c.category_field, c.categories[g]},
                        {c.series_field, c.series[s]},
                        {c.value_field, number_or_null(b.value)},
                        {"label", b.value ? b.value_text : "—"},
                        {"n", b.n_text}});
    }
  // Categories down the side, bars across: labels of any length stay horizontal and the
  // figure grows downwards with the number of bars instead of shrinking sideways.
  const int per_group = static_cast<int>(std::max<std::size_t>(1, c.series.size())) * kBarStep + kGroupGap;
  const int height = std::max(60, static_cast<int>(c.categories.size()) * per_group);
  VegaSpec spec = frame(c.title, std::move(values), height);

  double top = 0;
  for (const auto& row : c.bars)
    for (const auto& b : row)
      if (b.value && std::isfinite(*b.value)) top = std::max(top, *b.value);
  VegaSpec x = {{"field", c.value_field}, {"type", "quantitative"}, {"title", c.value_title}};
  if (c.value_max) x["scale"] = {{"domain", {0, std::max(*c.value_max, top)}}};
  if (c.whole_numbers) x["axis"] = {{"tickMinStep", 1}, {"format", "d"}};
  const bool legend = c.series.size() > 1;
  VegaSpec colour = {{"field", c.series_field}, {"type", "nominal"}, {"scale", colour_scale(c.series)},
                     {"legend", legend ? VegaSpec{{"orient", "top"}, {"title", c.series_title}, {"columns", 6}}
                                       : VegaSpec(nullptr)}};
  spec["encoding"] = {
      {"y", {{"field", c.category_field}, {"type", "nominal"}, {"sort", c.categories}, {"title", c.category_title},
             {"scale", {{"paddingInner", 0.25}}}}},
      {"yOffset", {{"field", c.series_field}, {"type", "nominal"}, {"sort", c.series}}},
      {"tooltip", {{{"field", c.category_field}, {"title", c.category_title}},
                   {{"field", c.series_field}, {"title", c.series_title}},
                   {{"field", "label"}, {"title", c.value_title}},
                   {{"field", "n"}, {"title", "n"}}}}};
  // The colour on the bars only: the values beside them stay dark, readable on white.
  spec["layer"] = {{{"mark", {{"type", "bar"}}}, {"encoding", {{"x", x}, {"color", colour}}}},
                   {{"mark", {{"type", "text"}, {"align", "left"}, {"dx", 3}, {"fontSize", 10}, {"color", "#222"}}},
                    {"encoding", {{"x", {{"field", c.value_field}, {"type", "quantitative"}}}, {"text", {{"field", "label"}}}}}}};
  return spec;
}

VegaSpec interval_chart_spec(const IntervalChart& c) {
  VegaSpec values = VegaSpec::array();
  std::vector<std::string> rows, blocks;
  const bool several = c.blocks.size() > 1;
  for (const auto& b : c.blocks) {
    blocks.push_back(b.name);
    for (const auto& r : b.rows) {
      // Row labels repeat across blocks ("mini" in each contrast), and equal labels would
      // share one line of the plot.
      std::string row = several ? b.name + ": " + r.label : r.label;
      rows.push_back(row);
      values.push_back({{"row", row},
                        {c.block_title, b.name},
                        {"group", r.label},
                        {"estimate", number_or_null(r.estimate)},
                        {"lower", number_or_null(r.lower)},
                        {"upper", number_or_null(r.upper)},
                        {"label", r.value_text}});
    }
  }
  const int height = std::max(40, static_cast<int>(rows.size()) * kRowStep);
  VegaSpec spec = frame(c.title, std::move(values), height);
  VegaSpec y = {{"field", "row"}, {"type", "nominal"}, {"sort", rows}, {"title", nullptr}};
  VegaSpec colour = {{"field", c.block_title}, {"type", "nominal"}, {"scale", colour_scale(blocks)},
                     {"legend", several ? VegaSpec{{"orient", "top"}, {"title", c.block_title}} : VegaSpec(nullptr)}};
  VegaSpec tooltip = {{{"field", c.block_title}}, {{"field", "group"}}, {{"field", "label"}, {"title", c.x_title}}};
  spec["layer"] = {
      // The zero line: its own one-row data, so it is one rule across the whole plot.
      {{"data", {{"values", {{{"zero", 0}}}}}},
       {"mark", {{"type", "rule"}, {"color", "#444"}, {"strokeDash", {4, 3}}}},
       {"encoding", {{"x", {{"field", "zero"}, {"type", "quantitative"}}}}}},
      {{"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
       {"encoding", {{"y", y}, {"x", {{"field", "lower"}, {"type", "quantitative"}, {"title", c.x_title}}},
                     {"x2", {{"field", "upper"}}}, {"color", colour}, {"tooltip", tooltip}}}},
      {{"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"opacity", 1}}},
       {"encoding", {{"y", y}, {"x", {{"field", "estimate"}, {"type", "quantitative"}}}, {"color", colour},
                     {"tooltip", tooltip}}}}};
  return spec;
}

VegaSpec rank_scatter_spec(const RankScatter& c) {
  VegaSpec values = VegaSpec::array();
  for (const auto& p : c.points)
    values.push_back({{"group", p.label},
                      {c.x_field, round4(p.x_rank)},
                      {c.y_field, round4(p.y_rank)},
                      {c.x_value_field, number_or_null(p.x_value)},
                      {c.y_value_field, number_or_null(p.y_value)},
                      {"n", p.n_text}});
  // Ranks run from 1 to n: the same axis on both sides, half a rank of room at each end,
  // so that the diagonal is the line of equal ranks.
  const double top = std::max<double>(2, static_cast<double>(c.points.size())) + 0.5;
  VegaSpec domain = {0.5, top};
  VegaSpec spec = frame(c.title, std::move(values), 320);
  auto axis = [&](const std::string& field, const std::string& title) {
    return VegaSpec{{"field", field}, {"type", "quantitative"}, {"title", title},
                    {"scale", {{"domain", domain}, {"nice", false}, {"zero", false}}},
                    {"axis", {{"tickMinStep", 1}, {"format", "d"}}}};
  };
  VegaSpec tooltip = {{{"field", "group"}},
                      {{"field", c.x_field}, {"title", c.x_title}},
                      {{"field", c.y_field}, {"title", c.y_title}},
                      {{"field", c.x_value_field}, {"title", c.x_value_title}},
                      {{"field", c.y_value_field}, {"title", c.y_value_title}},
                      {{"field", "n"}, {"title", "n"}}};
  spec["layer"] = {
      // The diagonal: its own two-point data, drawn under the points.
      {{"data", {{"values", {{{c.x_field, 1}, {c.y_field, 1}}, {{c.x_field, top - 0.5}, {c.y_field, top - 0.5}}}}}},
       {"mark", {{"type", "line"}, {"color", "#999"}, {"strokeDash", {4, 3}}}},
       {"encoding", {{"x", axis(c.x_field, c.x_title)}, {"y", axis(c.y_field, c.y_title)}}}},
      {{"mark", {{"type", "point"}, {"filled", true}, {"size", 70}, {"opacity", 0.85}, {"color", kPalette[0]}}},
       {"encoding", {{"x", axis(c.x_field, c.x_title)}, {"y", axis(c.y_field, c.y_title)}, {"tooltip", tooltip}}}},
      // The group beside its point, so that a printed figure says which is which.
      {{"mark", {{"type", "text"}, {"align", "left"}, {"dx", 6}, {"dy", -6}, {"fontSize", 10}, {"color", "#222"}}},
       {"encoding", {{"x", axis(c.x_field, c.x_title)}, {"y", axis(c.y_field, c.y_title)}, {"text", {{"field", "group"}}},
                     {"tooltip", tooltip}}}}};
  return spec;
}

}  // namespace mirac::report
