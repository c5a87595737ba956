// test_design.cpp: treatment coding, coefficient names, rank-deficiency errors, convergence
// reporting and internal consistency of the REML derivatives. Expected values here are
// worked out by hand (the design rules of R's model.matrix with contr.treatment).
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "runtime/stats/design.hpp"
#include "runtime/stats/lmm.hpp"
#include "runtime/stats/lmm_reml.hpp"
#include "tests/stats/lmm_reference.hpp"

using namespace mirac::stats;

namespace {

// 3 x 3 factorial a in {x1,x2,x3}, b in {y1,y2,y3}, twice; response = row index.
DataFrame three_by_three() {
  DataFrame d;
  CategoricalColumn a{"a", {}}, b{"b", {}};
  for (int rep = 0; rep < 2; ++rep) {
    for (int i = 1; i <= 3; ++i) {
      for (int j = 1; j <= 3; ++j) {
        a.values.push_back("x" + std::to_string(i));
        b.values.push_back("y" + std::to_string(j));
        d.response.push_back(static_cast<double>(d.response.size()));
      }
    }
  }
  d.columns = {a, b};
  return d;
}

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("build_design: treatment coding and names, interaction first variable fastest") {
  const auto d = build_design(three_by_three(), {{}, {"a"}, {"b"}, {"a", "b"}}, {});
  const std::vector<std::string> expected{"(Intercept)", "a=x2",      "a=x3",      "b=y2",      "b=y3",
                                          "a=x2:b=y2",   "a=x3:b=y2", "a=x2:b=y3", "a=x3:b=y3"};
  CHECK(d.column_names == expected);
  CHECK(d.X.rows() == 18);
  // row 5 is (x2, y3): intercept, a=x2, b=y3, a=x2:b=y3
  CHECK(d.X.row(5).sum() == 4.0);
  CHECK(d.X.coeff(5, 1) == 1.0);
  CHECK(d.X.coeff(5, 4) == 1.0);
  CHECK(d.X.coeff(5, 7) == 1.0);
}

TEST_CASE("build_design: explicit level order and reference level") {
  std::map<std::string, LevelSpec> levels;
  levels["a"] = LevelSpec{{}, "x3"};                  // sorted levels, x3 moved to the front
  levels["b"] = LevelSpec{{"y2", "y1", "y3"}, ""};    // given order, first is reference
  const auto d = build_design(three_by_three(), {{}, {"a"}, {"b"}}, levels);
  const std::vector<std::string> expected{"(Intercept)", "a=x1", "a=x2", "b=y1", "b=y3"};
  CHECK(d.column_names == expected);
  levels["a"] = LevelSpec{{}, "nope"};
  CHECK(error_of([&] { build_design(three_by_three(), {{}, {"a"}}, levels); }).find("code_factor: reference level 'nope'") == 0);
}

TEST_CASE("build_design: rows with a missing response are excluded") {
  auto data = three_by_three();
  data.response[0] = std::nan("");
  data.response[17] = std::nan("");
  const auto d = build_design(data, {{}, {"a"}}, {});
  CHECK(d.X.rows() == 16);
  CHECK(d.kept_rows.front() == 1);
  CHECK(d.kept_rows.back() == 16);
  CHECK(d.y[0] == 1.0);
}

TEST_CASE("build_design: aliased and all-zero columns are named, never dropped") {
  auto data = three_by_three();
  // c is a coarsening of a: c=z2 exactly when a is x2 or x3, so c=z2 = a=x2 + a=x3
  CategoricalColumn c{"c", {}};
  for (const auto& v : data.columns[0].values) c.values.push_back(v == "x1" ? "z1" : "z2");
  data.columns.push_back(c);
  CHECK(error_of([&] { build_design(data, {{}, {"a"}, {"c"}}, {}); }) ==
        "build_design: column 'c=z2' is aliased with earlier columns (rank-deficient design)");
  // without a's main effect: a=x2:c=z2 + a=x3:c=z2 = c=z2, so the second product is aliased
  CHECK(error_of([&] { build_design(data, {{}, {"c"}, {"a", "c"}}, {}); }) ==
        "build_design: column 'a=x3:c=z2' is aliased with earlier columns (rank-deficient design)");
  std::map<std::string, LevelSpec> levels;
  levels["c"] = LevelSpec{{"z1", "z2"}, ""};
  levels["a"] = LevelSpec{{"x2", "x1", "x3"}, ""};  // x1 not reference: (a=x1, c=z2) never occurs
  CHECK(error_of([&] { build_design(data, {{}, {"a", "c"}}, levels); }) ==
        "build_design: column 'a=x1:c=z2' is all zero (no row has this level combination)");
  CHECK(error_of([&] { build_design(data, {{}, {"nope"}}, {}); }) == "code_factor: no column named 'nope'");
  data.columns.push_back(CategoricalColumn{"lang", std::vector<std::string>(data.response.size(), "en")});
  CHECK(error_of([&] { build_design(data, {{}, {"a"}, {"lang"}}, {}); }) ==
        "build_design: variable 'lang' has a single level ('en'), so its terms have no columns");
  levels["a"] = LevelSpec{{"x1", "x2"}, ""};
  CHECK(error_of([&] { build_design(data, {{}, {"a"}}, levels); }) ==
        "code_factor: value 'x3' of 'a' is not among its declared levels");
}

TEST_CASE("lmm_fit: spec errors carry the function name") {
  auto data = three_by_three();
  LmmSpec spec;
  spec.fixed = {{}, {"b"}};
  CHECK(error_of([&] { lmm_fit(data, spec); }) == "lmm_fit: at least one random intercept is required");
}

TEST_CASE("RemlProblem: analytic REML gradient agrees with central differences") {
  const auto ds = testing::read_json_file(testing::reference_path("lmm_crossed.json"));
  const auto c = testing::lmm_case(ds);
  const auto design = build_design(c.data, c.spec.fixed, c.spec.levels);
  std::vector<CodedFactor> groups;
  for (const auto& g : c.spec.random_intercepts) groups.push_back(code_factor(c.data, g, design.kept_rows, {}));
  const RemlProblem prob(design.X, design.y, groups);
  Eigen::VectorXd theta(2);
  theta << 0.7, 0.2;
  const auto g = prob.gradient(prob.evaluate(theta, true));
  for (Eigen::Index k = 0; k < 2; ++k) {
    const double h = 1e-5;
    Eigen::VectorXd up = theta, down = theta;
    up[k] += h;
    down[k] -= h;
    const double fd = (prob.criterion(up) - prob.criterion(down)) / (2 * h);  // error O(h^2) + noise/h
    CHECK(std::fabs(g[k] - fd) <= 1e-6 * std::max(1.0, std::fabs(fd)));
  }
  Eigen::VectorXd vp(3);
  vp << 0.7, 0.2, 0.9;
  const auto gv = prob.gradient_vp(vp);
  for (Eigen::Index k = 0; k < 3; ++k) {
    const double h = 1e-5;
    Eigen::VectorXd up = vp, down = vp;
    up[k] += h;
    down[k] -= h;
    const double fd = (prob.deviance_vp(up) - prob.deviance_vp(down)) / (2 * h);
    CHECK(std::fabs(gv[k] - fd) <= 1e-6 * std::max(1.0, std::fabs(fd)));
  }
}

TEST_CASE("lmm_fit: an iteration cap yields gradient_not_zero with the gradient reported") {
  const auto ds = testing::read_json_file(testing::reference_path("lmm_mira.json"));
  const auto c = testing::lmm_case(ds);
  LmmOptions opt;
  opt.max_iterations = 1;
  opt.satterthwaite = false;
  const auto fit = lmm_fit(c.data, c.spec, opt);
  CHECK(fit.convergence.status == ConvergenceStatus::gradient_not_zero);
  REQUIRE(fit.convergence.gradient.size() == 1);
  CHECK(fit.convergence.max_abs_gradient > opt.gradient_tolerance);
  CHECK(fit.convergence.message.find("not converged") == 0);
  CHECK(std::isnan(fit.fixed[0].df));
  CHECK(std::isnan(fit.fixed[0].p_t));
}

TEST_CASE("lmm_fit: balanced one-way layout reproduces the ANOVA (method-of-moments) solution") {
  // For a balanced one-way random-intercept model the REML estimates are the ANOVA ones when
  // MSB > MSW (Searle, Casella & McCulloch 1992, sec. 3.7 and 6.8): sigma^2 = MSW,
  // sigma_b^2 = (MSB - MSW) / m, se(mu) = sqrt(MSB / (G m)), Satterthwaite df = G - 1.
  // Large group differences put theta = sigma_b / sigma far from lme4's start value of 1.
  const int G = 5, m = 4;
  const double group_mean[G] = {1.0, 9.0, 4.0, 15.0, 7.0};
  const double noise[m] = {-0.3, 0.1, 0.5, -0.2};
  DataFrame data;
  CategoricalColumn g{"g", {}};
  for (int i = 0; i < G; ++i) {
    for (int j = 0; j < m; ++j) {
      g.values.push_back("g" + std::to_string(i));
      data.response.push_back(group_mean[i] + noise[(i + j) % m] * (1 + i % 2));
    }
  }
  data.columns = {g};
  double grand = 0.0;
  for (double y : data.response) grand += y;
  grand /= G * m;
  double ssb = 0.0, ssw = 0.0;
  for (int i = 0; i < G; ++i) {
    double mean_i = 0.0;
    for (int j = 0; j < m; ++j) mean_i += data.response[static_cast<std::size_t>(i * m + j)] / m;
    ssb += m * (mean_i - grand) * (mean_i - grand);
    for (int j = 0; j < m; ++j) {
      const double r = data.response[static_cast<std::size_t>(i * m + j)] - mean_i;
      ssw += r * r;
    }
  }
  const double msb = ssb / (G - 1), msw = ssw / (G * (m - 1));
  LmmSpec spec;
  spec.fixed = {{}};
  spec.random_intercepts = {"g"};
  const auto fit = lmm_fit(data, spec);
  CHECK(fit.convergence.status == ConvergenceStatus::converged);
  CHECK(fit.random[0].theta > 5.0);
  CHECK(fit.residual_variance == doctest::Approx(msw).epsilon(1e-9));
  CHECK(fit.random[0].variance == doctest::Approx((msb - msw) / m).epsilon(1e-9));
  CHECK(fit.fixed[0].estimate == doctest::Approx(grand).epsilon(1e-12));
  CHECK(fit.fixed[0].se == doctest::Approx(std::sqrt(msb / (G * m))).epsilon(1e-9));
  CHECK(fit.fixed[0].df == doctest::Approx(G - 1).epsilon(1e-7));
  // SSB ~ (sigma^2 + m sigma_b^2) chi2_{G-1} and SSW ~ sigma^2 chi2_{N-G} independently, so
  // Var(sigma_b^2) = 2 (MSB^2/(G-1) + MSW^2/(N-G)) / m^2 and Var(sigma^2) = 2 MSW^2 / (N-G)
  const double N = G * m;
  CHECK(fit.random[0].se == doctest::Approx(std::sqrt(2.0 * (msb * msb / (G - 1) + msw * msw / (N - G)) / (m * m))).epsilon(1e-7));
  CHECK(fit.residual_variance_se == doctest::Approx(std::sqrt(2.0 * msw * msw / (N - G))).epsilon(1e-7));

  for (double& y : data.response) y = 3.0;  // constant response: nothing left to estimate
  CHECK(error_of([&] { lmm_fit(data, spec); }) ==
        "lmm_fit: the fixed and random effects fit the response exactly (zero residual)");
}
