// recovery_test.cpp: `mirac simulate` recovers effects planted in a simulate block
// (tests/simulate/fixtures/recovery.audit): HLS +0.15, language -0.15, their interaction 0,
// on scores neither rounded nor clipped, so that the mixed model is the model the scores
// come from. Every check allows four Monte Carlo standard errors.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/audit.hpp"
#include "engine/simulate/power.hpp"

#include "tests/simulate/simulate_support.hpp"

using simulate_test::fixture;

namespace {

const mirac::QuantitySummary* find(const mirac::PowerStudy& s, const std::string& source, const std::string& label,
                                   std::size_t seeds) {
  for (const auto& q : s.quantities)
    if (q.source == source && q.label == label && q.seeds == seeds) return &q;
  return nullptr;
}

mirac::Audit open(const std::string& name) {
  mirac::AuditOptions o;
  o.spec = fixture(name);
  o.offline = true;
  mirac::Audit audit = mirac::open_audit(o);
  REQUIRE(audit.ok());
  return audit;
}

}  // namespace

TEST_CASE("planted effects are recovered: bias, coverage and type I error within Monte Carlo error") {
  mirac::Audit audit = open("recovery.audit");
  mirac::PowerOptions options;
  options.replicates = 120;
  options.seeds = {20, 60};
  options.resamples = 200;
  std::atomic<bool> cancel{false};
  const mirac::PowerStudy study = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  CHECK(study.replicates == 120);
  CHECK(study.answers_per_design_seed == 4);
  CHECK(study.skipped.empty());

  struct Planted {
    const char* source;
    const char* label;
    double truth;
  };
  const Planted planted[] = {{"fit", "hls=low", 0.15},
                             {"fit", "language=zh", -0.15},
                             {"fit", "language=zh:hls=low", 0.0},
                             {"fit", "(Intercept)", 2.5},
                             {"HLS", "", 0.15},
                             {"LANG", "", -0.15},
                             {"by_hls", "hls: low vs high | D3", 0.15 + 0.0 / 2}};
  for (std::size_t seeds : {std::size_t{20}, std::size_t{60}}) {
    for (const auto& p : planted) {
      CAPTURE(seeds);
      CAPTURE(p.source);
      CAPTURE(p.label);
      const auto* q = find(study, p.source, p.label, seeds);
      REQUIRE(q != nullptr);
      CHECK(q->estimated == 120);
      CHECK(q->truth == doctest::Approx(p.truth).epsilon(1e-9).scale(1));
      CHECK(std::abs(q->bias) < 4 * q->bias_mcse);
      // The intervals hold the truth about 95% of the time, the contrasts' cluster-bootstrap
      // ones too (tests/simulate/interval_coverage_test.cpp checks those more closely).
      const double nominal = 0.95;
      CHECK(q->with_interval == 120);
      CHECK(std::abs(q->coverage - nominal) < 4 * std::sqrt(nominal * (1 - nominal) / 120));
    }
    // Zero planted: rejections are type I errors, at about alpha.
    const auto* interaction = find(study, "fit", "language=zh:hls=low", seeds);
    REQUIRE(interaction != nullptr);
    CHECK(interaction->null);
    CHECK(interaction->rejection < 0.05 + 4 * std::sqrt(0.05 * 0.95 / 120));
  }
  // More seeds, more power: the HLS effect of 0.15 against a residual SD of 0.4.
  const auto* small = find(study, "fit", "hls=low", 20);
  const auto* large = find(study, "fit", "hls=low", 60);
  REQUIRE(small != nullptr);
  REQUIRE(large != nullptr);
  CHECK_FALSE(small->null);
  CHECK(large->rejection > small->rejection + 0.2);
  CHECK(large->rmse < small->rmse);
}

TEST_CASE("a study gives the same numbers on one thread and on two") {
  mirac::Audit audit = open("recovery.audit");
  mirac::PowerOptions options;
  options.replicates = 3;
  options.seeds = {8};
  options.threads = 1;
  std::atomic<bool> cancel{false};
  auto a = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  options.threads = 2;
  auto b = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  REQUIRE(a.quantities.size() == b.quantities.size());
  for (std::size_t i = 0; i < a.quantities.size(); ++i) {
    CHECK(a.quantities[i].mean_estimate == b.quantities[i].mean_estimate);
    CHECK(a.quantities[i].empirical_se > 0);
  }
}

TEST_CASE("a spec without a simulate block, or an unknown name in the options, is refused with a reason") {
  mirac::Audit audit = open("recovery.audit");
  std::atomic<bool> cancel{false};
  mirac::PowerOptions options;
  options.models = {"claude"};
  CHECK_THROWS_WITH_AS(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel), "unknown model 'claude'",
                       std::invalid_argument);
  options.models.clear();
  options.only = {"HLSS"};
  CHECK_THROWS_WITH_AS(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel),
                       "unknown contrast or analysis 'HLSS'; did you mean 'HLS'?", std::invalid_argument);
  mirac::Spec bare = audit.spec();
  bare.simulate.reset();
  CHECK_THROWS_AS(mirac::simulate_power(bare, mirac::PowerOptions{}, audit.sources(), cancel), std::invalid_argument);
}

TEST_CASE("--only takes a ranging contrast by its own name (all its levels) or one level's name") {
  // recovery.audit with a contrast per language: HLS_in_zh and HLS_in_en.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "mirac_simulate_only_ranging";
  std::filesystem::create_directories(dir);
  {
    std::ifstream in(fixture("recovery.audit"));
    std::ofstream out(dir / "ranging.audit");
    out << in.rdbuf() << "\ncontrast HLS_in = D3[each language, low] - D3[each language, high]\n";
  }
  mirac::AuditOptions o;
  o.spec = dir / "ranging.audit";
  o.offline = true;
  mirac::Audit audit = mirac::open_audit(o);
  REQUIRE(audit.ok());
  std::atomic<bool> cancel{false};
  mirac::PowerOptions options;
  options.replicates = 4;
  options.seeds = {8};
  options.resamples = 20;
  auto sources_of = [](const mirac::PowerStudy& s) {
    std::set<std::string> out;
    for (const auto& q : s.quantities) out.insert(q.source);
    return out;
  };
  options.only = {"HLS_in"};
  CHECK(sources_of(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel)) ==
        std::set<std::string>{"HLS_in_zh", "HLS_in_en"});
  options.only = {"HLS_in_en", "LANG"};
  CHECK(sources_of(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel)) ==
        std::set<std::string>{"HLS_in_en", "LANG"});
  options.only = {"HLS_i"};
  CHECK_THROWS_WITH_AS(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel),
                       "unknown contrast or analysis 'HLS_i'; did you mean 'HLS_in'?", std::invalid_argument);
  std::filesystem::remove_all(dir);
}

TEST_CASE("fewer cells and more answers per prompt change the design as asked") {
  mirac::Audit audit = open("recovery.audit");
  std::atomic<bool> cancel{false};
  mirac::PowerOptions options;
  options.replicates = 60;
  options.seeds = {12};
  options.resamples = 50;
  options.only = {"HLS", "by_hls"};
  const auto one = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  options.answers = 8;
  const auto eight = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  CHECK(eight.answers_per_prompt == 8);
  CHECK(eight.to_json().at("answers_per_prompt") == 8);
  CHECK(eight.answers_per_design_seed == 8 * one.answers_per_design_seed);
  const auto* a = find(one, "HLS", "", 12);
  const auto* b = find(eight, "HLS", "", 12);
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  // Eight answers per prompt, eight rows each: the seeds' spread stays and the residual's
  // shrinks, so the estimate's sampling error falls, and the truth stays.
  CHECK(b->truth == doctest::Approx(a->truth));
  CHECK(b->empirical_se < 0.7 * a->empirical_se);
  CHECK(std::abs(b->bias) < 4 * b->bias_mcse);

  options.answers = 1;
  options.levels = {{"language", {"en"}}};
  const auto english = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  CHECK(english.cells == 2);
  CHECK(english.answers_per_design_seed == 2);
  const auto* c = find(english, "HLS", "", 12);
  REQUIRE(c != nullptr);
  CHECK(c->truth == doctest::Approx(a->truth));

  options.levels = {{"language", {"ja"}}};
  CHECK_THROWS_WITH_AS(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel),
                       "'ja' is not a level of 'language' (zh, en)", std::invalid_argument);
  options.levels = {{"languag", {"en"}}};
  CHECK_THROWS_WITH_AS(mirac::simulate_power(audit.spec(), options, audit.sources(), cancel),
                       "unknown factor 'languag'; did you mean 'language'?", std::invalid_argument);
}
