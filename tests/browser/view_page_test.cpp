// view_page_test.cpp: the page of `mirac view` in headless Chromium (Debian's `chromium`),
// served by the real binary over an offline run of the OTC example: the answers table fills
// with rows and the pair view shows two answers side by side, with no error on the page
// (it records its own errors in #page-errors) or in Chromium's console log. Screenshots go
// to $MIRAC_ARTIFACT_DIR.
#include <doctest/doctest.h>

#include <cstdlib>
#include <regex>

#include "tests/browser/chromium.hpp"
#include "tests/cli/view_server.hpp"

namespace {

namespace fs = std::filesystem;

// The view is served on loopback: no proxy may stand between.
std::string run_chromium(const std::string& url, const std::string& flags, const fs::path& dir, std::string& log) {
  return browser_test::run_chromium(url, "--no-proxy-server " + flags, dir, log);
}

// The page logs nothing to the console, so any console line or uncaught error is a problem.
void check_console_clean(const std::string& log) {
  INFO(log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(log.find(":CONSOLE(") == std::string::npos);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string page_errors(const std::string& dom) {
  std::smatch m;
  REQUIRE(std::regex_search(dom, m, std::regex("<pre id=\"page-errors\"[^>]*>([^<]*)</pre>")));
  return m[1];
}

}  // namespace

TEST_CASE("the mirac view page lists answers and shows a pair side by side, with no console error") {
  mirac::test::TempDir tmp("view_page");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = std::string(root) + "/examples/otc/otc.audit", store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  mirac::test::ViewServer server({spec, "--offline", "--store", store}, tmp.dir / "view.log");
  const fs::path artifacts = std::getenv("MIRAC_ARTIFACT_DIR") ? fs::path(std::getenv("MIRAC_ARTIFACT_DIR"))
                                                                : fs::path(tmp.path("artifacts"));
  fs::create_directories(artifacts);
  std::string log;

  // The answers: a page of 50 rows of the 48 answers, filtered to one model's 24.
  const std::string answers = run_chromium(server.url() + "/", "--dump-dom --virtual-time-budget=5000", tmp.dir, log);
  check_console_clean(log);
  CHECK(page_errors(answers).empty());
  CHECK(answers.find("1–48 of 48 answers") != std::string::npos);
  CHECK(count(answers, "<tr data-id=") == 48);
  // An offline store: the banner is shown, not hidden.
  CHECK(answers.find("<div id=\"simulated-banner\" role=\"alert\" class=\"\">Simulated answers") != std::string::npos);
  const std::string mini = run_chromium(server.url() + "/?model=mini", "--dump-dom --virtual-time-budget=5000", tmp.dir, log);
  check_console_clean(log);
  CHECK(count(mini, "<tr data-id=") == 24);
  run_chromium(server.url() + "/", "--window-size=1400,1000 --virtual-time-budget=5000 --screenshot=" +
                                       (artifacts / "view-answers.png").string(), tmp.dir, log);
  check_console_clean(log);
  CHECK(fs::file_size(artifacts / "view-answers.png") > 10000);

  // The pairs of a pair flag: each a block with two sides, low and high literacy.
  const std::string pairs_url = server.url() + "/?view=pairs&factor=literacy&a=low&b=high";
  const std::string pairs = run_chromium(pairs_url, "--dump-dom --virtual-time-budget=5000", tmp.dir, log);
  check_console_clean(log);
  CHECK(page_errors(pairs).empty());
  CHECK(pairs.find("24 pairs literacy: low vs high") != std::string::npos);
  CHECK(count(pairs, "class=\"pair\"") == 10);  // the first page of pairs
  CHECK(count(pairs, "class=\"side side-a\"") == 10);
  CHECK(count(pairs, "class=\"side side-b\"") == 10);
  CHECK(count(pairs, "class=\"text answer\"") == 20);
  run_chromium(pairs_url, "--window-size=1400,1400 --virtual-time-budget=5000 --screenshot=" +
                              (artifacts / "view-pairs.png").string(), tmp.dir, log);
  check_console_clean(log);
  CHECK(fs::file_size(artifacts / "view-pairs.png") > 10000);

  const std::string flagged = run_chromium(server.url() + "/?view=pairs&flag=LITERACY_GAP",
                                           "--dump-dom --virtual-time-budget=5000", tmp.dir, log);
  check_console_clean(log);
  CHECK(page_errors(flagged).empty());
  CHECK(flagged.find("on which LITERACY_GAP fires") != std::string::npos);
  CHECK(server.stop() == 0);
}
