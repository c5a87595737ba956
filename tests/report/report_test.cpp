// report_test.cpp: the report renderer on examples/otc/otc.audit and results.json from the
// real analysis of a synthetic score table. Golden files under tests/report/golden/ hold
// the rendered Markdown, HTML and SVG; MIRAC_UPDATE_GOLDEN=1 rewrites them instead of
// comparing (then review the diff).
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <vector>

#include "runtime/report/charts.hpp"
#include "runtime/report/numbers.hpp"
#include "engine/report/report.hpp"
#include "tests/report/report_support.hpp"

namespace fs = std::filesystem;
using namespace report_test;
using mirac::report::ReportFiles;
using mirac::report::render_reports;

namespace {

struct Fixture {
  std::unique_ptr<mirac::Compilation> c;
  nlohmann::ordered_json results;
};

const Fixture& otc() {
  static const Fixture f = [] {
    Fixture x{compile_text("otc", otc_text()), {}};
    x.results = results_for(*x.c);
    return x;
  }();
  return f;
}

// otc.audit with Wilcoxon, pattern and Spearman analyses and a second report that uses
// every kind of table and figure and the options the data cannot honour, so that the
// goldens cover every renderer.
const Fixture& two_reports() {
  static const Fixture f = [] {
    std::string text = otc_text() + R"(
analysis tones = wilcoxon(D3, Q2) {
  compare tone: anxious vs calm
  pairs model, seed, literacy
  within model
  where arm == baseline
  adjust bh
}
analysis shifts = paired(D3, Q3) {
  compare arm: invariant vs baseline
  patterns delta.D3 < 0 and delta.Q3 < 0, delta.D3 > 0
}
analysis external = spearman(D3) {
  by model * literacy
  against csv("external.csv") { model = model literacy = literacy }
}
analysis few = spearman(Q2) {
  by model
  against csv("external.csv") { model = model }
}

report extra {
  section "More"
  text "Bars and options."
  figure bars(D3, Q2) { by model where arm == baseline title "D3 and Q2 at baseline" }
  figure bars(D3) { by cell, model }
  table means(D3) { by model where literacy == low }
  figure flags(SEVERE, LITERACY_GAP) { by arm }
  figure analysis(main, arms)
  figure contrasts(literacy_gap) { by arm }
  table contrasts(literacy_gap, anxiety_gap)
  table analysis(tones, shifts, external, few)
  table flags(SEVERE) { by arm, model }
  table flags(SEVERE) { where model == mini }
}
)";
    // Spearman reads one number per group; `few` has two groups, fewer than it needs.
    const std::string external = "model,literacy,D3,Q2\nmini,high,3.1,3\nmini,low,2.8,3\nlocal,high,3.6,4\nlocal,low,3.3,4\n";
    Fixture x{compile_text("otc_two", text, {{"external.csv", external}}), {}};
    x.results = results_for(*x.c);
    return x;
  }();
  return f;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Every tag the renderer emits is either void (<meta>), self-closed (<rect/>) or closed in
// the reverse order of opening. Returns "" or what is wrong.
std::string tag_balance(const std::string& doc) {
  static const std::regex tag(R"(<(/?)([A-Za-z][A-Za-z0-9]*)\b[^>]*?(/?)>)");
  static const std::set<std::string> void_tags = {"meta", "br", "hr", "img", "link", "input"};
  std::vector<std::string> open;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), tag); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    std::string name = m[2];
    if (m[1] == "/") {
      if (open.empty() || open.back() != name) return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
      open.pop_back();
    } else if (m[3] != "/" && !void_tags.count(name)) {
      open.push_back(name);
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> is never closed";
}

}  // namespace

TEST_CASE("report of otc.audit and a second report match the golden files") {
  const Fixture& f = two_reports();
  ReportFiles files = render_reports(f.c->spec, f.results);
  const fs::path golden = source_dir() / "tests/report/golden";
  if (std::getenv("MIRAC_UPDATE_GOLDEN")) {
    fs::remove_all(golden);
    REQUIRE(mirac::report::write_reports(files, golden) == "");
    return;
  }
  std::set<std::string> expected;
  for (const auto& e : fs::recursive_directory_iterator(golden))
    if (e.is_regular_file()) expected.insert(fs::relative(e.path(), golden).generic_string());
  std::set<std::string> actual;
  for (const auto& [name, text] : files) actual.insert(name);
  CHECK(actual == expected);
  for (const auto& [name, text] : files) {
    CAPTURE(name);
    CHECK_MESSAGE(text == read_text(golden / name), "differs from the golden file; run with MIRAC_UPDATE_GOLDEN=1 and review");
  }
}

TEST_CASE("the otc report has every item of its report block") {
  const Fixture& f = otc();
  ReportFiles files = render_reports(f.c->spec, f.results);
  REQUIRE(files.count("report.md"));
  REQUIRE(files.count("report.html"));
  REQUIRE(files.count("figures/contrasts-literacy_gap-anxiety_gap.svg"));
  const std::string& md = files.at("report.md");
  CHECK(md.rfind("# Over-the-counter medicine questions\n", 0) == 0);
  CHECK(contains(md, "sha256 `" + f.results["manifest"]["scores"]["sha256"].get<std::string>() + "`"));
  CHECK(contains(md, "| model | arm | D3 | Q2 | Q3 |"));
  CHECK(contains(md, "![Contrasts"));
  CHECK(contains(md, "(figures/contrasts-literacy_gap-anxiety_gap.svg)"));
  CHECK(contains(md, "Analysis main: linear mixed model"));
  CHECK(contains(md, "Analysis arms: paired comparison arm: invariant vs baseline"));
  CHECK(contains(md, "| LITERACY_GAP | pair |"));
  CHECK_FALSE(contains(md, "Note:"));  // everything in otc's report is in results.json
  // Rendering is a pure function of its inputs.
  CHECK(render_reports(f.c->spec, f.results) == files);
}

TEST_CASE("an analysis that failed or is missing renders as a note in place") {
  const Fixture& f = otc();
  nlohmann::ordered_json results = f.results;
  auto& analyses = results["analyses"];
  REQUIRE(analyses.size() == 2);
  analyses[0] = {{"name", "main"}, {"kind", "lmm"}, {"error", "lmm_fit: the fixed and random effects fit the response exactly"}};
  analyses.erase(1);  // `arms` was never computed
  results.erase("contrasts");
  const std::string md = render_reports(f.c->spec, results).at("report.md");
  CHECK(contains(md, "> **Note:** Analysis main (lmm) could not be computed: lmm_fit: the fixed and random effects fit"));
  CHECK(contains(md, "> **Note:** Analysis arms is not in results.json (it was not computed)."));
  CHECK(contains(md, "> **Note:** Contrasts (literacy_gap, anxiety_gap) are not in results.json."));
  CHECK(contains(md, "| model | arm | D3 | Q2 | Q3 |"));  // the rest is still there
  const std::string html = render_reports(f.c->spec, results).at("report.html");
  CHECK(contains(html, "<p class=\"note\"><strong>Note:</strong> Analysis main (lmm) could not be computed"));
}

TEST_CASE("results.json of any shape renders without throwing") {
  const Fixture& f = otc();
  for (const auto& results : {nlohmann::ordered_json(), nlohmann::ordered_json::object(), nlohmann::ordered_json::array(),
                              nlohmann::ordered_json{{"means", 3}, {"flags", {{{"name", "SEVERE"}, {"by_model_arm", "x"}}}},
                                                     {"analyses", {{{"name", "arms"}, {"kind", "paired"}, {"comparisons", 1}}}}}}) {
    CAPTURE(results.dump());
    ReportFiles files;
    CHECK_NOTHROW(files = render_reports(f.c->spec, results));
    CHECK(contains(files["report.md"], "Note:"));
    CHECK(tag_balance(files["report.html"]) == "");
  }
}

TEST_CASE("the HTML page is well-formed and self-contained") {
  const Fixture& f = otc();
  ReportFiles files = render_reports(f.c->spec, f.results);
  for (const auto& [name, text] : files) {
    CAPTURE(name);
    if (name.ends_with(".svg")) {
      CHECK(text.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
      CHECK(tag_balance(text) == "");
    }
  }
  const std::string& html = files.at("report.html");
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(tag_balance(html) == "");
  CHECK(contains(html, "<svg "));  // figures inline, not linked
  for (const char* external : {"http:", "https:", "//", "src=", "href=", "<script", "<link", "url(", "@import", "<img"})
    CHECK_MESSAGE(!contains(html, external), external);
}

TEST_CASE("a spec without a report block gets the default report") {
  std::string text = otc_text();
  text = text.substr(0, text.find("report otc {"));
  auto c = compile_text("otc_default", text);
  ReportFiles files = render_reports(c->spec, results_for(*c));
  REQUIRE(files.count("report.md"));
  const std::string& md = files.at("report.md");
  for (const char* part : {"## Mean scores", "## Contrasts", "## Analyses", "## Flags", "| model | arm | D1 | D2 | D3 | Q2 | Q3 |",
                           "Analysis main: linear mixed model", "Analysis arms: paired comparison", "| SEVERE | unit | local | invariant |"})
    CHECK_MESSAGE(contains(md, part), part);
  CHECK(files.count("figures/contrasts-literacy_gap-anxiety_gap.svg"));
}

TEST_CASE("several reports: one file set each, figures named apart") {
  const Fixture& f = two_reports();
  ReportFiles files = render_reports(f.c->spec, f.results);
  for (const char* name : {"report.md", "report.html", "report-extra.md", "report-extra.html",
                           "figures/contrasts-literacy_gap-anxiety_gap.svg", "figures/extra-bars-D3-Q2.svg",
                           "figures/extra-bars-D3.svg", "figures/extra-flags-SEVERE-LITERACY_GAP.svg",
                           "figures/extra-analysis-main.svg", "figures/extra-contrasts-literacy_gap.svg"})
    CHECK_MESSAGE(files.count(name), name);
  const std::string& md = files.at("report-extra.md");
  CHECK(contains(md, "report `extra`"));
  CHECK(contains(md, "## More\n\nBars and options.\n"));
  CHECK(contains(md, "![D3 and Q2 at baseline](figures/extra-bars-D3-Q2.svg)"));
  // Means group by cell and filter on factors (from results.json's cell_means).
  CHECK(contains(md, "![Mean D3 by cell × model](figures/extra-bars-D3.svg)"));
  CHECK(contains(files.at("figures/extra-bars-D3.svg"), ">low.anxious / local<"));
  CHECK(contains(md, "**Mean score (n) by model where literacy == low**"));
  CHECK(contains(md, "A paired analysis has no figure; analysis arms is shown as a table."));
  CHECK(contains(md, "Contrast literacy_gap is computed by model; the report's 'by arm' cannot regroup it."));
  // The baseline-only bars have one bar per model, each with its n.
  const std::string& bars = files.at("figures/extra-bars-D3-Q2.svg");
  CHECK(contains(bars, ">n=12<"));
  CHECK(tag_balance(files.at("report-extra.html")) == "");
}

TEST_CASE("numbers print as the report promises") {
  using namespace mirac::report;
  CHECK(mean_with_n(2.30351, 570) == "2.30 (570)");
  CHECK(estimate(0.0928030303) == "0.093");
  CHECK(estimate(-0.0001) == "0.000");
  CHECK(p_value(0.0123) == "0.012");
  CHECK(p_value(0.00001234) == "1.2e-05");
  CHECK(p_value(0.0) == "< 2.2e-308");  // underflowed, as for a z of 40
  CHECK(p_value(std::nullopt) == kMissing);
  CHECK(interval(-0.0071180556, 0.1767695919) == "[-0.007, 0.177]");
  CHECK(percent(0.125) == "12.5%");
  CHECK(level(0.95) == "95%");
  CHECK(nice_ticks(0, 5) == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(nice_ticks(-0.07, 0.18) == std::vector<double>{-0.1, -0.05, 0, 0.05, 0.1, 0.15, 0.2});
}
