// answers_test.cpp: several answers per prompt (`answers 3`, issue 28), offline, on
// tests/simulate/fixtures/answers.audit. The K answers are distinct requests (answer 0's is
// the request of a spec without `answers`), each stored and judged, resumed without
// sending anything again, exported and analysed with their place; and the pair flag's
// noise floor recovers the rate the simulate block plants between two answers to the same
// prompt.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "interpreter/driver.hpp"
#include "interpreter/plan/plan.hpp"
#include "runtime/hash/hash.hpp"

#include "tests/simulate/simulate_support.hpp"

using simulate_test::fixture;
using simulate_test::jsonl;

namespace fs = std::filesystem;

namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The planted noise floor of `abs(a.D1 - b.D1) >= 2`: two answers to one prompt share its
// mean mu = 3 + seed part + prompt part (SD 0.5 each) and differ by their own N(0, 1) draws,
// each rounded and clipped to 1..5 as the judge replies. Integrated over mu on a fine grid.
double planted_rate() {
  const double mu_sd = std::sqrt(0.5 * 0.5 + 0.5 * 0.5);
  double rate = 0, weight = 0;
  for (int g = -4000; g <= 4000; ++g) {
    const double z = g / 500.0, mu = 3 + mu_sd * z, w = std::exp(-0.5 * z * z);
    double p[6] = {0, 0, 0, 0, 0, 0};  // P(score = j), j = 1..5
    for (int j = 1; j <= 5; ++j) {
      const double below = j == 1 ? 0 : normal_cdf(j - 0.5 - mu), above = j == 5 ? 1 : normal_cdf(j + 0.5 - mu);
      p[j] = above - below;
    }
    double r = 0;
    for (int i = 1; i <= 5; ++i)
      for (int j = 1; j <= 5; ++j)
        if (std::abs(i - j) >= 2) r += p[i] * p[j];
    rate += w * r;
    weight += w;
  }
  return rate / weight;
}

struct Cli {
  int code;
  std::string out, err;
};
Cli cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = mirac::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("answers K: K distinct requests per prompt; answer 0 is the request a spec without it makes") {
  mirac::CheckOptions one, three;
  one.offline = three.offline = true;
  one.answers = 1;
  auto single = mirac::compile(fixture("answers.audit"), one);
  auto triple = mirac::compile(fixture("answers.audit"), three);
  REQUIRE(single->ok());
  REQUIRE(triple->ok());
  REQUIRE(triple->spec.answers == 3);
  REQUIRE(single->plan.requests.size() == 400);
  REQUIRE(triple->plan.requests.size() == 1200);
  std::set<std::string> hashes;
  for (std::size_t i = 0; i < triple->plan.requests.size(); ++i) {
    const auto& r = triple->plan.requests[i];
    CHECK(r.call().answer == static_cast<int>(i % 3));
    CHECK(r.hash() == mirac::sha256_hex(mirac::canonical_request(r.call()).dump()));
    hashes.insert(r.hash());
    // Answer 0 of every prompt is the one request of the single-answer plan.
    if (r.call().answer == 0) CHECK(r.hash() == single->plan.requests[i / 3].hash());
    CHECK(mirac::canonical_request(r.call()).contains("answer") == (r.call().answer > 0));
  }
  CHECK(hashes.size() == 1200);
}

TEST_CASE("a declared seed goes up by the answer's place, so each answer is drawn apart") {
  const fs::path dir = fs::temp_directory_path() / ("mirac_answers_seed_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ifstream in(fixture("answers.audit"));
  std::stringstream text;
  text << in.rdbuf();
  std::string spec = text.str();
  spec.replace(spec.find("{ temperature 1 }"), 17, "{ temperature 1 seed 40 }");
  std::ofstream(dir / "seeded.audit") << spec;
  fs::copy_file(fixture("answers_seeds.csv"), dir / "answers_seeds.csv", fs::copy_options::overwrite_existing);
  mirac::CheckOptions options;
  auto c = mirac::compile(dir / "seeded.audit", options);
  REQUIRE(c->ok());
  for (std::size_t k = 0; k < 3; ++k) CHECK(c->plan.requests[k].target->params.at("seed") == 40 + static_cast<int>(k));
  fs::remove_all(dir);
}

TEST_CASE("three answers per prompt run, resume, export and analyse; the noise floor recovers the planted rate") {
  const fs::path store = fs::temp_directory_path() / ("mirac_answers_" + std::to_string(::getpid()));
  fs::remove_all(store);
  const std::string spec = fixture("answers.audit").string();
  const std::vector<std::string> where = {"--offline", "--store", store.string()};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), where.begin(), where.end());
    return cli(args);
  };
  Cli run = with({"run", spec, "--resamples", "50"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);

  // Each answer stored once, with its place; the three answers to a prompt differ.
  Cli responses = with({"export", spec, "responses"});
  REQUIRE(responses.code == 0);
  const auto answers = jsonl(responses.out);
  REQUIRE(answers.size() == 1200);
  std::map<std::string, std::set<std::string>> texts;  // prompt -> its answers' texts
  for (const auto& a : answers) {
    REQUIRE(a.contains("answer"));
    texts[a.at("prompt_id").get<std::string>()].insert(a.at("text").get<std::string>());
  }
  REQUIRE(texts.size() == 400);
  for (const auto& [prompt, t] : texts) CHECK(t.size() == 3);

  // Every answer judged apart.
  Cli scores = with({"export", spec, "scores"});
  REQUIRE(scores.code == 0);
  CHECK(jsonl(scores.out).size() == 1200);

  // A second run has nothing to send or judge.
  Cli again = with({"run", spec, "--resamples", "50"});
  INFO(again.out << again.err);
  REQUIRE(again.code == 0);
  Cli status = with({"status", spec, "--json"});
  REQUIRE(status.code == 0);
  const nlohmann::json st = nlohmann::json::parse(status.out);
  INFO(st.dump());
  CHECK(st.at("all").at("done") == 1200);
  CHECK(again.out.find("1200 already answered, 0 sent (0 attempts)") != std::string::npos);
  CHECK(again.out.find("judge grader: 1200 answers, 1200 scored") != std::string::npos);

  // The scores file holds an `answer` column and analyses again to the same results.
  const fs::path results = store / "results";
  std::ifstream csv_in(results / "scores.csv");
  std::string header;
  while (std::getline(csv_in, header) && header.rfind("#", 0) == 0) {
  }
  CHECK(header == "seed,model,arm,tone,answer,D1");

  const nlohmann::json r = nlohmann::json::parse(std::ifstream(results / "results.json"));
  const nlohmann::json* flag = nullptr;
  for (const auto& f : r.at("flags"))
    if (f.at("name") == "TONE_FLAG") flag = &f;
  REQUIRE(flag != nullptr);
  INFO(flag->dump());
  const auto& cell = flag->at("by_model_arm").at(0);
  // Answer k of one tone pairs with answer k of the other: 200 seeds x 3 answers.
  CHECK(cell.at("pairs") == 600);
  const auto& floor = cell.at("noise_floor");
  // Ordered pairs of two answers to one prompt: 400 prompts x 3 x 2.
  CHECK(floor.at("answer_pairs") == 2400);
  // Tolerance: 4 standard errors of a rate over 1,200 unordered pairs (each counted both
  // ways), which overstates their independence only a little (three pairs share a prompt).
  const double truth = planted_rate(), rate = floor.at("rate").get<double>();
  const double se = std::sqrt(truth * (1 - truth) / 1200.0);
  CAPTURE(truth);
  CAPTURE(rate);
  CHECK(std::fabs(rate - truth) < 4 * se);
  // Two tones' answers differ by their prompts' own parts as well: no tone effect is
  // planted, yet the flag fires more often than between reruns of one prompt.
  CHECK(cell.at("rate").get<double>() > rate);

  // The contrast's noise floor: WARM on each answer alone (every prompt's k-th), and the
  // mean distance between two of them, recomputed here from the scores file.
  {
    std::ifstream scores_csv(results / "scores.csv");
    double sum[3][2] = {{0, 0}, {0, 0}, {0, 0}}, n[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    for (std::string line; std::getline(scores_csv, line);) {
      if (line.empty() || line[0] == '#' || line.rfind("seed,", 0) == 0) continue;
      std::vector<std::string> cells;
      std::stringstream fields(line);
      for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
      REQUIRE(cells.size() == 6);
      const int k = std::stoi(cells[4]) - 1, warm = cells[3] == "warm" ? 1 : 0;
      sum[k][warm] += std::stod(cells[5]);
      n[k][warm] += 1;
    }
    double c[3], expected = 0;
    for (int k = 0; k < 3; ++k) c[k] = sum[k][1] / n[k][1] - sum[k][0] / n[k][0];
    expected = (std::fabs(c[0] - c[1]) + std::fabs(c[0] - c[2]) + std::fabs(c[1] - c[2])) / 3;
    const auto& group = r.at("contrasts").at(0).at("groups").at(0);
    INFO(group.dump());
    CHECK(group.at("noise_floor").at("answers") == 3);
    CHECK(group.at("noise_floor").at("value").get<double>() == doctest::Approx(expected).epsilon(1e-12));
    CHECK(expected > 0);
  }

  // The variance split recovers the planted parts: seed 0.25, prompt 0.25, answer 1 (less
  // what rounding to whole scores and clipping to 1..5 add and take away).
  const nlohmann::json* split = nullptr;
  for (const auto& a : r.at("analyses"))
    if (a.at("name") == "split") split = &a;
  REQUIRE(split != nullptr);
  INFO(split->dump());
  REQUIRE(split->at("random").size() == 2);
  CHECK(split->at("random").at(1).at("group") == "prompt");
  CHECK(split->at("random").at(1).at("groups") == 400);
  const double seed_var = split->at("random").at(0).at("variance"), prompt_var = split->at("random").at(1).at("variance");
  const double answer_var = split->at("residual_variance");
  CHECK(seed_var > 0.1);
  CHECK(seed_var < 0.4);
  CHECK(prompt_var > 0.1);
  CHECK(prompt_var < 0.4);
  CHECK(answer_var > 0.8);
  CHECK(answer_var < 1.2);
  const auto& shares = split->at("variance_shares");
  CHECK(shares.at("seed").get<double>() + shares.at("prompt").get<double>() + shares.at("residual").get<double>() ==
        doctest::Approx(1.0));

  Cli analyze = cli({"analyze", spec, "--scores", (results / "scores.csv").string(), "--out", (store / "again").string(),
                     "--resamples", "50"});
  INFO(analyze.err);
  REQUIRE(analyze.code == 0);
  const nlohmann::json again_results = nlohmann::json::parse(std::ifstream(store / "again" / "results.json"));
  CHECK(again_results.at("flags") == r.at("flags"));
  fs::remove_all(store);
}

TEST_CASE("off a terminal, mirac simulate prints a progress line per ten seconds, not one per replicate; it takes the spec's answers") {
  const fs::path out_dir = fs::temp_directory_path() / ("mirac_answers_power_" + std::to_string(::getpid()));
  Cli sim = cli({"simulate", fixture("answers.audit").string(), "--seeds", "12", "--replicates", "40", "--resamples", "20",
                 "--out", out_dir.string()});
  INFO(sim.out << sim.err);
  REQUIRE(sim.code == 0);
  std::size_t progress_lines = 0;
  std::istringstream lines(sim.err);
  for (std::string line; std::getline(lines, line);) progress_lines += line.rfind("simulate ", 0) == 0 ? 1 : 0;
  // The first report and the last; a slow machine may add one per ten seconds.
  CHECK(progress_lines >= 2);
  CHECK(progress_lines < 10);
  // Without --answers the power study takes the spec's three answers per prompt.
  const nlohmann::json power = nlohmann::json::parse(std::ifstream(out_dir / "power.json"));
  CHECK(power.at("answers_per_prompt") == 3);
  fs::remove_all(out_dir);
}
