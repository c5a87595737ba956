// lmm.hpp: linear mixed models with random intercepts, fitted by REML (lme4 conventions).
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "runtime/stats/design.hpp"

namespace mirac::stats {

/// y = X beta + sum_k Z_k b_k + e, b_k ~ N(0, sigma_k^2 I), e ~ N(0, sigma^2 I).
struct LmmSpec {
  std::vector<FixedTerm> fixed;                ///< {} = intercept; caller expands a*b
  std::vector<std::string> random_intercepts;  ///< grouping variables, e.g. {"seed"}
  std::map<std::string, LevelSpec> levels;     ///< level order / reference of fixed variables
};

struct LmmOptions {
  /// theta_k = sigma_k / sigma at or below this counts as a boundary fit (lme4::isSingular's
  /// default tolerance).
  double boundary_tolerance = 1e-4;
  /// Converged when the Newton step |H^{-1} g| (in theta units) is below this.
  double step_tolerance = 1e-8;
  /// ... and the REML-deviance gradient's largest component is below this.
  double gradient_tolerance = 1e-4;
  int max_iterations = 200;
  bool satterthwaite = true;  ///< compute Satterthwaite df (lmerTest); costs a few evaluations
};

/// One fixed-effect coefficient with both inference conventions.
struct FixedEffect {
  std::string name;        ///< "(Intercept)", "language=zh", "language=zh:hls=low"
  double estimate = 0.0;
  double se = 0.0;         ///< sqrt of diag(sigma^2 (X' V^{-1} X)^{-1}), lme4 vcov()
  double z = 0.0;          ///< estimate / se
  double p_normal = 0.0;   ///< 2 Phi(-|z|), statsmodels MixedLM's P>|z|
  double df = 0.0;         ///< Satterthwaite denominator df (lmerTest); NaN if not computed
  double p_t = 0.0;        ///< 2 P(T_df > |z|), lmerTest's Pr(>|t|)
};

/// A random-intercept variance.
struct VarianceComponent {
  std::string group;        ///< grouping variable
  std::size_t levels = 0;   ///< number of groups observed
  double variance = 0.0;    ///< sigma_k^2 = theta_k^2 sigma^2
  double theta = 0.0;       ///< sigma_k / sigma, lme4's getME(fit, "theta")
  /// Wald SE of `variance` by the delta method from lmerTest's vcov_varpar (2 H^{-1} in
  /// (theta, sigma)); NaN at a boundary or when that Hessian is not positive definite.
  double se = 0.0;
  /// What statsmodels MixedLM's summary prints as "Group Var" Std.Err. (the MIRA paper's
  /// Table 17): sqrt(sigma^2) x SE(theta_k^2). Not an SE of `variance` in its own units;
  /// provided to reproduce published tables.
  double se_statsmodels = 0.0;
};

enum class ConvergenceStatus {
  converged,          ///< interior optimum, gradient ~ 0
  boundary,           ///< some theta_k ~ 0: the optimum is on the edge of the parameter space
  gradient_not_zero,  ///< stopped where the REML gradient is not ~ 0
};

/// What the optimiser can honestly claim. Never `converged` at a boundary.
struct Convergence {
  ConvergenceStatus status = ConvergenceStatus::gradient_not_zero;
  int iterations = 0;
  std::vector<double> gradient;       ///< d REMLcrit / d theta_k at the returned theta
  /// d REMLcrit / d (theta_k^2) at the returned theta: at a boundary component this one-sided
  /// slope is >= 0 when zero variance really is the constrained optimum.
  std::vector<double> gradient_variance_ratio;
  double max_abs_gradient = 0.0;      ///< max_k |gradient_k|
  double newton_step = 0.0;           ///< max_k |(H^{-1} g)_k|, lme4's "relative gradient"
  std::vector<std::string> boundary_components;  ///< groups whose variance is ~ 0
  std::string message;                ///< one line for the report
};

struct LmmFit {
  std::vector<FixedEffect> fixed;
  std::vector<VarianceComponent> random;
  double residual_variance = 0.0;   ///< sigma^2 = r^2 / (n - p)
  double residual_variance_se = std::numeric_limits<double>::quiet_NaN();  ///< Wald, delta method
  double reml_criterion = 0.0;      ///< lme4 REMLcrit (= deviance(fit, REML = TRUE))
  double log_likelihood = 0.0;      ///< -REMLcrit / 2, lme4's logLik(fit) for REML fits
  std::size_t n_obs = 0;
  Eigen::MatrixXd vcov;             ///< p x p covariance of the estimates
  Convergence convergence;
};

/// Fits by REML from a data frame: builds X (treatment coding, see build_design), codes the
/// grouping variables (observed levels only) and calls the Design overload.
/// Throws std::invalid_argument("lmm_fit: ...") on a bad spec (and build_design's errors).
LmmFit lmm_fit(const DataFrame& data, const LmmSpec& spec, const LmmOptions& options = {});

/// Fits by REML given the design and one coded grouping factor per random intercept (codes
/// aligned with the design rows, levels all observed).
LmmFit lmm_fit(const Design& design, const std::vector<CodedFactor>& groups, const LmmOptions& options = {});

/// Human-readable name of a status ("converged", "boundary", "gradient_not_zero").
const char* to_string(ConvergenceStatus status);

}  // namespace mirac::stats
