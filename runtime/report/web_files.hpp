// web_files.hpp: the HTML, CSS and JavaScript of mirac's own pages (the page of `mirac
// view`, the annotation page), kept as files under web/ where front-end tools and
// tests/web/lint_web.cmake reach them, and compiled into the binary at build time
// (cmake/web_files.cmake) so the pages need no file and no network at run time.
//
// A page is an HTML file with markers the C++ fills with data, each exactly once: a comment
// `<!-- mirac:NAME -->`, or the tag that loads a file beside it (`<link rel="stylesheet"
// href="x.css">`, `<script src="x.js"></script>`), which then gets that file's text inline.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace mirac::web {

/// One file of web/, by its path under web/ ("view/index.html").
struct File {
  std::string_view path;
  std::string_view text;
};

/// Every .html, .css and .js file under web/ (node_modules aside), as the build found them.
std::span<const File> files();

/// The text of web/<path>; throws std::out_of_range when the build embedded no such file.
std::string_view file(std::string_view path);

/// A marker of a page and what replaces it.
struct Fill {
  std::string_view marker;
  std::string_view text;
};

/// `page` with each marker replaced by its text. Every marker must occur exactly once in
/// `page` (std::logic_error otherwise: the page files are ours, and tests check them), and
/// the markers are found in `page` alone, before any text goes in, so no data can ever be
/// taken for a marker.
std::string fill(std::string_view page, std::initializer_list<Fill> fills);

/// The trusted text of a web/ stylesheet or script as an inline element, `<style>` and
/// `<script>`; throws std::logic_error if it could end that element early (tests/web lints
/// the files for it too).
std::string inline_style(std::string_view css);
std::string inline_script(std::string_view js);

}  // namespace mirac::web
