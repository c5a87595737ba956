// test_clmm_hessian.cpp: clmm's exact Hessian of the Laplace objective (clmm_laplace_hessian.cpp)
// held to Richardson-extrapolated central differences of its analytic gradient (itself held
// to differences of the objective in test_clmm.cpp), on random problems: a dense design, and
// one of many dummy columns that the problem holds sparse (as MIRA's, where every model adds
// a column). Points away from the optimum, so that every term of the Hessian counts. The
// differences agree to 1e-10 of the largest entry; the bound leaves their noise a margin.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "runtime/stats/clmm_laplace.hpp"
#include "runtime/stats/finite_difference.hpp"

using namespace mirac::stats;

namespace {

struct RandomProblem {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  CodedFactor group;
  Eigen::VectorXd v;  ///< the point to differentiate at: (theta, beta, log sigma)
};

// n rows in `groups` groups and 4 categories. Columns: `dummies` - 1 treatment-coded levels
// of one factor (one non-zero a row at most), and `numeric` standard normal covariates.
RandomProblem random_problem(int n, int groups, int dummies, int numeric, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> level(0, dummies - 1), pick_group(0, groups - 1);
  const int p = dummies - 1 + numeric;
  RandomProblem out;
  out.X = Eigen::MatrixXd::Zero(n, p);
  out.y.resize(n);
  Eigen::VectorXd beta(p);
  for (int j = 0; j < p; ++j) beta[j] = 0.6 * normal(rng);
  std::vector<double> b(static_cast<std::size_t>(groups));
  for (double& bg : b) bg = 0.8 * normal(rng);
  const double theta[3] = {-1.0, 0.2, 1.3};
  std::uniform_real_distribution<double> unit(1e-9, 1.0 - 1e-9);  // logistic noise by its inverse cdf
  for (int g = 0; g < groups; ++g) out.group.levels.push_back("g" + std::to_string(g));
  out.group.name = "g";
  for (int i = 0; i < n; ++i) {
    const int l = level(rng);
    if (l > 0) out.X(i, l - 1) = 1.0;
    for (int j = dummies - 1; j < p; ++j) out.X(i, j) = normal(rng);
    const int g = pick_group(rng);
    out.group.codes.push_back(g);
    const double u = unit(rng), latent = out.X.row(i).dot(beta) + b[static_cast<std::size_t>(g)] +
                                         std::log(u / (1.0 - u));
    out.y[i] = static_cast<double>(std::count_if(std::begin(theta), std::end(theta), [&](double t) { return latent > t; }));
  }
  out.v.resize(3 + p + 1);
  out.v << -0.9, 0.3, 1.1, 0.8 * beta, std::log(0.7);  // near the truth, not at the optimum
  return out;
}

// The largest |exact - differenced| entry over the largest |entry|.
double relative_difference(const RandomProblem& rp) {
  const LaplaceProblem prob(rp.X, rp.y, rp.group, 4);
  std::vector<double> modes(rp.group.levels.size(), 0.0);
  const LaplaceValue e = prob.evaluate(rp.v, modes, LaplaceDerivatives::hessian);
  REQUIRE(e.hessian.rows() == rp.v.size());
  CHECK(e.gradient.cwiseAbs().maxCoeff() > 1e-2);  // away from the optimum
  const Eigen::MatrixXd fd = hessian_from_gradient(
      [&](const Eigen::VectorXd& w) {
        std::vector<double> warm = modes;
        return Eigen::VectorXd(prob.evaluate(w, warm).gradient);
      },
      rp.v);
  CHECK((e.hessian - e.hessian.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * e.hessian.cwiseAbs().maxCoeff());
  // every block is exercised: thresholds, coefficients, log sigma and their crossings
  const Eigen::Index last = rp.v.size() - 1;
  CHECK(std::fabs(e.hessian(0, last)) > 1e-3);
  CHECK(std::fabs(e.hessian(3, last)) > 1e-3);
  return (e.hessian - fd).cwiseAbs().maxCoeff() / e.hessian.cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("clmm's exact Hessian agrees with differences of its gradient: dense design") {
  const RandomProblem rp = random_problem(300, 7, 1, 3, 11);
  const LaplaceProblem prob(rp.X, rp.y, rp.group, 4);
  CHECK_FALSE(prob.sparse_design());
  CHECK(relative_difference(rp) <= 1e-8);
}

TEST_CASE("clmm's exact Hessian agrees with differences of its gradient: many dummy columns, held sparse") {
  const RandomProblem rp = random_problem(600, 5, 40, 2, 29);
  const LaplaceProblem prob(rp.X, rp.y, rp.group, 4);
  CHECK(prob.sparse_design());
  CHECK(relative_difference(rp) <= 1e-8);
}

TEST_CASE("clmm's exact Hessian agrees with differences of its gradient: a small random-intercept variance") {
  RandomProblem rp = random_problem(200, 4, 6, 1, 5);
  rp.v[rp.v.size() - 1] = std::log(0.05);
  CHECK(relative_difference(rp) <= 1e-8);
}
