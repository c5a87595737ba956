// lmm_reml.hpp: the profiled REML criterion of a random-intercept LMM and its derivatives,
// in the notation of Bates, Maechler, Bolker & Walker (2015), "Fitting Linear Mixed-Effects
// Models Using lme4", J. Stat. Softw. 67(1), sections 3.4-3.6.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Dense>

#include "runtime/stats/design.hpp"

namespace mirac::stats {

/// Everything one REML evaluation at theta produces.
struct RemlEvaluation {
  Eigen::VectorXd theta;
  double ldL2 = 0.0;          ///< log |L_theta|^2 = log |Lambda' Z' Z Lambda + I| = log |W|
  double ldRX2 = 0.0;         ///< log |R_X|^2 = log |X' W^{-1} X|
  double pwrss = 0.0;         ///< r^2(theta): penalized weighted residual sum of squares
  Eigen::VectorXd beta;       ///< beta-hat(theta)
  Eigen::MatrixXd C0;         ///< (X' W^{-1} X)^{-1}; vcov(beta) = sigma^2 C0
  // Only when derivatives were asked for:
  Eigen::MatrixXd U;          ///< Z' W^{-1} X (q x p)
  Eigen::VectorXd tr_ZtPZ;    ///< per factor k: tr(Z_k' P Z_k), P = W^-1 - W^-1 X C0 X' W^-1
  Eigen::VectorXd ss_ZtPy;    ///< per factor k: ||Z_k' P y||^2
};

/// Cross-products of X, y and the indicator matrices Z_k, computed once (O(n p^2)), after
/// which an evaluation costs O(q p^2 + p^3) for one grouping factor (Z'Z diagonal) or two
/// nested ones (each prompt within one seed: L has a closed form), and
/// O(q^3 + q^2 p + q p^2 + p^3) for crossed factors, q = total number of groups; never O(n).
/// W = I + Z Lambda Lambda' Z' is the marginal covariance of y over sigma^2.
class RemlProblem {
 public:
  RemlProblem(const SparseRows& X, const Eigen::VectorXd& y, const std::vector<CodedFactor>& groups);
  RemlProblem(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::vector<CodedFactor>& groups)
      : RemlProblem(SparseRows(X.sparseView()), y, groups) {}

  std::size_t n() const { return d_n; }
  std::size_t p() const { return static_cast<std::size_t>(d_XtX.rows()); }
  std::size_t factors() const { return d_offset.size(); }
  /// Number of groups of factor k; Z's columns are factor 0's groups, then factor 1's, ...
  Eigen::Index group_count(std::size_t k) const { return d_size.at(k); }

  RemlEvaluation evaluate(const Eigen::VectorXd& theta, bool derivatives) const;

  /// lme4 REMLcrit(theta) = ldL2 + ldRX2 + (n - p) (1 + log(2 pi r^2 / (n - p))), with sigma
  /// profiled out (Bates et al. 2015, eq. 42).
  double criterion(const RemlEvaluation& e) const;
  double criterion(const Eigen::VectorXd& theta) const { return criterion(evaluate(theta, false)); }

  /// a_k = d REMLcrit / d(theta_k^2) = tr(Z_k'PZ_k) - (n-p) ||Z_k'Py||^2 / r^2 (needs derivatives).
  Eigen::VectorXd slope_variance_ratio(const RemlEvaluation& e) const;
  /// d REMLcrit / d theta_k = 2 theta_k a_k.
  Eigen::VectorXd gradient(const RemlEvaluation& e) const;

  /// Unprofiled REML deviance D(theta, sigma) = ldL2 + ldRX2 + (n-p) log(2 pi sigma^2) + r^2/sigma^2,
  /// lmerTest's devfun_vp, and its gradient in (theta_1..theta_K, sigma).
  double deviance_vp(const Eigen::VectorXd& varpar) const;
  Eigen::VectorXd gradient_vp(const Eigen::VectorXd& varpar) const;

 private:
  std::size_t d_n = 0;
  std::vector<Eigen::Index> d_offset;  ///< first column of Z_k within Z
  std::vector<Eigen::Index> d_size;    ///< number of groups of factor k
  Eigen::VectorXd d_counts;            ///< diag(Z'Z): group sizes
  Eigen::MatrixXd d_ZtZ;               ///< q x q Z'Z, only for crossed factors (one factor: diagonal)
  /// Two factors, every group of factor d_inner within one group of the other (a prompt's
  /// answers all share its seed): d_parent[j] is inner group j's outer group. Empty otherwise.
  std::size_t d_inner = 0;
  std::vector<Eigen::Index> d_parent;
  Eigen::MatrixXd d_ZtX;               ///< q x p
  Eigen::VectorXd d_Zty;               ///< q
  Eigen::MatrixXd d_XtX;               ///< p x p
  Eigen::VectorXd d_Xty;               ///< p
  double d_yty = 0.0;
};

}  // namespace mirac::stats
