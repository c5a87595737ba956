#include "runtime/report/svg.hpp"

#include <cmath>

#include <fmt/format.h>

namespace mirac::report {

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string coord(double x) {
  double r = std::round(x * 10.0) / 10.0;
  if (r == 0.0) r = 0.0;  // turns -0.0 into 0.0
  std::string s = fmt::format("{:.1f}", r);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

double text_width(std::string_view s, double size) {
  std::size_t chars = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++chars;  // count UTF-8 code points, not bytes
  return static_cast<double>(chars) * size * 0.6;
}

Svg::Svg(double width, double height, std::string_view title) : width_(width), height_(height) {
  body_ += fmt::format("<title>{}</title>\n", xml_escape(title));
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", coord(x), coord(y), coord(w),
                       coord(h), fill);
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width, bool dashed) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", coord(x1),
                       coord(y1), coord(x2), coord(y2), stroke, coord(width),
                       dashed ? " stroke-dasharray=\"4 3\"" : "");
}

void Svg::circle(double cx, double cy, double r, std::string_view fill) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n", coord(cx), coord(cy), coord(r), fill);
}

void Svg::text(double x, double y, std::string_view s, Anchor anchor, double size, bool bold, std::string_view fill) {
  const char* a = anchor == Anchor::start ? "start" : anchor == Anchor::middle ? "middle" : "end";
  body_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\"{} fill=\"{}\">{}</text>\n", coord(x),
                       coord(y), coord(size), a, bold ? " font-weight=\"bold\"" : "", fill, xml_escape(s));
}

std::string Svg::str() const {
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
             "font-family=\"Helvetica, Arial, sans-serif\">\n",
             coord(width_), coord(height_)) +
         body_ + "</svg>\n";
}

}  // namespace mirac::report
