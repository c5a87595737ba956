// manifest_cli_test.cpp: results.json's manifest through the real binary. From a scores
// file (`mirac analyze --scores`) it claims no simulation and nothing of a store, lists the
// table an analysis read, and its plan digest is the one `mirac plan --show plan` gives;
// from an offline run it says the answers were simulated, in results.json and in every CSV.
#include <doctest/doctest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "runtime/hash/hash.hpp"
#include "mirac_binary.hpp"

namespace {

using Json = nlohmann::json;

std::filesystem::path source_dir() {
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  return root;
}

std::filesystem::path small_spec() { return source_dir() / "tests/analyze/reference/small.audit"; }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("analyze --scores FILE: not simulated, nothing from a store, the plan digest of `mirac plan`") {
  mirac::test::TempDir tmp("manifest_scores");
  const std::string scores = (source_dir() / "tests/analyze/reference/scores_small.csv").string();
  auto analyzed = mirac::test::invoke(
      {"analyze", small_spec().string(), "--scores", scores, "--out", tmp.path("out"), "--resamples", "50"});
  INFO(analyzed.err);
  REQUIRE(analyzed.code == 0);
  const Json m = Json::parse(mirac::test::read_text(std::filesystem::path(tmp.path("out")) / "results.json"))["manifest"];
  CHECK(m["simulated"] == false);
  CHECK(m["simulated_models"] == Json::array());
  REQUIRE(m["models"].size() == 3);
  for (const auto& model : m["models"]) CHECK(model["returned"].is_null());
  CHECK(m["models"][0] == Json{{"name", "gpt"}, {"provider", "openai"}, {"model", "gpt-5.4"}, {"returned", nullptr}});
  CHECK(m["judges"][0]["rubric_sha256"].get<std::string>().size() == 64);
  CHECK(m["dates"]["analyzed_at"].is_string());
  CHECK(m["dates"]["first_answer_at"].is_null());
  CHECK(m["dates"]["last_answer_at"].is_null());
  // The spearman analysis's external table is read by the analysis, and is an input too.
  bool external = false;
  for (const auto& i : m["inputs"]) external = external || ends_with(i["path"].get<std::string>(), "external.csv");
  CHECK(external);

  auto plan = mirac::test::invoke({"plan", small_spec().string(), "--show", "plan"});
  REQUIRE(plan.code == 0);
  const Json requests = Json::parse(plan.out)["request_table"];
  std::string hashes;
  for (const auto& r : requests) hashes += (hashes.empty() ? "" : "\n") + r["hash"].get<std::string>();
  CHECK(m["plan"]["requests"] == requests.size());
  CHECK(m["plan"]["request_digest"] == mirac::sha256_hex(hashes));

  const std::string means = mirac::test::read_text(std::filesystem::path(tmp.path("out")) / "means.csv");
  CHECK(means.rfind("# mirac ", 0) == 0);
  CHECK(means.find("# scores sha256 " + m["scores"]["sha256"].get<std::string>() + "\n") != std::string::npos);
  CHECK(means.find("SIMULATED") == std::string::npos);
  CHECK(mirac::test::csv_table(means).rfind("model,arm,dimension,", 0) == 0);
}

TEST_CASE("mirac run --offline: the manifest and every CSV say the answers are simulated") {
  mirac::test::TempDir tmp("manifest_offline");
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke(
      {"run", (source_dir() / "examples/otc/otc.audit").string(), "--offline", "--store", store, "--resamples", "50"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const auto results = std::filesystem::path(store) / "results";
  const Json m = Json::parse(mirac::test::read_text(results / "results.json"))["manifest"];
  CHECK(m["simulated"] == true);
  CHECK(m["simulated_models"] == Json::array({"mini", "local"}));
  std::size_t returned = 0;
  for (const auto& model : m["models"])
    for (const auto& r : model["returned"]) returned += r["answers"].get<std::size_t>();
  CHECK(returned == 48);
  for (const char* csv : {"scores.csv", "means.csv", "contrasts.csv"}) {
    CAPTURE(csv);
    CHECK(mirac::test::read_text(results / csv)
              .find("\n# SIMULATED answers (offline provider): not findings about any real model\n") !=
          std::string::npos);
  }
}
