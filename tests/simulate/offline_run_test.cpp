// offline_run_test.cpp: an offline run of a spec with a simulate block is a simulated audit
// (tests/simulate/fixtures/offline.audit): the answers are placeholders in the prompt's
// own script, and the judge's scores are those the Simulator draws for replicate 0,
// rounded and clipped to the scale, N/A where the rubric's rule says so (a judge's N/A
// must follow the rubric; the block's own N/A rate applies to `mirac simulate` only).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "interpreter/driver.hpp"
#include "interpreter/scores/simulate.hpp"
#include "runtime/stats/bootstrap.hpp"

#include "tests/simulate/simulate_support.hpp"

using simulate_test::fixture;
using simulate_test::jsonl;

namespace fs = std::filesystem;

TEST_CASE("an offline run follows the simulate block: placeholder answers, declared scores") {
  const fs::path store = fs::temp_directory_path() / ("mirac_sim_offline_" + std::to_string(::getpid()));
  fs::remove_all(store);
  const std::string spec = fixture("offline.audit").string();
  std::ostringstream out, err;
  REQUIRE_MESSAGE(mirac::run_cli({"run", spec, "--offline", "--store", store.string(), "--resamples", "50"}, out, err) == 0,
                  out.str() << err.str());

  // The answers: one placeholder sentence each, in Japanese for the Japanese prompts.
  std::ostringstream answers, quiet;
  REQUIRE(mirac::run_cli({"export", spec, "responses", "--offline", "--store", store.string()}, answers, quiet) == 0);
  const auto responses = jsonl(answers.str());
  REQUIRE(responses.size() == 24);  // 3 seeds x 4 cells x 2 models
  for (const auto& r : responses) {
    const std::string text = r.at("text");
    INFO(text);
    CHECK(text.rfind(r.at("language") == "ja" ? "シミュレーションの回答" : "Simulated answer", 0) == 0);
    CHECK(text.find(r.at("model_string").get<std::string>()) != std::string::npos);
  }

  // The scores: the Simulator's replicate 0, as a judge gives them.
  std::ostringstream scored;
  REQUIRE(mirac::run_cli({"export", spec, "scores", "--offline", "--store", store.string()}, scored, quiet) == 0);
  const auto scores = jsonl(scored.str());
  REQUIRE(scores.size() == 24);

  mirac::CheckOptions options;
  options.offline = true;
  auto c = mirac::compile(spec, options);
  REQUIRE(c->ok());
  mirac::analyze::Simulator simulator(c->spec, mirac::analyze::score_dimensions(c->spec));
  const std::uint64_t stream = mirac::stats::stream_seed(simulator.seed(), "replicate/0");
  std::size_t compared = 0, na = 0;
  for (const auto& request : c->plan.requests) {
    const auto row = mirac::analyze::score_row_of(c->spec, c->plan, request);
    const std::vector<double> expected = simulator.judged_scores_of(row, stream);
    // The same draws as replicate 0 of `mirac simulate`, but for the block's own N/A.
    const std::vector<double> drawn = simulator.scores_of(row, stream);
    for (std::size_t d = 0; d < drawn.size(); ++d)
      if (!std::isnan(drawn[d]) && !std::isnan(expected[d])) CHECK(drawn[d] == expected[d]);
    const nlohmann::json* found = nullptr;
    for (const auto& s : scores)
      if (s.at("hash") == request.hash()) found = &s;
    REQUIRE(found != nullptr);
    for (const auto& dim : simulator.dimensions()) {
      const double e = expected[static_cast<std::size_t>(dim.dim)];
      const auto& got = found->at(dim.name);
      CAPTURE(dim.name);
      if (std::isnan(e)) {
        CHECK(got.is_null());
        ++na;
      } else {
        REQUIRE(got.is_number());
        CHECK(got.get<double>() == std::clamp(std::round(e), 1.0, 5.0));
        ++compared;
      }
    }
  }
  // D3 is scored everywhere (the block's N/A rate is not the judge's to follow), Q3 where
  // D3 is not 5 (the rubric's rule).
  std::size_t d3_is_5 = 0;
  for (const auto& s : scores) d3_is_5 += s.at("D3").is_number() && s.at("D3").get<double>() == 5 ? 1 : 0;
  CHECK(d3_is_5 > 0);
  CHECK(na == d3_is_5);
  CHECK(compared == 48 - d3_is_5);

  // The report says where its numbers come from.
  std::ifstream report(store / "results/report.md");
  std::stringstream md;
  md << report.rdbuf();
  CHECK(md.str().find("the scores were drawn from the declared effects of the spec's `simulate` block") !=
        std::string::npos);
  fs::remove_all(store);
}
