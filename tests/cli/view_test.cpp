// view_test.cpp: `mirac view` as a process: after an offline run of the OTC example it
// prints its URL (the real port for --port 0), serves the page, the answers (counts as the
// plan's), one answer, matched pairs and the report; tells bad parameters apart with a
// message; refuses a missing store; and exits 0 on SIGTERM.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/view_server.hpp"

namespace {

using Json = nlohmann::json;

Json json_of(const mirac::test::HttpReply& r) {
  INFO(r.body);
  REQUIRE(r.content_type.find("application/json") == 0);
  return Json::parse(r.body);
}

}  // namespace

TEST_CASE("mirac view serves the answers, pairs and report of a run store, and stops on SIGTERM") {
  mirac::test::TempDir tmp("view_cli");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const std::string spec = std::string(root) + "/examples/otc/otc.audit", store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);

  mirac::test::ViewServer server({spec, "--offline", "--store", store}, tmp.dir / "view.log");
  const auto page = server.get("/");
  CHECK(page.status == 200);
  CHECK(page.content_type.find("text/html") == 0);
  CHECK(page.body.find("<table id=\"answers\">") != std::string::npos);
  CHECK(page.body.find("src=\"http") == std::string::npos);  // self-contained: nothing fetched from elsewhere

  const Json meta = json_of(server.get("/api/meta"));
  CHECK(meta["spec"] == "otc");
  CHECK(meta["requests"] == 48);
  CHECK(meta["scored"] == 48);
  CHECK(meta["models"] == Json::array({"mini", "local"}));
  CHECK(meta["has_report"] == true);

  const Json all = json_of(server.get("/api/answers?limit=10"));
  CHECK(all["total"] == 48);
  CHECK(all["rows"].size() == 10);
  const Json low = json_of(server.get("/api/answers?literacy=low&model=mini&limit=100"));
  CHECK(low["total"] == 12);
  for (const auto& r : low["rows"]) {
    CHECK(r["levels"]["literacy"] == "low");
    CHECK(r["model"] == "mini");
  }
  const Json one = json_of(server.get("/api/answer/5"));
  CHECK(one["id"] == 5);
  CHECK_FALSE(one["prompt"].get<std::string>().empty());
  CHECK_FALSE(one["text"].get<std::string>().empty());
  CHECK(one["scores"].size() == 5);

  const Json pairs = json_of(server.get("/api/pairs?factor=literacy&a=low&b=high&limit=100"));
  CHECK(pairs["total"] == 24);  // 3 seeds x 2 tones x 2 models x 2 arms
  REQUIRE(pairs["pairs"].size() == 24);
  std::size_t gaps = 0;
  for (const auto& p : pairs["pairs"]) {
    CHECK(p["a"]["seed"] == p["b"]["seed"]);
    CHECK(p["a"]["levels"]["tone"] == p["b"]["levels"]["tone"]);
    CHECK(p["a"]["levels"]["literacy"] == "low");
    CHECK(p["b"]["levels"]["literacy"] == "high");
    CHECK(p["diff"]["D3"] == p["a"]["scores"]["D3"].get<int>() - p["b"]["scores"]["D3"].get<int>());
    gaps += p["diff"]["D3"].get<int>() >= 2;
  }
  const Json fired = json_of(server.get("/api/pairs?flag=LITERACY_GAP&limit=100"));
  CHECK(fired["total"] == gaps);
  CHECK(fired["factor"] == "literacy");

  const auto bad = server.get("/api/answers?literacy=medium");
  CHECK(bad.status == 400);
  CHECK(json_of(bad)["error"] == "unknown level of literacy 'medium' (expected one of: high, low)");
  CHECK(server.get("/api/answer/4800").status == 404);
  const auto report = server.get("/report/report.html");
  CHECK(report.status == 200);
  CHECK(report.body.find("<html") != std::string::npos);
  // Served by the view, the page has the script that makes its means links to the answers;
  // the file on disk has not.
  CHECK(report.body.find("<script id=\"mirac-view-links\">") != std::string::npos);
  CHECK(report.body.find("</script>\n</body>\n</html>\n") != std::string::npos);
  CHECK(report.body.find("data-answers=\"model=mini&amp;arm=baseline&amp;scored_on=D3\"") != std::string::npos);
  CHECK(mirac::test::read_text(std::filesystem::path(store) / "results" / "report.html").find("mirac-view-links") == std::string::npos);
  CHECK(server.get("/report").status == 302);
  CHECK(server.get("/report/report-none.html").status == 404);

  CHECK(server.stop() == 0);
  CHECK(server.log().find("mirac view: stopped") != std::string::npos);
}

TEST_CASE("mirac view without a run store says so") {
  mirac::test::TempDir tmp("view_cli_none");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  auto r = mirac::test::invoke({"view", std::string(root) + "/examples/otc/otc.audit", "--store", tmp.path("nothing")});
  CHECK(r.code == 2);
  CHECK(r.err.find("mirac view: no run store at") != std::string::npos);
}
