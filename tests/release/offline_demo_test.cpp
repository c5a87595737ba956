// offline_demo_test.cpp: the README's main job, `mirac run specs/mira.audit --offline`, on
// the authors' released prompts. Its answers are placeholders and its scores come from the
// spec's simulate block (the paper's Tables 17 and 18), so the demo must show the paper's
// directions: low health literacy worse (DTI_hls > 0), Chinese better for four of the five
// models (DTI_lang < 0, Llama the exception), mitigation better for all but DeepSeek.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"

namespace fs = std::filesystem;

namespace {

std::string release_dir() {
  const char* dir = std::getenv("MIRAC_RELEASE_DIR");
  return dir && fs::exists(fs::path(dir) / "prompts_all.jsonl") ? dir : "";
}

const nlohmann::json& named(const nlohmann::json& list, const std::string& name) {
  for (const auto& item : list)
    if (item.at("name") == name) return item;
  FAIL("no entry named " << name);
  return list;
}

double estimate(const nlohmann::json& contrast, const std::string& model) {
  for (const auto& g : contrast.at("groups"))
    if (g.at("model") == model) return g.at("estimate").get<double>();
  FAIL("no group for model " << model);
  return 0;
}

double fixed_effect(const nlohmann::json& lmm, const std::string& term) {
  for (const auto& f : lmm.at("fixed"))
    if (f.at("term") == term) return f.at("estimate").get<double>();
  FAIL("no term " << term);
  return 0;
}

}  // namespace

TEST_CASE("the offline MIRA demo reproduces the paper's directions, from placeholder answers") {
  const std::string release = release_dir();
  if (release.empty()) {
    MESSAGE("MIRAC_RELEASE_DIR not set or without the release: skipped");
    return;
  }
  const fs::path store = fs::temp_directory_path() / ("mirac_offline_demo_" + std::to_string(::getpid()));
  fs::remove_all(store);
  std::ostringstream out, err;
  const std::string spec = std::string(std::getenv("MIRAC_SOURCE_DIR")) + "/specs/mira.audit";
  const int code = mirac::run_cli({"run", spec, "--offline", "--data", release, "--store", store.string(),
                                   "--resamples", "200"},
                                  out, err);
  INFO(out.str() << err.str());
  REQUIRE(code == 0);
  std::ifstream in(store / "results/results.json");
  const nlohmann::json results = nlohmann::json::parse(in);
  CHECK(results.at("manifest").at("simulated") == true);

  const auto& contrasts = results.at("contrasts");
  for (const char* model : {"gpt", "claude", "deepseek", "qwen", "llama"}) {
    INFO(model);
    CHECK(estimate(named(contrasts, "DTI_hls"), model) > 0);  // low health literacy: more dilution
    if (std::string(model) == "llama") CHECK(estimate(named(contrasts, "DTI_lang"), model) > 0);
    else CHECK(estimate(named(contrasts, "DTI_lang"), model) < 0);  // Chinese: less dilution
  }

  const auto& analyses = results.at("analyses");
  for (const char* lmm : {"rq1_d3", "rq1_q2", "rq1_q3"}) {
    INFO(lmm);
    CHECK(fixed_effect(named(analyses, lmm), "hls=low") > 0);
    CHECK(fixed_effect(named(analyses, lmm), "language=zh") < 0);
  }

  // Mitigation minus baseline on D3 (Table 18): negative (better) for every model but DeepSeek.
  for (const auto& group : named(analyses, "rq4").at("comparisons")[0].at("groups")) {
    const std::string model = group.at("model");
    const double delta = group.at("dimensions").at("D3").at("mean_delta").get<double>();
    INFO(model << " " << delta);
    if (model == "deepseek") CHECK(delta > 0);
    else CHECK(delta < 0);
  }

  // No answer pretends to be medical advice: each is the placeholder in its prompt's script,
  // naming its model.
  std::ostringstream answers, answers_err;
  REQUIRE(mirac::run_cli({"export", spec, "responses", "--offline", "--data", release, "--store", store.string()}, answers,
                         answers_err) == 0);
  std::istringstream lines(answers.str());
  std::size_t rows = 0, bad_rows = 0;
  std::string bad;
  for (std::string line; std::getline(lines, line);) {
    const auto row = nlohmann::json::parse(line);
    const std::string text = row.at("text");
    const std::string placeholder = row.at("language") == "zh" ? "模拟回答" : "Simulated answer";
    const bool placeholder_of_its_model =
        text.find(placeholder) == 0 && text.find(row.at("model_string").get<std::string>()) != std::string::npos;
    if (!placeholder_of_its_model && bad.empty()) bad = text;
    bad_rows += placeholder_of_its_model ? 0 : 1;
    ++rows;
  }
  CHECK(rows == 43200);
  CHECK_MESSAGE(bad_rows == 0, "first answer that is not its placeholder: " << bad);
  fs::remove_all(store);
}
