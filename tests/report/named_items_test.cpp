// named_items_test.cpp: a report item's name in the report's files (the anchor of its
// section or first table in report.html, the file name of its figures), and the report of a
// variant that replaces and removes items of its base's report by name.
#include <doctest/doctest.h>

#include "engine/report/report.hpp"
#include "tests/report/report_support.hpp"

using namespace report_test;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// otc.audit with a section before its report's items and every item but the analyses named.
std::string named_otc() {
  std::string text = otc_text();
  const std::string from = "report otc {";
  const std::size_t begin = text.find(from);
  REQUIRE(begin != std::string::npos);
  const std::size_t end = text.find("\n}", begin);
  text.replace(begin, end + 2 - begin, R"(report otc {
  section overview = "Overview"
  table means = means(D3, Q2, Q3) { by model, arm }
  figure gaps = contrasts(literacy_gap, anxiety_gap) { by model }
  table analysis(main, arms)
  table flag_table = flags(LITERACY_GAP, SEVERE) { by model }
})");
  return text;
}

// Where `part` is in `s`, npos when it is not.
std::size_t at(const std::string& s, const std::string& part) { return s.find(part); }

}  // namespace

TEST_CASE("a named item's name is its anchor in report.html and the file name of its figures") {
  auto c = compile_text("named_items", named_otc());
  const mirac::report::ReportFiles files = mirac::report::render_reports(c->spec, results_for(*c));
  const std::string& html = files.at("report.html");
  CHECK(contains(html, "<h2 id=\"overview\">Overview</h2>"));
  CHECK(contains(html, "<table id=\"means\">"));
  CHECK(contains(html, "<table id=\"flag_table\">"));
  // The figure's container, spec and data are named after the item, not after its content.
  CHECK(contains(html, "<div class=\"chart\" id=\"gaps\""));
  CHECK(files.count("figures/gaps.vl.json"));
  CHECK(files.count("figures/gaps.csv"));
  CHECK_FALSE(files.count("figures/contrasts-literacy_gap-anxiety_gap.vl.json"));
  CHECK(contains(files.at("report.md"), "(report.html#gaps); data [figures/gaps.csv](figures/gaps.csv)"));
  // An unnamed item has no anchor.
  const std::size_t analysis = at(html, "Analysis main");
  REQUIRE(analysis != std::string::npos);
  CHECK(html.rfind("<table>\n", analysis) > html.rfind("<table id=\"means\">", analysis));
}

TEST_CASE("a variant's report has the base's item replaced in its place and the removed one gone") {
  const std::string variant = R"(audit otc_variant extends "otc_base.audit" {}

extend report otc {
  override figure flag_table = flags(SEVERE) { by arm title "Severe answers by arm" }
  remove gaps
  table means(D3) { by literacy }
}
)";
  auto c = compile_text("named_items_variant", variant, {{"otc_base.audit", named_otc()}});
  const mirac::report::ReportFiles files = mirac::report::render_reports(c->spec, results_for(*c));
  const std::string& md = files.at("report.md");
  // The base's order, with the flags table's place taken by the figure, then the new item.
  const std::size_t means = at(md, "**Mean score (n) by model × arm**");
  const std::size_t analysis = at(md, "**Analysis main");
  const std::size_t severe = at(md, "**Figure: Severe answers by arm**");
  const std::size_t added = at(md, "**Mean score (n) by literacy**");
  REQUIRE(means != std::string::npos);
  REQUIRE(analysis != std::string::npos);
  REQUIRE(severe != std::string::npos);
  REQUIRE(added != std::string::npos);
  CHECK(means < analysis);
  CHECK(analysis < severe);
  CHECK(severe < added);
  CHECK_FALSE(contains(md, "**Flags by model"));
  CHECK(files.count("figures/flag_table.vl.json"));
  // The removed figure is nowhere: neither in the page nor among the files.
  CHECK_FALSE(contains(md, "Contrasts: estimate"));
  CHECK_FALSE(files.count("figures/gaps.vl.json"));
  CHECK_FALSE(contains(files.at("report.html"), "id=\"gaps\""));
}
