// report_links_test.cpp: report.html served by `mirac view` (at /report) links each mean
// to the answers it averages, on an offline run of the OTC example with one more means
// table (by model and literacy, where arm == baseline). In headless Chromium: a linked
// cell of that table is found and its link followed; the view's answer list then holds
// only answers of that model, arm and level, scored on the cell's dimension, as many as the
// n the cell prints. The same report.html opened from the file has no links. Screenshots
// go to $MIRAC_ARTIFACT_DIR.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "tests/browser/chromium.hpp"
#include "tests/cli/view_server.hpp"

namespace {

namespace fs = std::filesystem;

std::string run_chromium(const std::string& url, const std::string& flags, const fs::path& dir, std::string& log) {
  return browser_test::run_chromium(url, "--no-proxy-server --virtual-time-budget=5000 " + flags, dir, log);
}

void check_console_clean(const std::string& log) {
  INFO(log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(log.find(":CONSOLE(") == std::string::npos);
}

std::string unescaped(std::string s) { return std::regex_replace(s, std::regex("&amp;"), "&"); }

// The text of the cells of one answer row of the view's list, in order.
std::vector<std::string> cells_of(const std::string& row) {
  static const std::regex cell("<td[^>]*>(?:<div>)?([^<]*)");
  std::vector<std::string> out;
  for (auto c = std::sregex_iterator(row.begin(), row.end(), cell); c != std::sregex_iterator(); ++c) out.push_back((*c)[1]);
  return out;
}

}  // namespace

TEST_CASE("report.html served by mirac view links a mean to exactly the answers it averages") {
  mirac::test::TempDir tmp("report_links");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  std::string text = mirac::test::read_text(fs::path(root) / "examples/otc/otc.audit");
  const std::string means = "  table means(D3, Q2, Q3) { by model, arm }\n";
  REQUIRE(text.find(means) != std::string::npos);
  text.replace(text.find(means), means.size(),
               means + "  table means(D3) { by model, literacy where arm == baseline title \"D3 at baseline\" }\n");
  const std::string spec = tmp.path("otc.audit"), store = tmp.path("run");
  std::ofstream(spec) << text;
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const fs::path report = fs::path(store) / "results" / "report.html";
  REQUIRE(fs::exists(report));
  mirac::test::ViewServer server({spec, "--offline", "--store", store}, tmp.dir / "view.log");
  const fs::path artifacts = std::getenv("MIRAC_ARTIFACT_DIR") ? fs::path(std::getenv("MIRAC_ARTIFACT_DIR"))
                                                                : fs::path(tmp.path("artifacts"));
  fs::create_directories(artifacts);
  std::string log;

  // The report through the view: the cells of "D3 at baseline" are links.
  const std::string served = run_chromium(server.url() + "/report", "--dump-dom", tmp.dir, log);
  check_console_clean(log);
  const auto table_at = served.find("<caption>D3 at baseline</caption>");
  REQUIRE(table_at != std::string::npos);
  const std::string table = served.substr(table_at, served.find("</table>", table_at) - table_at);
  std::smatch link;
  // <tr><td>mini</td><td>low</td><td class="num" data-answers="..."><a href="/?...">3.17 (6)</a></td></tr>
  REQUIRE(std::regex_search(table, link, std::regex(
      R"re(<tr><td>([^<]*)</td><td>([^<]*)</td><td class="num" data-answers="[^"]*"><a href="([^"]*)"[^>]*>[^<]*\((\d+)\)</a></td></tr>)re")));
  std::string model = link[1], level = link[2];
  const std::string href = unescaped(link[3]);
  const int n = std::stoi(link[4]);
  model = std::regex_replace(model, std::regex(" \\(simulated\\)$"), "");  // the report marks offline models
  // The table labels a level ("high health literacy (high)"); the link and the view use its name.
  if (std::smatch code; std::regex_search(level, code, std::regex(R"(\(([^()]*)\)$)"))) level = code[1];
  CHECK(href == "/?arm=baseline&model=" + model + "&literacy=" + level + "&scored_on=D3");
  CHECK(n > 0);
  run_chromium(server.url() + "/report", "--window-size=1280,1400 --screenshot=" + (artifacts / "report-served.png").string(),
               tmp.dir, log);
  check_console_clean(log);

  // Following the link: the view's list holds those answers and no other.
  const std::string answers = run_chromium(server.url() + href, "--dump-dom", tmp.dir, log);
  check_console_clean(log);
  INFO(href);
  CHECK(answers.find("1–" + std::to_string(n) + " of " + std::to_string(n) + " answers") != std::string::npos);
  static const std::regex row("<tr data-id=[^>]*>(.*?)</tr>");
  int rows = 0;
  for (auto r = std::sregex_iterator(answers.begin(), answers.end(), row); r != std::sregex_iterator(); ++r, ++rows) {
    // #, prompt, model, arm, literacy, tone, answer, judge, D1, D2, D3, Q2, Q3, flags, text
    const std::vector<std::string> cells = cells_of((*r)[1]);
    REQUIRE(cells.size() >= 11);
    CHECK(cells[2] == model);
    CHECK(cells[3] == "baseline");
    CHECK(cells[4] == level);
    CHECK(cells[7] == "scored");
    CHECK(cells[10] != "N/A");
  }
  CHECK(rows == n);
  // The filters show what was asked, so the reader sees why these answers.
  CHECK(answers.find("id=\"f-scored_on\"") != std::string::npos);
  run_chromium(server.url() + href, "--window-size=1400,1000 --screenshot=" + (artifacts / "view-from-report.png").string(),
               tmp.dir, log);
  check_console_clean(log);
  CHECK(fs::file_size(artifacts / "view-from-report.png") > 10000);
  CHECK(server.stop() == 0);

  // The same file opened from disk: the cells say which answers, but nothing links.
  const std::string from_disk = run_chromium("file://" + report.string(), "--dump-dom", tmp.dir, log);
  check_console_clean(log);
  CHECK(from_disk.find("<caption>D3 at baseline</caption>") != std::string::npos);
  CHECK(from_disk.find("data-answers=") != std::string::npos);
  // (The figures' menus hold links of their own: only the cells' count.)
  CHECK_FALSE(std::regex_search(from_disk, std::regex(R"re(data-answers="[^"]*"><a )re")));
  CHECK(from_disk.find("<a href=\"/?") == std::string::npos);
  CHECK(mirac::test::read_text(report).find("mirac-view-links") == std::string::npos);
}
