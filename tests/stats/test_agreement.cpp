// test_agreement.cpp: runtime/stats/agreement against reference values.
// Reference: tests/stats/reference/agreement.json, written by
//   /usr/bin/python3 tests/stats/reference/generate_agreement.py
// (sklearn 1.2.1 cohen_kappa_score(a, b, labels=[1..5], weights="quadratic"); numpy 1.24.2 for
// exact, adjacent and signed error; Krippendorff's alpha from its definition, which gives the
// values Krippendorff (2011) publishes for his example). Tolerance: 1e-12 relative.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/stats/agreement.hpp"
#include "tests/stats/reference_json.hpp"

using namespace mirac::stats;
using mirac::stats::testing::close_rel;
using mirac::stats::testing::doubles;
using mirac::stats::testing::load_reference;

TEST_CASE("pair agreement and quadratic weighted kappa match numpy and sklearn") {
  const auto ref = load_reference("agreement.json");
  REQUIRE(ref.at("pairs").size() >= 5);
  for (const auto& c : ref.at("pairs")) {
    INFO(c.at("name").get<std::string>());
    const auto a = doubles(c.at("a")), b = doubles(c.at("b")), labels = doubles(c.at("labels"));
    const PairAgreement p = pair_agreement(a, b, labels);
    CHECK(p.n == a.size());
    CHECK(close_rel(p.exact, c.at("exact").get<double>(), 1e-12));
    CHECK(close_rel(p.adjacent, c.at("adjacent").get<double>(), 1e-12));
    CHECK(close_rel(p.mean_signed_error, c.at("mean_signed_error").get<double>(), 1e-12));
    if (c.at("qwk").is_null()) CHECK(std::isnan(p.qwk));
    else CHECK(close_rel(p.qwk, c.at("qwk").get<double>(), 1e-12));
  }
}

TEST_CASE("Krippendorff's alpha matches the definition and the published example") {
  const auto ref = load_reference("agreement.json");
  for (const auto& c : ref.at("alpha")) {
    INFO(c.at("name").get<std::string>());
    std::vector<std::vector<double>> units;
    for (const auto& u : c.at("units")) units.push_back(doubles(u));
    CHECK(close_rel(krippendorff_alpha(units, AlphaMetric::nominal), c.at("alpha").at("nominal").get<double>(), 1e-12));
    CHECK(close_rel(krippendorff_alpha(units, AlphaMetric::ordinal), c.at("alpha").at("ordinal").get<double>(), 1e-12));
    CHECK(close_rel(krippendorff_alpha(units, AlphaMetric::interval), c.at("alpha").at("interval").get<double>(), 1e-12));
  }
  // Krippendorff (2011), section C, to the three decimals published there.
  std::vector<std::vector<double>> example;
  for (const auto& u : ref.at("alpha").at(0).at("units")) example.push_back(doubles(u));
  const auto& published = ref.at("published");
  CHECK(std::round(krippendorff_alpha(example, AlphaMetric::nominal) * 1000) / 1000 == published.at("nominal").get<double>());
  CHECK(std::round(krippendorff_alpha(example, AlphaMetric::ordinal) * 1000) / 1000 == published.at("ordinal").get<double>());
  CHECK(std::round(krippendorff_alpha(example, AlphaMetric::interval) * 1000) / 1000 == published.at("interval").get<double>());
}

TEST_CASE("agreement edge cases: no items, unknown labels, nothing pairable") {
  const std::vector<double> labels = {1, 2, 3, 4, 5};
  CHECK(std::isnan(pair_agreement({}, {}, labels).exact));
  const std::vector<double> a = {1, 2}, off_scale = {1, 6};
  CHECK_THROWS_AS(quadratic_weighted_kappa(a, off_scale, labels), std::invalid_argument);
  CHECK(std::isnan(pair_agreement(a, a, {}).qwk));  // no labels: no kappa
  CHECK(std::isnan(krippendorff_alpha({{3}, {4}}, AlphaMetric::ordinal)));
  CHECK(krippendorff_alpha({{1, 1}, {2, 2}, {3, 3}}, AlphaMetric::ordinal) == 1.0);
}
