// svg.hpp: a minimal SVG writer for the report's figures. Coordinates print with one
// decimal and elements in call order, so the same figure is the same bytes on every run
// and platform (the figures are golden-tested).
#pragma once

#include <string>
#include <string_view>

namespace mirac::report {

enum class Anchor { start, middle, end };

class Svg {
 public:
  /// A standalone document of `width` x `height` user units; `title` becomes its <title>
  /// (read by screen readers and shown as a tooltip).
  Svg(double width, double height, std::string_view title);

  void rect(double x, double y, double w, double h, std::string_view fill);
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            bool dashed = false);
  void circle(double cx, double cy, double r, std::string_view fill);
  void text(double x, double y, std::string_view s, Anchor anchor = Anchor::start, double size = 11,
            bool bold = false, std::string_view fill = "#222");

  /// The document, ending in a newline.
  std::string str() const;

 private:
  double width_, height_;
  std::string body_;
};

/// `s` with &, <, > and " escaped, for XML text and attribute values.
std::string xml_escape(std::string_view s);
/// A coordinate with one decimal ("12.5"; never "-0.0").
std::string coord(double x);
/// A rough width of `s` in user units at font size `size`, for layout: fonts differ between
/// viewers, so an estimate from the number of characters is as good as any.
double text_width(std::string_view s, double size);

}  // namespace mirac::report
