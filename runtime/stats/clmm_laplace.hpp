// clmm_laplace.hpp: the Laplace-approximated negative log-likelihood of a cumulative-logit
// model with one random intercept, its exact gradient and Hessian, for clmm.cpp's optimiser
// and standard errors.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "runtime/stats/design.hpp"

namespace mirac::stats {

struct LaplaceValue {
  double nll = 0.0;          ///< -log L (Laplace); +inf where a probability is not positive
  Eigen::VectorXd gradient;  ///< d nll / d (theta_1..theta_{K-1}, beta, log sigma)
  Eigen::MatrixXd hessian;   ///< d^2 nll / d v^2 in the same order; empty unless asked for
};

/// What evaluate() computes besides the value: the gradient always, the Hessian on request
/// (it costs about one more pass over the rows, and the design's non-zeros squared per row).
enum class LaplaceDerivatives { gradient, hessian };

/// nll(theta, beta, tau) = sum_g [ -sum_{i in g} log p_i(b_g) + b_g^2 / (2 sigma^2) + log sigma
///                                 + log(D_g) / 2 ],  sigma = exp(tau),
/// p_i(b) = F(theta_{y_i} - x_i'beta - b) - F(theta_{y_i - 1} - x_i'beta - b), F logistic,
/// b_g the mode of the group's integrand and D_g the integrand's curvature there. This is
/// ordinal::clmm's Laplace objective (written in b = sigma u; Laplace's method is invariant
/// under that linear change of variable).
class LaplaceProblem {
 public:
  /// X: n x p without intercept; y: category index 0..categories-1 per row; group codes per row.
  LaplaceProblem(const SparseRows& X, const Eigen::VectorXd& y, const CodedFactor& group, std::size_t categories);
  LaplaceProblem(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const CodedFactor& group, std::size_t categories)
      : LaplaceProblem(SparseRows(X.sparseView()), y, group, categories) {}

  /// Evaluates at natural parameters v = (theta, beta, log sigma). `modes` holds one b per
  /// group: the start of each inner Newton search on input, the modes found on output.
  LaplaceValue evaluate(const Eigen::VectorXd& v, std::vector<double>& modes,
                        LaplaceDerivatives derivatives = LaplaceDerivatives::gradient) const;

  Eigen::Index thresholds() const { return k_; }
  Eigen::Index parameters() const { return k_ + p_ + 1; }
  /// Whether the design is held sparse (see sparse_).
  bool sparse_design() const { return sparse_.nonZeros() > 0; }
  std::size_t group_count() const { return rows_.size(); }
  const std::vector<int>& categories() const { return y_; }

 private:
  /// Adds group g's share of the Hessian at its mode b (clmm_laplace_hessian.cpp), given
  /// D = h''(b) and E = h'''(b) of its negative log integrand h.
  void add_group_hessian(std::size_t g, const Eigen::VectorXd& theta, double b, double sigma2, double D, double E,
                         Eigen::MatrixXd& hessian) const;

  Eigen::Index n_, p_;  ///< X's rows and columns
  /// X as is, when more than a third of it is non-zero (empty otherwise).
  Eigen::MatrixXd dense_;
  /// X by rows without its zeros, when most of it is zeros (dummy codings and their
  /// interactions: a row of MIRA's design has about 12 non-zeros of 20 to 70 columns).
  /// Every evaluation multiplies X and its transpose once; held sparse, that costs the
  /// non-zeros, not n x p, so adding models (a column each) no longer adds to every
  /// row's cost (issue 29). Empty when X is dense enough to multiply as is.
  SparseRows sparse_;
  /// Scratch of evaluate(), kept between calls: a fit evaluates hundreds of times, and
  /// fresh vectors of n each time were a tenth of its time in page faults at 216,000 rows.
  /// So evaluate() is not to be called from two threads at once on one problem.
  mutable Eigen::VectorXd eta_, w_;
  std::vector<int> y_;
  std::vector<std::vector<Eigen::Index>> rows_;  ///< row indices of each group
  Eigen::Index k_;                               ///< K - 1 thresholds
};

}  // namespace mirac::stats
