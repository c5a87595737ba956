// web_pages_test.cpp: the pages of mirac (the page of `mirac view`, its links in report
// pages, the annotation page) are the files under web/, compiled in by
// cmake/web_files.cmake: every file the binary holds equals its file in web/ (an edit of
// web/ is what ships), each page loads from them with every marker filled and its stylesheet
// and script inline, and data that looks like a marker stays data. tests/web/lint_web.cmake
// lints the files themselves; tests/browser runs the pages.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/annotate/sample.hpp"
#include "engine/view/page.hpp"
#include "runtime/report/web_files.hpp"

namespace {

namespace fs = std::filesystem;

fs::path web_dir() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  return (root ? fs::path(root) : fs::current_path()) / "web";
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A page put together from web/ files: nothing left to fill, nothing loaded from outside.
void check_loaded(const std::string& page) {
  CHECK(page.find("<!-- mirac:") == std::string::npos);
  CHECK(page.find("<link rel=\"stylesheet\"") == std::string::npos);
  CHECK(page.find("<script src=") == std::string::npos);
  CHECK(count(page, "<style>") == 1);
}

}  // namespace

TEST_CASE("the binary holds exactly the files of web/, as they are there") {
  std::map<std::string, std::string> on_disk;
  for (const auto& e : fs::recursive_directory_iterator(web_dir())) {
    const std::string rel = fs::relative(e.path(), web_dir()).generic_string();
    const auto ext = e.path().extension();
    if (e.is_regular_file() && rel.find("node_modules/") == std::string::npos &&
        (ext == ".html" || ext == ".css" || ext == ".js"))
      on_disk[rel] = read(e.path());
  }
  REQUIRE(on_disk.size() >= 7);
  std::map<std::string, std::string> embedded;
  for (const auto& f : mirac::web::files()) embedded[std::string(f.path)] = std::string(f.text);
  for (const auto& [path, text] : on_disk) {
    INFO(path);
    REQUIRE(embedded.count(path) == 1);  // rebuild after adding a file to web/
    CHECK(embedded.at(path) == text);    // rebuild after editing it
  }
  CHECK(embedded.size() == on_disk.size());
  CHECK_THROWS_AS(mirac::web::file("view/nothing.js"), std::out_of_range);
}

TEST_CASE("the page of mirac view loads from web/view, its stylesheet and script inline") {
  const std::string page(mirac::view::page_html());
  check_loaded(page);
  CHECK(page.rfind("<!doctype html>", 0) == 0);
  CHECK(page.find(std::string(mirac::web::file("view/view.css"))) != std::string::npos);
  CHECK(page.find("<script>\n" + std::string(mirac::web::file("view/view.js")) + "</script>") != std::string::npos);
  CHECK(page.find("<pre id=\"page-errors\" class=\"hidden\"></pre>") != std::string::npos);
  CHECK(page.find("function start()") != std::string::npos);
  CHECK(page.find("#simulated-banner {") != std::string::npos);
  CHECK(mirac::view::page_html().data() == mirac::view::page_html().data());  // put together once

  const std::string report = mirac::view::with_answer_links("<html><body><table></table></body></html>");
  CHECK(report.find("<script id=\"mirac-view-links\">\n" + std::string(mirac::web::file("view/answer-links.js")) +
                    "</script>\n</body>") != std::string::npos);
}

TEST_CASE("the annotation page loads from web/annotate, filled with its data once, markers in data staying data") {
  nlohmann::ordered_json data = {{"spec", "<!-- mirac:heading --><b>x</b>"}, {"simulated", true}, {"scale", {1, 5}},
                                 {"dims", nlohmann::json::array()}};
  data["items"] = {{{"item", 1}, {"id", 7}, {"prompt_id", "p"}, {"prompt", "<!-- mirac:data -->"},
                    {"answer", "<script src=\"annotate.js\"></script></script><!-- mirac:title -->"}}};
  const std::string page = mirac::annotation_page(data);
  check_loaded(page);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  const std::string title = "Annotate &lt;!-- mirac:heading --&gt;&lt;b&gt;x&lt;/b&gt;";
  CHECK(page.find("<title>" + title + "</title>") != std::string::npos);
  CHECK(page.find("<h1>" + title + "</h1>") != std::string::npos);
  CHECK(page.find("<div id=\"simulated-banner\" role=\"alert\">Simulated answers") != std::string::npos);
  CHECK(page.find(std::string(mirac::web::file("annotate/annotate.css"))) != std::string::npos);
  CHECK(page.find("function renderChecklist(") != std::string::npos);
  CHECK(page.find(".scores button.chosen {") != std::string::npos);
  CHECK(page.find("<script>\n" + std::string(mirac::web::file("annotate/annotate.js")) + "</script>") != std::string::npos);
  // One data block, holding the data as it was, and no end tag from it.
  const std::string open = "<script type=\"application/json\" id=\"annotation-data\">";
  REQUIRE(count(page, open) == 1);
  const auto from = page.find(open) + open.size();
  const std::string block = page.substr(from, page.find("</script>", from) - from);
  CHECK(block.find('<') == std::string::npos);
  CHECK(nlohmann::ordered_json::parse(block) == data);
  CHECK(count(page, "</script>") == 2);

  data["simulated"] = false;
  const std::string real = mirac::annotation_page(data);
  check_loaded(real);
  CHECK(real.find("simulated-banner\" role") == std::string::npos);
}

TEST_CASE("a page's markers are filled once each, or the page is refused") {
  using mirac::web::fill;
  CHECK(fill("a<!-- mirac:x -->b<!-- mirac:y -->c", {{"<!-- mirac:y -->", "<!-- mirac:x -->"}, {"<!-- mirac:x -->", "1"}}) ==
        "a1b<!-- mirac:x -->c");
  CHECK_THROWS_AS(fill("a", {{"<!-- mirac:x -->", "1"}}), std::logic_error);
  CHECK_THROWS_AS(fill("<!-- mirac:x --><!-- mirac:x -->", {{"<!-- mirac:x -->", "1"}}), std::logic_error);
  CHECK_THROWS_AS(mirac::web::inline_script("x = '</SCRIPT>'"), std::logic_error);
  CHECK_THROWS_AS(mirac::web::inline_style("a { } </style>"), std::logic_error);
}
