// clmm.hpp: cumulative-link mixed models for ordinal scores (logit link, one random
// intercept), fitted by the Laplace approximation, in R ordinal::clmm's parameterisation.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "runtime/stats/design.hpp"

namespace mirac::stats {

/// P(Y <= j | b_g) = logistic(theta_j - x'beta - b_g), j = 1..K-1, b_g ~ N(0, sigma^2).
/// The thresholds play the intercept's part: X has no intercept column (R's ordinal).
struct ClmmSpec {
  std::vector<FixedTerm> fixed;             ///< no {} (intercept): the thresholds are it
  std::string random_intercept;             ///< the one grouping variable, e.g. "seed"
  std::map<std::string, LevelSpec> levels;  ///< level order / reference of fixed variables
};

struct ClmmOptions {
  /// Converged when the largest |gradient| of the negative log-likelihood in (theta, beta,
  /// log sigma) is at most this (a sum over all rows: on 21,600 rows its rounding floor is
  /// ~1e-6) ...
  double gradient_tolerance = 1e-4;
  /// ... and the largest Newton step |H^{-1} g| is at most this (a flat likelihood, as under
  /// separation, has a small gradient but keeps taking unit steps).
  double step_tolerance = 1e-6;
  /// sigma at or below this is a boundary fit: no random-intercept variance to speak of.
  double boundary_sd = 1e-3;
  /// A Hessian whose eigenvalue ratio exceeds this is reported as ill-conditioned.
  double max_condition = 1e10;
  int max_iterations = 100;
};

/// One threshold theta_j, named "j|j+1" after the categories it separates (R's names).
struct Threshold {
  std::string name;
  double estimate = 0.0;
  double se = 0.0;
};

/// A coefficient on the log-odds scale of a higher category (R's sign: positive beta shifts
/// the scores up).
struct OrdinalEffect {
  std::string name;  ///< "language=zh", "language=zh:hls=low"
  double estimate = 0.0;
  double se = 0.0;   ///< sqrt of diag of the inverse Hessian (summary(clmm))
  double z = 0.0;
  double p = 0.0;    ///< 2 Phi(-|z|), floored with floor_p
};

enum class ClmmStatus {
  converged,                  ///< gradient and Newton step ~ 0, Hessian positive definite
  boundary,                   ///< sigma ~ 0: the optimum is on the edge of the parameter space
  not_converged,              ///< stopped where the gradient or the Newton step is not ~ 0
  hessian_not_positive_definite,  ///< no SEs: not a (strict) maximum
  ill_conditioned,            ///< Hessian nearly singular (e.g. separation): SEs unreliable
};

struct ClmmConvergence {
  ClmmStatus status = ClmmStatus::not_converged;
  int iterations = 0;
  double max_abs_gradient = 0.0;  ///< in (theta, beta, log sigma)
  double newton_step = 0.0;       ///< max |H^{-1} g| (NaN if H is not positive definite)
  bool hessian_positive_definite = false;
  double condition_number = 0.0;  ///< largest / smallest eigenvalue of the Hessian
  std::string message;            ///< one line for the report
};

struct ClmmFit {
  std::vector<Threshold> thresholds;
  std::vector<OrdinalEffect> fixed;
  std::string group;          ///< grouping variable
  std::size_t groups = 0;     ///< groups observed
  double variance = 0.0;      ///< sigma^2
  double sd = 0.0;            ///< sigma
  double log_likelihood = 0.0;  ///< Laplace approximation (R's logLik(clmm))
  std::size_t n_obs = 0;
  std::vector<std::string> categories;  ///< observed response values, ascending
  Eigen::MatrixXd vcov;       ///< (K-1+p+1)^2: inverse Hessian in (theta, beta, log sigma); empty if not PD
  ClmmConvergence convergence;
};

/// Fits from a data frame: the response must hold whole numbers (NaN = missing, dropped);
/// its observed values are the categories. Builds X with treatment coding (build_design, no
/// intercept column) and codes the grouping variable (observed levels).
/// Throws std::invalid_argument("clmm_fit: ...") for a response with fewer than two
/// categories, non-integer scores, a missing grouping variable (and build_design's errors).
ClmmFit clmm_fit(const DataFrame& data, const ClmmSpec& spec, const ClmmOptions& options = {});

/// Fits given the design (no intercept column; y holds category indices 0..K-1), the names
/// of the K categories and the coded grouping factor aligned with the design rows.
ClmmFit clmm_fit(const Design& design, const std::vector<std::string>& categories, const CodedFactor& group,
                 const ClmmOptions& options = {});

/// "converged", "boundary", "not_converged", "hessian_not_positive_definite", "ill_conditioned".
const char* to_string(ClmmStatus status);

}  // namespace mirac::stats
