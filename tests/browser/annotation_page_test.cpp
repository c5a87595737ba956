// annotation_page_test.cpp: the annotation page of `mirac annotate sample` in headless
// Chromium (Debian's `chromium`): it loads from the file with no console error, a person's
// clicks on its score buttons (driven by a script the test adds to a copy of the page)
// enter scores, Save CSV gives the sheet, and `mirac annotate import` stores it; an
// agreement analysis of the judge against those human scores then gives the values
// recomputed here. Screenshots go to $MIRAC_ARTIFACT_DIR.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/stats/agreement.hpp"
#include "tests/browser/chromium.hpp"
#include "tests/cli/mirac_binary.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

using browser_test::run_chromium;

// The planted score of an item's dimension: what the scripted annotator clicks.
int planted(int item, int dim) { return 1 + (item * 7 + dim * 3) % 5; }

// Added to a copy of the page: records every error, then clicks as a person would.
const char* kErrorCapture = R"js(<script>
window.__errors = [];
window.addEventListener('error', (e) => window.__errors.push('error: ' + e.message));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push('console.error: ' + a.join(' ')); __consoleError(...a); };
</script>)js";

const char* kDriver = R"js(<script>
(function () {
  const data = JSON.parse(document.getElementById('annotation-data').textContent);
  data.items.forEach((item, i) => {
    data.dims.forEach((d, k) => {
      const value = String(1 + (item.item * 7 + k * 3) % 5);
      const button = document.querySelector('button[data-dim="' + d.name + '"][data-value="' + value + '"]');
      if (!button) { window.__errors.push('no button ' + d.name + ' ' + value); return; }
      button.click();
    });
    const comment = document.getElementById('comment');
    comment.value = 'checked, item ' + item.item;
    comment.dispatchEvent(new Event('input'));
    if (i + 1 < data.items.length) document.getElementById('next').click();
  });
  document.getElementById('save').click();
  const report = document.createElement('pre');
  report.id = 'test-errors';
  report.textContent = window.__errors.join('\n');
  document.body.append(report);
})();
</script>)js";

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) s.replace(at, std::strlen(from), to);
  return s;
}

std::string between(const std::string& text, const std::string& open, const std::string& close) {
  const auto a = text.find(open);
  REQUIRE(a != std::string::npos);
  const auto b = text.find(close, a + open.size());
  REQUIRE(b != std::string::npos);
  return text.substr(a + open.size(), b - a - open.size());
}

}  // namespace

TEST_CASE("the annotation page loads, takes scores, saves a sheet that imports, and feeds an agreement analysis") {
  mirac::test::TempDir tmp("annotation_page");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  std::string spec_text = mirac::test::read_text(fs::path(root) / "examples/otc/otc.audit");
  const std::string judge_line = "judge judge = openai(\"gpt-5.4-mini\") { rubric mira temperature 0 }";
  const auto at = spec_text.find(judge_line);
  REQUIRE(at != std::string::npos);
  spec_text.insert(at + judge_line.size(), "\nanalysis judge_human = agreement(D1, D3, Q2) { raters judge vs human.alice }");
  const std::string spec = tmp.path("otc.audit"), store = tmp.path("run"), sample_dir = tmp.path("sample");
  std::ofstream(spec) << spec_text;
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  auto sample = mirac::test::invoke({"annotate", "sample", spec, "--offline", "--store", store, "--n", "12", "--stratify",
                                     "model,literacy", "--seed", "7", "-o", sample_dir});
  INFO(sample.out << sample.err);
  REQUIRE(sample.code == 0);
  CHECK(sample.out.find("12 of 48 stored answers, proportional allocation over 4 strata (model x literacy)") !=
        std::string::npos);

  // The page as written: loads without an error; a screenshot for people.
  const fs::path artifacts = std::getenv("MIRAC_ARTIFACT_DIR") ? fs::path(std::getenv("MIRAC_ARTIFACT_DIR")) : fs::path(tmp.path("artifacts"));
  fs::create_directories(artifacts);
  const fs::path page = fs::path(sample_dir) / "annotate.html";
  std::string log;
  run_chromium("file://" + page.string(), "--window-size=1280,1400 --screenshot=" + (artifacts / "annotation-page.png").string(),
               tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(fs::file_size(artifacts / "annotation-page.png") > 10000);
  const std::string dom = run_chromium("file://" + page.string(), "--dump-dom --virtual-time-budget=3000", tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(dom.find("Answer 1 of 12") != std::string::npos);
  CHECK(dom.find("<div id=\"simulated-banner\" role=\"alert\">Simulated answers") != std::string::npos);  // an offline store
  CHECK(dom.find("0 of 12 complete") != std::string::npos);
  CHECK(dom.find("data-value=\"N/A\"") != std::string::npos);  // D2 may be N/A under the MIRA rubric

  // A scripted annotator clicks through every answer and saves.
  std::string html = mirac::test::read_text(page);
  html.insert(html.find("<style>"), kErrorCapture);
  html.insert(html.rfind("</body>"), kDriver);
  const fs::path driven = tmp.dir / "driven.html";
  std::ofstream(driven) << html;
  const std::string after = run_chromium("file://" + driven.string(), "--dump-dom --virtual-time-budget=3000", tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(unescape(between(after, "<pre id=\"test-errors\">", "</pre>")).empty());
  CHECK(after.find("12 of 12 complete") != std::string::npos);
  run_chromium("file://" + driven.string(), "--window-size=1280,1400 --virtual-time-budget=3000 --screenshot=" + (artifacts / "annotation-page-scored.png").string(), tmp.dir, log);
  const std::string csv = unescape(between(after, "aria-label=\"saved CSV\">", "</textarea>"));
  REQUIRE(csv.rfind("item,id,prompt_id,D1,D2,D3,Q2,Q3,comment\n", 0) == 0);
  const fs::path saved = tmp.dir / "alice.csv";
  std::ofstream(saved) << csv;

  auto imported = mirac::test::invoke({"annotate", "import", spec, saved.string(), "--annotator", "alice", "--offline",
                                       "--store", store});
  INFO(imported.out << imported.err);
  REQUIRE(imported.code == 0);
  CHECK(imported.out.find("60 scores of 12 answers stored for annotator alice") != std::string::npos);

  // The agreement of the judge with alice, against a recomputation from the planted clicks.
  auto analyzed = mirac::test::invoke({"analyze", spec, "--offline", "--store", store, "--out", tmp.path("out"),
                                       "--resamples", "100"});
  INFO(analyzed.err);
  REQUIRE(analyzed.code == 0);
  auto scores = mirac::test::invoke({"export", spec, "scores", "--offline", "--store", store});
  std::map<std::string, Json> judge;
  std::istringstream lines(scores.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) {
      Json row = Json::parse(line);
      judge[row["hash"].get<std::string>()] = row;
    }
  std::map<std::string, int> item_of;
  std::istringstream sheet(csv);
  std::string line;
  std::getline(sheet, line);
  while (std::getline(sheet, line)) {
    const auto comma = line.find(','), second = line.find(',', comma + 1);
    item_of[line.substr(comma + 1, second - comma - 1)] = std::stoi(line.substr(0, comma));
  }
  REQUIRE(item_of.size() == 12);
  const Json results = Json::parse(mirac::test::read_text(fs::path(tmp.path("out")) / "results.json"));
  const Json* agreement = nullptr;
  for (const auto& a : results["analyses"])
    if (a["name"] == "judge_human") agreement = &a;
  REQUIRE(agreement != nullptr);
  REQUIRE_MESSAGE(!agreement->contains("error"), agreement->dump());
  const std::vector<std::string> dims = {"D1", "D2", "D3", "Q2", "Q3"};
  for (const auto& entry : (*agreement)["results"]) {
    const std::string dim = entry["dimension"];
    const int k = static_cast<int>(std::find(dims.begin(), dims.end(), dim) - dims.begin());
    std::vector<double> xs, ys;
    std::size_t na = 0;
    for (const auto& [hash, item] : item_of) {
      const Json& j = judge.at(hash)[dim];
      if (j.is_null()) {
        ++na;
        continue;
      }
      xs.push_back(j.get<double>());
      ys.push_back(planted(item, k));
    }
    const Json& pair = entry["pairs"][0];
    INFO(dim << " " << pair.dump());
    CHECK(pair["raters"] == Json::array({"judge", "human.alice"}));
    CHECK(pair["n"] == xs.size());
    CHECK(pair["na_pairs"] == na);
    double exact = 0, error_sum = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) exact += xs[i] == ys[i], error_sum += xs[i] - ys[i];
    CHECK(pair["exact"].get<double>() == doctest::Approx(exact / static_cast<double>(xs.size())));
    CHECK(pair["mean_signed_error"].get<double>() == doctest::Approx(error_sum / static_cast<double>(xs.size())));
    const std::vector<double> labels = {1, 2, 3, 4, 5};
    const double qwk = mirac::stats::quadratic_weighted_kappa(xs, ys, labels);
    if (std::isnan(qwk)) CHECK(pair["qwk"].is_null());
    else CHECK(pair["qwk"].get<double>() == doctest::Approx(qwk));
  }
}
