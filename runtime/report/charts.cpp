#include "runtime/report/charts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "runtime/report/svg.hpp"

namespace mirac::report {

namespace {

// Okabe-Ito: distinguishable with the common colour-vision deficiencies and in greyscale.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};
constexpr const char* kAxis = "#444";
constexpr const char* kGrid = "#ddd";

const char* colour(std::size_t i) { return kPalette[i % (sizeof kPalette / sizeof kPalette[0])]; }

// A tick label without trailing zeros ("0.5", "2", "-0.25").
std::string tick_label(double x) {
  if (std::fabs(x) < 1e-12) return "0";
  std::string s = fmt::format("{:.6f}", x);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const int e = static_cast<int>(std::floor(std::log10(raw)));
  const double power = std::pow(10.0, std::abs(e));  // exact for the exponents charts meet
  auto scaled = [&](double units) { return e >= 0 ? units * power : units / power; };
  double m = 1;
  for (double candidate : {1.0, 2.0, 5.0, 10.0}) {
    m = candidate;
    if (scaled(m) >= raw) break;
  }
  const double step = scaled(m);
  const auto k_lo = static_cast<long>(std::floor(lo / step + 1e-9)), k_hi = static_cast<long>(std::ceil(hi / step - 1e-9));
  // A tick is (k * m) * 10^e, computed by one multiplication or division of integers so
  // that 0.15 is the double closest to 0.15 and the labels are exact.
  std::vector<double> ticks;
  for (long k = k_lo; k <= k_hi; ++k) ticks.push_back(scaled(static_cast<double>(k) * m));
  return ticks;
}

std::string bar_chart_svg(const BarChart& c) {
  const double bar_w = 30, bar_gap = 4, group_pad = 18, left = 56, right = 16, top = 40, plot_h = 200;
  const std::size_t series = std::max<std::size_t>(1, c.series.size());
  // A category is as wide as its bars, or its label if that is wider.
  std::vector<double> group_w;
  for (const auto& cat : c.categories)
    group_w.push_back(std::max(static_cast<double>(series) * (bar_w + bar_gap) - bar_gap, text_width(cat, 11)) + group_pad);
  double plot_w = 0;
  for (double w : group_w) plot_w += w;
  plot_w = std::max(plot_w, 160.0);

  double data_max = 0;
  for (const auto& row : c.bars)
    for (const auto& b : row)
      if (b.value) data_max = std::max(data_max, *b.value);
  double y_top = c.y_max.value_or(0);
  std::vector<double> ticks = nice_ticks(0, std::max({y_top, data_max, 1e-9}));
  y_top = ticks.back();

  const bool legend = c.series.size() > 1;
  double legend_w = 0;
  for (const auto& s : c.series) legend_w += 18 + text_width(s, 11) + 14;
  const double width = std::max({left + plot_w + right, legend_w + left, text_width(c.title, 13) + 20});
  const double axis_y = top + plot_h;
  const double height = axis_y + 28 + (legend ? 26 : 0) + 8;
  Svg svg(width, height, c.title);
  svg.text(width / 2, 20, c.title, Anchor::middle, 13, true);

  auto y_of = [&](double v) { return axis_y - v / y_top * plot_h; };
  for (double t : ticks) {
    svg.line(left, y_of(t), left + plot_w, y_of(t), kGrid);
    svg.text(left - 6, y_of(t) + 4, tick_label(t), Anchor::end, 10);
  }
  // The y label runs along the axis; without rotation it would need its own column.
  if (!c.y_label.empty())
    svg.text(12, top - 12, c.y_label, Anchor::start, 10, false, kAxis);

  double x = left;
  for (std::size_t g = 0; g < c.categories.size(); ++g) {
    double inner = static_cast<double>(series) * (bar_w + bar_gap) - bar_gap;
    double bx = x + (group_w[g] - inner) / 2;
    for (std::size_t s = 0; s < series; ++s, bx += bar_w + bar_gap) {
      const Bar b = g < c.bars.size() && s < c.bars[g].size() ? c.bars[g][s] : Bar{};
      double cx = bx + bar_w / 2;
      if (!b.value) {
        svg.text(cx, axis_y - 4, "—", Anchor::middle, 10, false, kAxis);
        continue;
      }
      double v = std::clamp(*b.value, 0.0, y_top);
      svg.rect(bx, y_of(v), bar_w, axis_y - y_of(v), colour(s));
      svg.text(cx, y_of(v) - 4, b.value_text, Anchor::middle, 10);
      if (!b.n_text.empty()) svg.text(cx, y_of(v) - 15, b.n_text, Anchor::middle, 8, false, kAxis);
    }
    svg.text(x + group_w[g] / 2, axis_y + 16, c.categories[g], Anchor::middle, 11);
    x += group_w[g];
  }
  svg.line(left, axis_y, left + plot_w, axis_y, kAxis);
  svg.line(left, top, left, axis_y, kAxis);

  if (legend) {
    double lx = left, ly = axis_y + 30;
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      svg.rect(lx, ly, 12, 12, colour(s));
      svg.text(lx + 16, ly + 10, c.series[s], Anchor::start, 11);
      lx += 18 + text_width(c.series[s], 11) + 14;
    }
  }
  return svg.str();
}

std::string interval_chart_svg(const IntervalChart& c) {
  const double row_h = 22, plot_w = 300, top = 36, pad = 12;
  double label_w = 60, value_w = 60;
  std::size_t lines = 0;
  double lo = 0, hi = 0;  // the zero line is always in view
  for (const auto& b : c.blocks) {
    label_w = std::max(label_w, text_width(b.name, 11));
    lines += 1 + b.rows.size();
    for (const auto& r : b.rows) {
      label_w = std::max(label_w, 12 + text_width(r.label, 11));
      value_w = std::max(value_w, text_width(r.value_text, 10));
      for (const auto& v : {r.estimate, r.lower, r.upper})
        if (v && std::isfinite(*v)) lo = std::min(lo, *v), hi = std::max(hi, *v);
    }
  }
  std::vector<double> ticks = nice_ticks(lo, hi);
  const double x_lo = ticks.front(), x_hi = ticks.back();
  const double left = pad + label_w + 12, plot_top = top, plot_bottom = top + static_cast<double>(lines) * row_h;
  const double width = std::max(left + plot_w + 12 + value_w + pad, text_width(c.title, 13) + 20);
  const double height = plot_bottom + 44;
  Svg svg(width, height, c.title);
  svg.text(width / 2, 20, c.title, Anchor::middle, 13, true);

  auto x_of = [&](double v) { return left + (v - x_lo) / (x_hi - x_lo) * plot_w; };
  for (double t : ticks) {
    svg.line(x_of(t), plot_top, x_of(t), plot_bottom, kGrid);
    svg.text(x_of(t), plot_bottom + 16, tick_label(t), Anchor::middle, 10);
  }
  svg.line(x_of(0), plot_top, x_of(0), plot_bottom, kAxis, 1, true);
  svg.line(left, plot_bottom, left + plot_w, plot_bottom, kAxis);
  if (!c.x_label.empty()) svg.text(left + plot_w / 2, plot_bottom + 34, c.x_label, Anchor::middle, 11, false, kAxis);

  double y = plot_top;
  for (std::size_t bi = 0; bi < c.blocks.size(); ++bi) {
    const auto& b = c.blocks[bi];
    svg.text(pad, y + row_h / 2 + 4, b.name, Anchor::start, 11, true);
    y += row_h;
    for (const auto& r : b.rows) {
      double cy = y + row_h / 2;
      svg.text(pad + 12, cy + 4, r.label, Anchor::start, 11);
      if (r.lower && r.upper && std::isfinite(*r.lower) && std::isfinite(*r.upper)) {
        svg.line(x_of(*r.lower), cy, x_of(*r.upper), cy, colour(bi), 2);
        svg.line(x_of(*r.lower), cy - 5, x_of(*r.lower), cy + 5, colour(bi), 2);
        svg.line(x_of(*r.upper), cy - 5, x_of(*r.upper), cy + 5, colour(bi), 2);
      }
      if (r.estimate && std::isfinite(*r.estimate)) svg.circle(x_of(*r.estimate), cy, 4, colour(bi));
      svg.text(left + plot_w + 12, cy + 4, r.value_text, Anchor::start, 10);
      y += row_h;
    }
  }
  return svg.str();
}

}  // namespace mirac::report
