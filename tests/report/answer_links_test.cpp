// answer_links_test.cpp: the cells of report.html's means and contrasts tables name the
// answers behind them as a query of `mirac view`'s answer list (data-answers), and exactly
// those: each mean's query, applied to the score table the means come from, keeps as many
// answers as the n the cell prints. A `where` the view's filters cannot say gives no query
// at all; report.md carries none, and report.html itself links nowhere (mirac view adds
// the links' script when it serves the page).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "engine/report/content.hpp"
#include "engine/report/report.hpp"
#include "engine/view/query.hpp"
#include "tests/report/report_support.hpp"

using namespace report_test;

namespace {

const char* kReport = R"(
report links {
  table means(D3, Q3) { by model, arm }
  table means(D3) { by cell }
  table means(Q3) { by model where literacy == low and baseline == arm }
  table means(D3) { by model where literacy != low }
  table means(D3) { by model where arm == baseline or arm == invariant }
  table contrasts(literacy_gap)
  table flags(LITERACY_GAP, SEVERE) { by model where arm == baseline delta D3 split LITERACY_GAP: D3 title "FLAGS" }
}
)";

struct Cell {
  std::string text, answers;
};

// The body cells of the table whose caption is `caption`, row by row.
std::vector<std::vector<Cell>> table_cells(const std::string& html, const std::string& caption) {
  const auto at = html.find("<caption>" + caption + "</caption>");
  REQUIRE_MESSAGE(at != std::string::npos, caption);
  const std::string table = html.substr(at, html.find("</table>", at) - at);
  static const std::regex row("<tr>(.*?)</tr>"), cell(R"re(<td[^>]*?(?: data-answers="([^"]*)")?>([^<]*)</td>)re");
  std::vector<std::vector<Cell>> out;
  for (auto r = std::sregex_iterator(table.begin(), table.end(), row); r != std::sregex_iterator(); ++r) {
    const std::string cells = (*r)[1];
    std::vector<Cell> line;
    for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell); c != std::sregex_iterator(); ++c)
      line.push_back({(*c)[2], std::regex_replace((*c)[1].str(), std::regex("&amp;"), "&")});
    if (!line.empty()) out.push_back(std::move(line));
  }
  return out;
}

std::map<std::string, std::string> parse_query(const std::string& q) {
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start < q.size()) {
    std::size_t amp = q.find('&', start);
    if (amp == std::string::npos) amp = q.size();
    const std::string part = q.substr(start, amp - start);
    const auto eq = part.find('=');
    REQUIRE(eq != std::string::npos);
    out[part.substr(0, eq)] = part.substr(eq + 1);
    start = amp + 1;
  }
  return out;
}

// How many rows of the score table the view's filter `query` keeps: model, arm, factor
// levels by name, scored_on a dimension not N/A. Any other name fails the test.
std::size_t matching(const mirac::Spec& spec, const mirac::analyze::ScoreTable& t, const std::string& query) {
  const auto params = parse_query(query);
  std::size_t n = 0;
  for (const auto& r : t.rows) {
    bool keep = true;
    for (const auto& [name, value] : params) {
      if (name == "model") keep = keep && spec.models[static_cast<std::size_t>(r.model)].name == value;
      else if (name == "arm") keep = keep && spec.arms[static_cast<std::size_t>(r.arm)].name == value;
      else if (name == "scored_on") {
        const auto d = std::find(t.dims.begin(), t.dims.end(), value);
        REQUIRE(d != t.dims.end());
        keep = keep && !std::isnan(r.scores[static_cast<std::size_t>(d - t.dims.begin())]);
      } else {
        const int f = spec.factor_index(name);
        REQUIRE_MESSAGE(f >= 0, "not a filter of the view: " << name);
        keep = keep && spec.factors[static_cast<std::size_t>(f)].levels[static_cast<std::size_t>(
                           r.levels[static_cast<std::size_t>(f)])].name.name == value;
      }
    }
    if (keep) ++n;
  }
  return n;
}

// "2.30 (12)" -> 12
std::size_t printed_n(const std::string& cell) {
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(cell, m, std::regex(R"(\((\d+)\)$)")), cell);
  return std::stoul(m[1]);
}

struct Links {
  std::unique_ptr<mirac::Compilation> c;
  std::string html, md;
};

const Links& links() {
  static const Links l = [] {
    Links x{compile_text("otc_links", otc_text() + kReport), "", ""};
    const auto files = mirac::report::render_reports(x.c->spec, results_for(*x.c));
    x.html = files.at("report-links.html");
    x.md = files.at("report-links.md");
    return x;
  }();
  return l;
}

}  // namespace

TEST_CASE("a mean's cell names exactly the answers it averages, as many as its n") {
  const Links& l = links();
  const mirac::Spec& spec = l.c->spec;
  const auto scores = synthetic_scores(spec);
  const auto by_model_arm = table_cells(l.html, "Mean score (n) by model × arm");
  REQUIRE(by_model_arm.size() == 4);
  CHECK(by_model_arm[0][0].text == "mini");
  CHECK(by_model_arm[0][1].text == "baseline");
  CHECK(by_model_arm[0][0].answers.empty());  // the group's own columns link nowhere
  CHECK(by_model_arm[0][2].answers == "model=mini&arm=baseline&scored_on=D3");
  CHECK(by_model_arm[0][3].answers == "model=mini&arm=baseline&scored_on=Q3");
  CHECK(by_model_arm[3][3].answers == "model=local&arm=invariant&scored_on=Q3");
  // A cell is its factors' levels.
  const auto by_cell = table_cells(l.html, "Mean score (n) by cell");
  REQUIRE(by_cell.size() == 4);
  CHECK(by_cell[0][0].text == "high health literacy, calm");
  CHECK(by_cell[0][1].answers == "literacy=high&tone=calm&scored_on=D3");
  // A conjunction of equalities (either way round) joins the group's values.
  const auto where = table_cells(l.html, "Mean score (n) by model where literacy == low and baseline == arm");
  REQUIRE(where.size() == 2);
  CHECK(where[0][1].answers == "literacy=low&arm=baseline&model=mini&scored_on=Q3");
  // Every linked mean: the query keeps as many of the scored answers as the n printed. One
  // Q3 of mini, baseline, high.calm is N/A: there n is one less than the answers.
  std::size_t checked = 0;
  for (const auto* rows : {&by_model_arm, &by_cell, &where})
    for (const auto& row : *rows)
      for (const auto& cell : row) {
        if (cell.answers.empty()) continue;
        CHECK_MESSAGE(matching(spec, scores, cell.answers) == printed_n(cell.text), cell.answers);
        ++checked;
      }
  CHECK(checked == 8 + 4 + 2);
  CHECK(matching(spec, scores, "model=mini&arm=baseline&scored_on=Q3") + 1 ==
        matching(spec, scores, "model=mini&arm=baseline&scored_on=D3"));
}

TEST_CASE("a where the view cannot filter by gives no links; report.md has none") {
  const Links& l = links();
  for (const char* caption : {"Mean score (n) by model where literacy != low",
                              "Mean score (n) by model where arm == baseline or arm == invariant"}) {
    const auto rows = table_cells(l.html, caption);
    REQUIRE(rows.size() == 2);
    for (const auto& row : rows)
      for (const auto& cell : row) CHECK_MESSAGE(cell.answers.empty(), caption);
  }
  CHECK(l.md.find("scored_on") == std::string::npos);
  CHECK(l.md.find("data-answers") == std::string::npos);
}

TEST_CASE("a contrast's group names the answers of that group") {
  const auto rows = table_cells(links().html, "Contrasts: estimate and cluster-bootstrap 95% CI, 200 resamples over seeds");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][0].text == "literacy_gap");
  CHECK(rows[0][1].text == "mini");
  CHECK(rows[0][0].answers.empty());
  CHECK(rows[0][1].answers == "model=mini");
  CHECK(rows[1][1].answers == "model=local");
  CHECK(rows[0][2].answers.empty());
}

TEST_CASE("a flag's count names the answers (unit flag) or the pairs (pair flag) it counts") {
  const Links& l = links();
  const auto rows = table_cells(l.html, "FLAGS");
  REQUIRE(rows.size() == 2);
  const auto& mini = rows[0];
  REQUIRE(mini.size() == 6);  // model, LITERACY_GAP, its two split columns, its delta, SEVERE
  CHECK(mini[0].text == "mini");
  CHECK(mini[1].answers == "arm=baseline&model=mini&view=pairs&flag=LITERACY_GAP");
  CHECK(mini[2].answers.empty());  // the view cannot pick pairs by the side that is worse
  CHECK(mini[3].answers.empty());
  CHECK(mini[4].answers == "arm=baseline&model=mini&view=pairs&factor=literacy&a=low&b=high");
  CHECK(mini[5].answers == "arm=baseline&model=mini&flag=SEVERE");
  // SEVERE = D3 >= 3 and Q2 >= 4 (otc.audit), counted here on the score table: the count
  // the cell prints is the number of answers its link lists.
  const mirac::Spec& spec = l.c->spec;
  const auto scores = synthetic_scores(spec);
  const auto d3 = std::find(scores.dims.begin(), scores.dims.end(), "D3") - scores.dims.begin();
  const auto q2 = std::find(scores.dims.begin(), scores.dims.end(), "Q2") - scores.dims.begin();
  for (const auto& row : rows) {
    std::size_t severe = 0;
    for (const auto& r : scores.rows)
      if (spec.models[static_cast<std::size_t>(r.model)].name == row[0].text &&
          spec.arms[static_cast<std::size_t>(r.arm)].name == "baseline" && r.scores[static_cast<std::size_t>(d3)] >= 3 &&
          r.scores[static_cast<std::size_t>(q2)] >= 4)
        ++severe;
    CAPTURE(row[0].text);
    CHECK(row[5].text.rfind(std::to_string(severe) + "/", 0) == 0);
  }
}

TEST_CASE("report.html itself links nowhere: the cells only carry their answers") {
  const std::string& html = links().html;
  CHECK(html.find("data-answers=\"model=mini&amp;arm=baseline&amp;scored_on=D3\"") != std::string::npos);
  CHECK(html.find("<a ") == std::string::npos);
  CHECK(html.find("mirac-view-links") == std::string::npos);  // the script mirac view adds
}

TEST_CASE("a factor named as one of the view's own parameters gets no links") {
  for (const char* name : mirac::view::kQueryParams) CHECK_MESSAGE(mirac::report::view_reserved(name), name);
  CHECK(mirac::report::view_reserved("view"));
  CHECK_FALSE(mirac::report::view_reserved("tone"));
  // otc.audit with its factor tone named status, which the view reads as the answer's.
  std::string text = std::regex_replace(otc_text(), std::regex("\\btone\\b"), "status") + R"(
report named {
  table means(D3) { by model, status }
  table means(D3) { by model where status == calm }
  table means(D3) { by model, literacy }
}
)";
  auto c = compile_text("otc_status", text);
  const std::string html = mirac::report::render_reports(c->spec, results_for(*c)).at("report-named.html");
  for (const char* caption : {"Mean score (n) by model × status", "Mean score (n) by model where status == calm"})
    for (const auto& row : table_cells(html, caption))
      for (const auto& cell : row) CHECK_MESSAGE(cell.answers.empty(), caption);
  CHECK(table_cells(html, "Mean score (n) by model × literacy")[0][2].answers == "model=mini&literacy=high&scored_on=D3");
}
