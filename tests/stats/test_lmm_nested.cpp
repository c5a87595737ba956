// test_lmm_nested.cpp: the closed-form path of RemlProblem for two nested grouping factors
// (every prompt within one seed: `(1 | seed) + (1 | prompt)` over several answers per
// prompt) against the definitions, computed densely from Z: W = I + Z Lambda Lambda' Z',
// log|W|, beta, r^2 = (y - X beta)'W^-1(y - X beta), tr(Z_k'PZ_k) and ||Z_k'Py||^2 with
// P = W^-1 - W^-1 X C0 X'W^-1. The crossed path is held to lme4 in test_lmm.cpp; this
// one, which that path would take O(q^3) for, must give the same numbers.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <Eigen/Dense>

#include "runtime/stats/lmm_reml.hpp"

namespace {

using mirac::stats::CodedFactor;
using mirac::stats::RemlProblem;

struct Nested {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  CodedFactor seed{"seed", {}, {}}, prompt{"prompt", {}, {}};
};

// 8 seeds x 3 prompts x 3 answers, unbalanced by dropping some answers.
Nested nested_design() {
  Nested d;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0, 1);
  for (int s = 0; s < 8; ++s) d.seed.levels.push_back("s" + std::to_string(s));
  for (int p = 0; p < 24; ++p) d.prompt.levels.push_back("p" + std::to_string(p));
  std::vector<Eigen::RowVector3d> rows;
  std::vector<double> ys;
  for (int s = 0; s < 8; ++s) {
    const double seed_effect = 0.8 * normal(rng);
    for (int p = 0; p < 3; ++p) {
      const double prompt_effect = 0.5 * normal(rng);
      for (int a = 0; a < 3; ++a) {
        if ((s + p + a) % 7 == 0) continue;  // unbalanced
        const double x = normal(rng);
        const double level = p == 2 ? 1.0 : 0.0;
        rows.emplace_back(1.0, x, level);
        ys.push_back(2 + 0.3 * x - 0.4 * level + seed_effect + prompt_effect + 0.6 * normal(rng));
        d.seed.codes.push_back(s);
        d.prompt.codes.push_back(s * 3 + p);
      }
    }
  }
  d.X.resize(static_cast<Eigen::Index>(rows.size()), 3);
  d.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    d.X.row(static_cast<Eigen::Index>(i)) = rows[i];
    d.y[static_cast<Eigen::Index>(i)] = ys[i];
  }
  return d;
}

Eigen::MatrixXd indicators(const CodedFactor& f) {
  Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(f.codes.size()), static_cast<Eigen::Index>(f.levels.size()));
  for (std::size_t i = 0; i < f.codes.size(); ++i) Z(static_cast<Eigen::Index>(i), f.codes[i]) = 1;
  return Z;
}

void check_against_definitions(const Nested& d, const std::vector<CodedFactor>& groups, const Eigen::VectorXd& theta) {
  const RemlProblem problem(d.X, d.y, groups);
  const auto e = problem.evaluate(theta, true);
  const Eigen::Index n = d.X.rows();
  Eigen::MatrixXd W = Eigen::MatrixXd::Identity(n, n);
  std::vector<Eigen::MatrixXd> Z;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    Z.push_back(indicators(groups[k]));
    W += theta[static_cast<Eigen::Index>(k)] * theta[static_cast<Eigen::Index>(k)] * Z.back() * Z.back().transpose();
  }
  const Eigen::MatrixXd Winv = W.inverse();
  const Eigen::MatrixXd XtWX = d.X.transpose() * Winv * d.X;
  const Eigen::VectorXd beta = XtWX.ldlt().solve(d.X.transpose() * Winv * d.y);
  const Eigen::VectorXd r = d.y - d.X * beta;
  const Eigen::MatrixXd C0 = XtWX.inverse();
  const Eigen::MatrixXd P = Winv - Winv * d.X * C0 * d.X.transpose() * Winv;
  CHECK(e.ldL2 == doctest::Approx(std::log(W.determinant())).epsilon(1e-10));
  CHECK(e.ldRX2 == doctest::Approx(std::log(XtWX.determinant())).epsilon(1e-10));
  CHECK(e.pwrss == doctest::Approx(r.dot(Winv * r)).epsilon(1e-10));
  for (Eigen::Index j = 0; j < beta.size(); ++j) CHECK(e.beta[j] == doctest::Approx(beta[j]).epsilon(1e-10));
  for (std::size_t k = 0; k < groups.size(); ++k) {
    CAPTURE(groups[k].name);
    const auto kk = static_cast<Eigen::Index>(k);
    CHECK(e.tr_ZtPZ[kk] == doctest::Approx((Z[k].transpose() * P * Z[k]).trace()).epsilon(1e-9));
    CHECK(e.ss_ZtPy[kk] == doctest::Approx((Z[k].transpose() * P * d.y).squaredNorm()).epsilon(1e-9));
  }
  // The gradient from those derivatives against central differences of the criterion.
  const Eigen::VectorXd g = problem.gradient(e);
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    const double h = 1e-5;
    Eigen::VectorXd up = theta, down = theta;
    up[k] += h, down[k] -= h;
    const double fd = (problem.criterion(up) - problem.criterion(down)) / (2 * h);
    CHECK(std::fabs(g[k] - fd) <= 1e-6 * std::max(1.0, std::fabs(fd)));
  }
}

}  // namespace

TEST_CASE("RemlProblem, nested factors: every quantity of an evaluation as the definitions give it, either order") {
  const Nested d = nested_design();
  for (const auto& theta : {Eigen::Vector2d(0.9, 0.4), Eigen::Vector2d(0.05, 1.7), Eigen::Vector2d(1.3, 0.0)}) {
    CAPTURE(theta.transpose());
    check_against_definitions(d, {d.seed, d.prompt}, theta);
    check_against_definitions(d, {d.prompt, d.seed}, Eigen::Vector2d(theta[1], theta[0]));
  }
}
