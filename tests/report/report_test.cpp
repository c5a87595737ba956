// report_test.cpp: the report renderer on examples/otc/otc.audit and results.json from the
// real analysis of a synthetic score table. Golden files under tests/report/golden/ hold
// the rendered Markdown and HTML (with the inlined chart libraries replaced by a marker)
// and each figure's Vega-Lite spec and CSV data, and the results.json they come from;
// MIRAC_UPDATE_GOLDEN=1 rewrites them instead of comparing (then review the diff).
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <vector>

#include "runtime/report/libraries.hpp"
#include "runtime/report/numbers.hpp"
#include "runtime/report/vega_charts.hpp"
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
  figure analysis(external, few)
  section "Seeds"
  figure seeds(category)
  table seeds(category, question)
  table flags(SEVERE) { by arm, model }
  table flags(SEVERE) { where model == mini }
  table coefficients(main)
  table deltas(shifts)
  figure deltas(shifts)
  table flags(LITERACY_GAP, SEVERE) { by model delta D3 split LITERACY_GAP: D3 }
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

// The megabyte of chart libraries is the same in every page and comes from npm, not from
// the renderer: the goldens hold a marker in its place.
std::string without_libraries(std::string text) {
  const std::string_view libraries = mirac::report::chart_libraries();
  if (auto at = text.find(libraries); at != std::string::npos)
    text.replace(at, libraries.size(), "/* chart libraries (runtime/report/libraries.hpp) */\n");
  return text;
}

// The page's markup without the scripts' text, whose `<` and `>` are JavaScript.
// (std::regex would recurse through a megabyte of script and overflow the stack.)
std::string markup(std::string html) {
  for (auto at = html.find("<script>"); at != std::string::npos; at = html.find("<script>", at + 1)) {
    const auto body = at + 8, end = html.find("</script>", body);
    if (end == std::string::npos) break;
    html.erase(body, end - body);
  }
  return html;
}

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

TEST_CASE("results.json and the reports of otc.audit and a second report match the golden files") {
  const Fixture& f = two_reports();
  ReportFiles files = render_reports(f.c->spec, f.results);
  const fs::path golden = source_dir() / "tests/report/golden";
  for (auto& [name, text] : files)
    if (name.ends_with(".html")) text = without_libraries(text);
  // results.json beside them: the numbers the reports are rendered from, with the fixture's
  // temporary directory named by a placeholder.
  // The standard library's hashes are named by a placeholder too: they change with every
  // edit to stdlib/, which this golden is not about.
  nlohmann::ordered_json numbers = f.results;
  for (auto& input : numbers["manifest"]["inputs"])
    if (input["path"].get<std::string>().starts_with("stdlib/")) input["sha256"] = "STDLIB_SHA256";
  std::string results = numbers.dump(2) + "\n";
  const std::string spec_dir = (fs::temp_directory_path() / "mirac_report_test_otc_two").string();
  for (auto at = results.find(spec_dir); at != std::string::npos; at = results.find(spec_dir, at))
    results.replace(at, spec_dir.size(), "SPEC_DIR");
  files["results.json"] = results;
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
  REQUIRE(files.count("figures/contrasts-literacy_gap-anxiety_gap.vl.json"));
  REQUIRE(files.count("figures/contrasts-literacy_gap-anxiety_gap.csv"));
  const std::string& md = files.at("report.md");
  CHECK(md.rfind("# Over-the-counter medicine questions\n", 0) == 0);
  CHECK(contains(md, "sha256 `" + f.results["manifest"]["scores"]["sha256"].get<std::string>() + "`"));
  CHECK(contains(md, "| model | arm | D3 | Q2 | Q3 |"));
  CHECK(contains(md, "**Figure: Contrasts"));
  CHECK(contains(md, "([drawn in report.html](report.html#contrasts-literacy_gap-anxiety_gap); data "
                     "[figures/contrasts-literacy_gap-anxiety_gap.csv](figures/contrasts-literacy_gap-anxiety_gap.csv), spec "
                     "[figures/contrasts-literacy_gap-anxiety_gap.vl.json](figures/contrasts-literacy_gap-anxiety_gap.vl.json))"));
  CHECK(contains(md, "| row | contrast | group | estimate | lower | upper | label |"));
  CHECK(contains(md, "Analysis main: linear mixed model"));
  CHECK(contains(md, "Analysis arms: paired comparison arm: invariant vs baseline"));
  CHECK(contains(md, "| LITERACY_GAP (pairs) | SEVERE (answers) |"));
  // Everything in otc's report is in results.json: its one note is that its contrasts' intervals
  // rest on three seeds, fewer than the interval's coverage is verified at.
  CHECK(contains(md, "> **Note:** 4 of these intervals rest on fewer than 12 seeds (the fewest: 3)"));
  CHECK(md.find("Note:") == md.rfind("Note:"));
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
    CHECK(tag_balance(markup(files["report.html"])) == "");
  }
}

TEST_CASE("the HTML page is well-formed and self-contained") {
  const Fixture& f = otc();
  ReportFiles files = render_reports(f.c->spec, f.results);
  const std::string& html = files.at("report.html");
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  const std::string page = markup(html);
  CHECK(tag_balance(page) == "");
  // The libraries once, inline; a container per figure; nothing loaded from elsewhere.
  const std::string_view libraries = mirac::report::chart_libraries();
  REQUIRE(libraries.size() > 500000);
  CHECK(contains(std::string(libraries.substr(0, 40)), "/*! vega 6."));
  CHECK(contains(std::string(libraries), "/*! vega-lite 6."));
  CHECK(contains(std::string(libraries), "/*! vega-embed 7."));
  CHECK_FALSE(contains(std::string(libraries), "</script"));
  const auto first = html.find(libraries);
  REQUIRE(first != std::string::npos);
  CHECK(html.find(libraries, first + 1) == std::string::npos);
  CHECK(contains(page, "<div class=\"chart\" id=\"contrasts-literacy_gap-anxiety_gap\""));
  CHECK(contains(html, "editor: false"));
  for (const char* external : {"http:", "https:", "//", "src=", "href=", "<link", "url(", "@import", "<img"})
    CHECK_MESSAGE(!contains(page, external), external);
  // Each figure's spec fills the container's width and holds its data.
  const auto spec = nlohmann::json::parse(files.at("figures/contrasts-literacy_gap-anxiety_gap.vl.json"));
  CHECK(spec["width"] == "container");
  CHECK(spec["data"]["values"].size() == 4);  // 2 contrasts x 2 models
  CHECK(files.at("figures/contrasts-literacy_gap-anxiety_gap.csv").rfind("row,contrast,group,estimate,lower,upper,label\n", 0) == 0);
}

TEST_CASE("a report without figures has no script") {
  const Fixture& f = otc();
  std::string text = otc_text();
  text = text.substr(0, text.find("report otc {")) + "report plain {\n  table means(D3) { by model }\n}\n";
  auto c = compile_text("otc_plain", text);
  const std::string html = render_reports(c->spec, f.results).at("report.html");
  CHECK_FALSE(contains(html, "<script"));
}

TEST_CASE("a spec without a report block gets the default report") {
  std::string text = otc_text();
  text = text.substr(0, text.find("report otc {"));
  auto c = compile_text("otc_default", text);
  ReportFiles files = render_reports(c->spec, results_for(*c));
  REQUIRE(files.count("report.md"));
  const std::string& md = files.at("report.md");
  for (const char* part : {"## Mean scores", "## Contrasts", "## Analyses", "## Flags", "| model | arm | D1 | D2 | D3 | Q2 | Q3 |",
                           "Analysis main: linear mixed model", "Analysis arms: paired comparison", "| local | invariant | "})
    CHECK_MESSAGE(contains(md, part), part);
  CHECK(files.count("figures/contrasts-literacy_gap-anxiety_gap.vl.json"));
}

TEST_CASE("several reports: one file set each, figures named apart") {
  const Fixture& f = two_reports();
  ReportFiles files = render_reports(f.c->spec, f.results);
  for (const char* name : {"report.md", "report.html", "report-extra.md", "report-extra.html"})
    CHECK_MESSAGE(files.count(name), name);
  for (const char* stem : {"figures/contrasts-literacy_gap-anxiety_gap", "figures/extra-bars-D3-Q2", "figures/extra-bars-D3",
                           "figures/extra-flags-SEVERE-LITERACY_GAP", "figures/extra-analysis-main",
                           "figures/extra-contrasts-literacy_gap"})
    for (const char* ext : {".vl.json", ".csv"}) CHECK_MESSAGE(files.count(std::string(stem) + ext), stem << ext);
  const std::string& md = files.at("report-extra.md");
  CHECK(contains(md, "report `extra`"));
  CHECK(contains(md, "## More\n\nBars and options.\n"));
  CHECK(contains(md, "**Figure: D3 and Q2 at baseline** ([drawn in report-extra.html](report-extra.html#extra-bars-D3-Q2)"));
  // Means group by cell and filter on factors (from results.json's cell_means).
  CHECK(contains(md, "**Figure: Mean D3 by cell × model**"));
  CHECK(contains(md, "**Mean score (n) by model where literacy == low**"));
  CHECK(contains(md, "A paired analysis has no figure; analysis arms is shown as a table."));
  CHECK(contains(md, "Contrast literacy_gap is computed by model; the report's 'by arm' cannot regroup it."));
  // One dimension by cell and model: a group of bars per cell, a colour per model, a legend.
  const auto by_cell = nlohmann::json::parse(files.at("figures/extra-bars-D3.vl.json"));
  CHECK(by_cell["encoding"]["y"]["field"] == "group");
  CHECK(by_cell["encoding"]["y"]["title"] == "cell");
  CHECK(by_cell["layer"][0]["encoding"]["color"]["field"] == "model");
  CHECK(by_cell["layer"][0]["encoding"]["color"]["legend"]["title"] == "model");
  CHECK(by_cell["encoding"]["yOffset"]["field"] == "model");
  CHECK(by_cell["width"] == "container");
  CHECK(by_cell["data"]["values"].size() == 8);  // 4 cells x 2 models
  CHECK(contains(files.at("figures/extra-bars-D3.csv"), "\n\"low health literacy, anxious\",local,"));
  // The baseline-only bars have one bar per model and dimension, each with its n.
  const auto bars = nlohmann::json::parse(files.at("figures/extra-bars-D3-Q2.vl.json"));
  CHECK(bars["layer"][0]["encoding"]["color"]["field"] == "dimension");
  CHECK(bars["data"]["values"][0]["n"] == "12");
  CHECK(bars["layer"][0]["encoding"]["x"]["scale"]["domain"][1] == 5);  // the rubric's top
  CHECK(tag_balance(markup(files.at("report-extra.html"))) == "");
}

TEST_CASE("numbers print as the report promises") {
  using namespace mirac::report;
  CHECK(mean_with_n(2.30351, 570) == "2.30 (570)");
  CHECK(estimate(0.0928030303) == "0.093");
  CHECK(estimate(-0.0001) == "0.000");
  CHECK(p_value(0.0123) == "0.012");
  CHECK(p_value(0.00001234) == "1.2e-05");
  CHECK(p_value(0.0) == "≤ 2.2e-308");  // underflowed, as for a z of 40
  CHECK(p_value(2.2250738585072014e-308) == "≤ 2.2e-308");  // the floor results.json holds
  CHECK(p_value(3e-308) == "3.0e-308");
  CHECK(p_value(std::nullopt) == kMissing);
  CHECK(interval(-0.0071180556, 0.1767695919) == "[-0.007, 0.177]");
  CHECK(percent(0.125) == "12.5%");
  CHECK(level(0.95) == "95%");
  CHECK(round4(2.303514) == 2.3035);
  CHECK(std::signbit(round4(-0.00001)) == false);
}

TEST_CASE("the paper's D3-by-cell figure: 8 cells x 5 models stay readable at the page's width") {
  using namespace mirac::report;
  BarChart chart;
  chart.title = "Mean D3 by cell × model";
  chart.category_title = "cell", chart.series_field = "model", chart.series_title = "model";
  chart.value_field = "mean", chart.value_title = "mean score";
  chart.value_max = 5;
  for (int c = 0; c < 8; ++c) chart.categories.push_back("zh.low.colloquial-" + std::to_string(c));
  for (int m = 0; m < 5; ++m) chart.series.push_back("model-" + std::to_string(m));
  for (int c = 0; c < 8; ++c) {
    std::vector<Bar> bars;
    for (int m = 0; m < 5; ++m) bars.push_back({1.0 + 0.1 * (c + m), "x", "570"});
    chart.bars.push_back(bars);
  }
  const auto spec = bar_chart_spec(chart);
  CHECK(spec["width"] == "container");  // never wider than the page
  CHECK(spec["data"]["values"].size() == 40);
  CHECK(spec["height"] == 8 * (5 * 16 + 10));  // 16 px a bar: grows down, not squeezed
  const auto& colour = spec["layer"][0]["encoding"]["color"];
  CHECK(colour["scale"]["range"].size() == 5);  // one colour per model
  CHECK(colour["scale"]["range"][0] != colour["scale"]["range"][1]);
  CHECK(colour["legend"]["title"] == "model");
  CHECK(spec["encoding"]["y"]["sort"].size() == 8);
}

TEST_CASE("writing a report removes figure files an earlier report left and this one does not write") {
  const Fixture& f = otc();
  ReportFiles files = render_reports(f.c->spec, f.results);
  const fs::path dir = fs::temp_directory_path() / "mirac_report_test_stale";
  fs::remove_all(dir);
  fs::create_directories(dir / "figures");
  for (const char* old : {"bars-D3.svg", "gone.vl.json", "gone.csv"}) std::ofstream(dir / "figures" / old) << "old";
  std::ofstream(dir / "figures" / "notes.txt") << "the user's";  // not a figure file: kept
  REQUIRE(mirac::report::write_reports(files, dir) == "");
  for (const char* old : {"bars-D3.svg", "gone.vl.json", "gone.csv"}) CHECK_FALSE(fs::exists(dir / "figures" / old));
  CHECK(fs::exists(dir / "figures" / "notes.txt"));
  for (const auto& [name, text] : files) CHECK_MESSAGE(fs::exists(dir / name), name);
  fs::remove_all(dir);
}

TEST_CASE("table analysis(ord) of a clmm: log-odds coefficients with the rubric's direction, and thresholds") {
  const std::string text = otc_text() + R"(
analysis ord = clmm(D3 ~ literacy * tone + model + (1 | seed)) { where arm == baseline }
report ordinal {
  table analysis(ord)
}
)";
  const auto c = compile_text("otc_clmm", text);
  const auto results = results_for(*c);
  const std::string md = render_reports(c->spec, results).at("report-ordinal.md");
  INFO(md);
  CHECK(contains(md, "Analysis ord: cumulative-logit mixed model D3 ~ literacy * tone + model + (1 | seed) where arm == baseline"));
  // the MIRA rubric's worst is high: a higher score is a worse one
  CHECK(contains(md, "log-odds of a higher, i.e. worse, score (the rubric's worst is high)"));
  CHECK(contains(md, "| term | estimate (log-odds) | SE | z | p |"));
  CHECK(contains(md, "| threshold | estimate | SE |"));
  CHECK(contains(md, "| 2\\|3 |"));  // no D3 of 1 here: the first threshold is 2|3, its bar escaped for Markdown
  CHECK(contains(md, "Random intercept of seed (3 groups)"));
  // three seeds that barely differ: the variance is at zero, and the report says so
  CHECK(contains(md, "> **Note:** Analysis ord: the fit ended with status 'boundary': boundary fit"));
  CHECK(contains(md, "convergence: boundary"));
  CHECK(!contains(md, "(Intercept)"));  // the thresholds take its place
}
