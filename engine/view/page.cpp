// page.cpp: the page of `mirac view` and the links it adds to report pages, from web/view/
// (compiled in: runtime/report/web_files.hpp). The page holds no data: it reads the server's
// JSON, so nothing untrusted is ever part of its HTML; here it only gets its stylesheet and
// script inline, so that it is one response that works offline.
#include "engine/view/page.hpp"

#include "runtime/report/web_files.hpp"

namespace mirac::view {

std::string_view page_html() {
  // Assembled once (a static's initialization is thread-safe), then served as is.
  static const std::string page = web::fill(
      web::file("view/index.html"),
      {{R"(<link rel="stylesheet" href="view.css">)", web::inline_style(web::file("view/view.css"))},
       {R"(<script src="view.js"></script>)", web::inline_script(web::file("view/view.js"))}});
  return page;
}

std::string with_answer_links(std::string report_html) {
  static const std::string links =
      "<script id=\"mirac-view-links\">\n" + std::string(web::file("view/answer-links.js")) + "</script>\n";
  // The page's own closing tag: report.html escapes every text it holds (html_escape,
  // script_json), so no `</body>` of data can come after it.
  const auto end = report_html.rfind("</body>");
  report_html.insert(end == std::string::npos ? report_html.size() : end, links);
  return report_html;
}

}  // namespace mirac::view
