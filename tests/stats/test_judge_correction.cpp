// test_judge_correction.cpp: runtime/stats/judge_correction (PPI, PPI++, Rogan-Gladen)
// against values computed from the formulas with numpy and scipy, in
//   tests/stats/reference/judge_correction.json, written by
//   /usr/bin/python3 tests/stats/reference/generate_judge_correction.py
// (numpy 1.24.2 two-pass variances with ddof=1, scipy 1.10.1 norm.ppf). The C++ works from
// sums, so the last digits may differ: tolerance 1e-11 relative.
// Coverage simulations are in test_judge_correction_coverage.cpp.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/stats/judge_correction.hpp"
#include "tests/stats/reference_json.hpp"

using namespace mirac::stats;
using mirac::stats::testing::close_rel;
using mirac::stats::testing::load_reference;

namespace {

constexpr double kTol = 1e-11;

std::vector<double> with_nan(const nlohmann::json& j) {
  std::vector<double> out;
  for (const auto& v : j) out.push_back(v.is_null() ? std::nan("") : v.get<double>());
  return out;
}

void check_interval(const NormalEstimate& e, const nlohmann::json& expected) {
  CHECK(close_rel(e.estimate, expected.at("estimate").get<double>(), kTol));
  CHECK(close_rel(e.se, expected.at("se").get<double>(), kTol));
  CHECK(close_rel(e.lower, expected.at("lower").get<double>(), kTol));
  CHECK(close_rel(e.upper, expected.at("upper").get<double>(), kTol));
}

}  // namespace

TEST_CASE("PPI by hand: the judge's mean 3.0 rectified by its mean error 0.25 on the sample") {
  // Judge on 8 answers: 2 3 3 4 2 5 1 4 (mean 24 / 8 = 3). People scored answers 1, 3, 6 and
  // 8 as 3 3 5 4, where the judge said 2 3 5 4: errors 1 0 0 0, mean 0.25. PPI = 3.25;
  // people's mean alone is 15 / 4 = 3.75.
  const std::vector<double> judge = {2, 3, 3, 4, 2, 5, 1, 4};
  const double u = std::nan("");
  const std::vector<double> people = {3, u, 3, u, u, 5, u, 4};
  const PpiSums sums = ppi_sums(judge, people);
  CHECK(sums.all_n == 8);
  CHECK(sums.n == 4);
  const PpiEstimate e = ppi_mean(sums, PpiMethod::ppi);
  CHECK(e.judge_only.estimate == doctest::Approx(3.0).epsilon(1e-15));
  CHECK(e.corrected.estimate == doctest::Approx(3.25).epsilon(1e-15));
  CHECK(e.people_only.estimate == doctest::Approx(3.75).epsilon(1e-15));
  CHECK(ppi_point(sums, PpiMethod::ppi) == doctest::Approx(3.25).epsilon(1e-15));
}

TEST_CASE("PPI and PPI++ match the formulas computed with numpy") {
  const auto ref = load_reference("judge_correction.json");
  REQUIRE(ref.at("ppi").size() == 3);
  for (const auto& c : ref.at("ppi")) {
    INFO(c.at("name").get<std::string>());
    const std::vector<double> judge = c.at("judge").get<std::vector<double>>();
    const std::vector<double> people = with_nan(c.at("people"));
    const PpiSums sums = ppi_sums(judge, people);
    const PpiEstimate plain = ppi_mean(sums, PpiMethod::ppi);
    CHECK(plain.N == c.at("N").get<double>());
    CHECK(plain.n == c.at("n").get<double>());
    CHECK(plain.lambda == 1.0);
    check_interval(plain.judge_only, c.at("judge_only"));
    check_interval(plain.people_only, c.at("people_only"));
    check_interval(plain.corrected, c.at("ppi"));
    CHECK(close_rel(ppi_point(sums, PpiMethod::ppi), c.at("ppi").at("estimate").get<double>(), kTol));
    const PpiEstimate tuned = ppi_mean(sums, PpiMethod::power_tuned);
    CHECK(close_rel(tuned.lambda, c.at("lambda").get<double>(), kTol));
    check_interval(tuned.corrected, c.at("ppi_tuned"));
    CHECK(close_rel(ppi_point(sums, PpiMethod::power_tuned), c.at("ppi_tuned").at("estimate").get<double>(), kTol));
  }
}

TEST_CASE("with every answer scored by people, PPI is people's mean with variance var(y) / N") {
  const auto ref = load_reference("judge_correction.json");
  const auto& c = ref.at("ppi")[2];
  REQUIRE(c.at("name") == "all_scored");
  const PpiEstimate e = ppi_mean(ppi_sums(c.at("judge").get<std::vector<double>>(), with_nan(c.at("people"))), PpiMethod::ppi);
  CHECK(close_rel(e.corrected.estimate, e.people_only.estimate, 1e-14));
  CHECK(close_rel(e.corrected.se, e.people_only.se, 1e-12));
}

TEST_CASE("sums of disjoint parts give the estimate of the whole (what the seed bootstrap adds up)") {
  const std::vector<double> judge = {2, 3, 3, 4, 2, 5, 1, 4};
  const double u = std::nan("");
  const std::vector<double> people = {3, u, 3, u, u, 5, u, 4};
  PpiSums parts = ppi_sums(std::span(judge).first(3), std::span(people).first(3));
  parts.add(ppi_sums(std::span(judge).subspan(3), std::span(people).subspan(3)));
  CHECK(ppi_point(parts, PpiMethod::power_tuned) == doctest::Approx(ppi_point(ppi_sums(judge, people), PpiMethod::power_tuned)));
}

TEST_CASE("PPI is undefined without people's scores; its interval without two of them") {
  const std::vector<double> judge = {1, 2, 3};
  const double u = std::nan("");
  CHECK(std::isnan(ppi_point(ppi_sums(judge, std::vector<double>{u, u, u}), PpiMethod::ppi)));
  const PpiEstimate one = ppi_mean(ppi_sums(judge, std::vector<double>{u, 4, u}), PpiMethod::ppi);
  CHECK(one.corrected.estimate == doctest::Approx(2.0 + (4 - 2)));
  CHECK(std::isnan(one.corrected.se));
  CHECK(std::isnan(one.corrected.lower));
  // A judge constant on the sample has no slope: PPI++ falls back to people's mean alone.
  const PpiEstimate flat = ppi_mean(ppi_sums(std::vector<double>{1, 2, 3, 3}, std::vector<double>{u, u, 2, 4}),
                                    PpiMethod::power_tuned);
  CHECK(flat.lambda == 0.0);
  CHECK(flat.corrected.estimate == doctest::Approx(3.0));
}

TEST_CASE("Rogan-Gladen matches its formula with the delta-method interval, clipped to [0, 1]") {
  const auto ref = load_reference("judge_correction.json");
  for (const auto& c : ref.at("rogan_gladen")) {
    INFO(c.at("name").get<std::string>());
    FlagSums f;
    f.all_n = c.at("N"), f.all_flagged = c.at("flagged");
    f.positives = c.at("positives"), f.true_positives = c.at("true_positives");
    f.negatives = c.at("negatives"), f.false_positives = c.at("false_positives");
    const RoganGladen rg = rogan_gladen(f);
    CHECK(close_rel(rg.observed, c.at("observed").get<double>(), kTol));
    CHECK(close_rel(rg.sensitivity, c.at("sensitivity").get<double>(), kTol));
    CHECK(close_rel(rg.specificity, c.at("specificity").get<double>(), kTol));
    CHECK(close_rel(rg.unclipped, c.at("unclipped").get<double>(), kTol));
    // p_obs 0.24, sens 0.8, spec 0.9: (0.24 + 0.9 - 1) / (0.8 + 0.9 - 1) = 0.2 in case "flag".
    CHECK(close_rel(rg.corrected.estimate, c.at("estimate").get<double>(), kTol));
    CHECK(close_rel(rg.corrected.se, c.at("se").get<double>(), kTol));
    CHECK(close_rel(rg.corrected.lower, c.at("lower").get<double>(), kTol));
    CHECK(close_rel(rg.corrected.upper, c.at("upper").get<double>(), kTol));
    CHECK(close_rel(rogan_gladen_point(f), c.at("estimate").get<double>(), kTol));
  }
}

TEST_CASE("with every answer scored by people, Rogan-Gladen is people's rate with variance p(1 - p) / N") {
  // 100 answers, all scored: people flag 30 (the judge 24 of them) and not 70 (the judge 7).
  FlagSums f;
  f.all_n = 100, f.all_flagged = 31;
  f.positives = 30, f.true_positives = 24;
  f.negatives = 70, f.false_positives = 7;
  const RoganGladen rg = rogan_gladen(f);
  CHECK(rg.corrected.estimate == doctest::Approx(0.3).epsilon(1e-14));
  CHECK(rg.corrected.se == doctest::Approx(std::sqrt(0.3 * 0.7 / 100)).epsilon(1e-12));
}

TEST_CASE("a flag's rate by PPI is the mean of its 0/1 values") {
  const auto ref = load_reference("judge_correction.json");
  const auto& c = ref.at("rogan_gladen")[0];
  FlagSums f;
  f.all_n = c.at("N"), f.all_flagged = c.at("flagged");
  f.positives = c.at("positives"), f.true_positives = c.at("true_positives");
  f.negatives = c.at("negatives"), f.false_positives = c.at("false_positives");
  const PpiSums s = ppi_sums(f);
  check_interval(ppi_mean(s, PpiMethod::ppi).corrected, ref.at("flag_ppi").at("ppi"));
  const PpiEstimate tuned = ppi_mean(s, PpiMethod::power_tuned);
  CHECK(close_rel(tuned.lambda, ref.at("flag_ppi").at("lambda").get<double>(), kTol));
  check_interval(tuned.corrected, ref.at("flag_ppi").at("ppi_tuned"));
}

TEST_CASE("Rogan-Gladen corrects nothing for a judge no better than chance") {
  FlagSums f;
  f.all_n = 100, f.all_flagged = 50;
  f.positives = 10, f.true_positives = 5;   // sensitivity 0.5
  f.negatives = 10, f.false_positives = 5;  // specificity 0.5: J = 0
  CHECK(std::isnan(rogan_gladen_point(f)));
  CHECK(std::isnan(rogan_gladen(f).corrected.lower));
  FlagSums no_positive = f;
  no_positive.positives = no_positive.true_positives = 0;
  CHECK(std::isnan(rogan_gladen_point(no_positive)));
}

TEST_CASE("the difference of two independent corrected means adds their variances") {
  const auto ref = load_reference("judge_correction.json");
  const auto& biased = ref.at("ppi")[1];
  const auto& hand = ref.at("ppi")[0];
  const PpiEstimate a = ppi_mean(ppi_sums(biased.at("judge").get<std::vector<double>>(), with_nan(biased.at("people"))), PpiMethod::ppi);
  const PpiEstimate b = ppi_mean(ppi_sums(hand.at("judge").get<std::vector<double>>(), with_nan(hand.at("people"))), PpiMethod::ppi);
  check_interval(difference(a.corrected, b.corrected), ref.at("difference_biased_minus_hand"));
}
