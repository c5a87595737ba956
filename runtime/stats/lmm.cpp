// lmm.cpp: REML fit of a random-intercept LMM: Newton on the profiled criterion, honest
// convergence report, Wald (statsmodels) and Satterthwaite (lmerTest) inference.
#include "runtime/stats/lmm.hpp"
#include "runtime/stats/nan.hpp"
#include "runtime/stats/p_value.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "runtime/stats/finite_difference.hpp"
#include "runtime/stats/lmm_reml.hpp"

namespace mirac::stats {
namespace {

struct RemlOptimum {
  Eigen::VectorXd theta;
  int iterations = 0;
};

// Newton iterations from `theta` until the step or the decrease vanishes.
int newton(const RemlProblem& prob, const LmmOptions& opt, Eigen::VectorXd& theta, int budget) {
  auto grad = [&](const Eigen::VectorXd& t) { return prob.gradient(prob.evaluate(t, true)); };
  int iterations = 0;
  while (iterations < budget) {
    ++iterations;
    const auto e = prob.evaluate(theta, true);
    const double f = prob.criterion(e);
    const Eigen::VectorXd g = prob.gradient(e);
    Eigen::VectorXd s = newton_direction(hessian_from_gradient(grad, theta), g);
    const double longest = s.cwiseAbs().maxCoeff();
    if (longest > 1.0) s /= longest;  // trust region of 1 in theta units: theta is sd / sigma
    if (longest < 1e-3 * opt.step_tolerance) break;
    Eigen::VectorXd next = (theta + s).cwiseAbs();
    // Close to the optimum the full step is judged by the analytic gradient, not by
    // REMLcrit: on a large data set (MIRA's REMLcrit is ~1e5) what is left to gain there,
    // ~1e-10, is below REMLcrit's rounding, so a line search on it stalls or creeps by
    // rounding luck while theta is still 1e-6 off. Newton's step shrinks the gradient
    // quadratically here; when it does not, the line search below decides.
    const bool near = longest < 1e-3 && grad(next).cwiseAbs().maxCoeff() < g.cwiseAbs().maxCoeff();
    if (!near) {
      double t = 1.0;  // backtracking with Armijo's sufficient decrease (Nocedal & Wright 3.1)
      while (prob.criterion(next) > f + 1e-4 * t * g.dot(s) && t > 1e-12) {
        t *= 0.5;
        next = (theta + t * s).cwiseAbs();
      }
      if (t <= 1e-12) break;  // no decrease along the direction: at numerical precision
    }
    const double moved = (next - theta).cwiseAbs().maxCoeff();
    theta = next;
    if (moved < 1e-3 * opt.step_tolerance) break;
  }
  return iterations;
}

// Minimises REMLcrit(theta) over theta >= 0. REMLcrit depends on theta only through theta^2,
// so a trial point with a negative component is reflected to |theta| without loss. The
// flip side: at theta_k = 0 the gradient in theta_k is zero whatever the slope in theta_k^2,
// so Newton can come to rest there although the criterion falls away from zero. When it
// does (negative slope in theta_k^2), theta_k restarts from the best point of a
// geometric grid along that axis and Newton resumes.
RemlOptimum minimise(const RemlProblem& prob, const LmmOptions& opt) {
  const auto K = static_cast<Eigen::Index>(prob.factors());
  RemlOptimum out;
  out.theta = Eigen::VectorXd::Ones(K);  // lme4's starting value
  out.iterations = newton(prob, opt, out.theta, opt.max_iterations);
  for (int restart = 0; restart < 5 && out.iterations < opt.max_iterations; ++restart) {
    const auto e = prob.evaluate(out.theta, true);
    const Eigen::VectorXd slope = prob.slope_variance_ratio(e);
    bool escaped = false;
    for (Eigen::Index k = 0; k < K; ++k) {
      if (out.theta[k] > opt.boundary_tolerance || slope[k] >= -opt.gradient_tolerance) continue;
      Eigen::VectorXd trial = out.theta;
      double best = prob.criterion(e);
      for (double v = 1e-3; v <= 10.0; v *= 1.5) {
        trial[k] = v;
        if (double f = prob.criterion(prob.evaluate(trial, false)); f < best) best = f, out.theta[k] = v;
      }
      escaped = escaped || out.theta[k] > opt.boundary_tolerance;
    }
    if (!escaped) break;
    out.iterations += newton(prob, opt, out.theta, opt.max_iterations - out.iterations);
  }
  return out;
}

Convergence assess(const RemlProblem& prob, const Eigen::VectorXd& theta, int iterations,
                   const std::vector<CodedFactor>& groups, const LmmOptions& opt) {
  Convergence c;
  c.iterations = iterations;
  const auto e = prob.evaluate(theta, true);
  const Eigen::VectorXd g = prob.gradient(e);
  const Eigen::VectorXd a = prob.slope_variance_ratio(e);
  c.gradient.assign(g.data(), g.data() + g.size());
  c.gradient_variance_ratio.assign(a.data(), a.data() + a.size());
  c.max_abs_gradient = g.cwiseAbs().maxCoeff();
  auto grad = [&](const Eigen::VectorXd& t) { return prob.gradient(prob.evaluate(t, true)); };
  const Eigen::MatrixXd H = hessian_from_gradient(grad, theta);
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(H);
  c.newton_step = ldlt.info() == Eigen::Success ? ldlt.solve(g).cwiseAbs().maxCoeff() : kNaN;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (theta[static_cast<Eigen::Index>(k)] <= opt.boundary_tolerance) c.boundary_components.push_back(groups[k].name);
  }
  if (!c.boundary_components.empty()) {
    std::string names, slopes;
    bool uphill = true;  // zero variance is a constrained minimum only if REMLcrit rises with theta_k^2
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const auto kk = static_cast<Eigen::Index>(k);
      if (theta[kk] > opt.boundary_tolerance) continue;
      names += (names.empty() ? "" : ", ") + groups[k].name;
      slopes += fmt::format("{}{:.6g}", slopes.empty() ? "" : ", ", a[kk]);
      uphill = uphill && a[kk] >= -opt.gradient_tolerance;
    }
    if (uphill) {
      c.status = ConvergenceStatus::boundary;
      c.message = fmt::format(
          "boundary (singular) fit: variance of {} is ~0 (theta <= {:g}); slope of REMLcrit in theta^2 "
          "at the boundary: {} (>= 0: zero is the constrained optimum, not an interior one)",
          names, opt.boundary_tolerance, slopes);
    } else {
      c.status = ConvergenceStatus::gradient_not_zero;
      c.message = fmt::format(
          "not converged: stopped at zero variance of {} although REMLcrit decreases away from it "
          "(slope in theta^2: {})", names, slopes);
    }
  } else if (c.newton_step <= opt.step_tolerance && c.max_abs_gradient <= opt.gradient_tolerance) {
    c.status = ConvergenceStatus::converged;
    c.message = fmt::format("converged in {} iterations: max |gradient| {:.3g}, Newton step {:.3g}",
                            iterations, c.max_abs_gradient, c.newton_step);
  } else {
    c.status = ConvergenceStatus::gradient_not_zero;
    c.message = fmt::format("not converged after {} iterations: max |gradient| {:.3g}, Newton step {:.3g}",
                            iterations, c.max_abs_gradient, c.newton_step);
  }
  return c;
}

// Covariance of the variance parameters (theta_1..theta_K, sigma) as lmerTest's vcov_varpar:
// A = 2 H^{-1}, H the Hessian of D(theta, sigma) (inverse observed information on the
// deviance scale). Empty when H is not positive definite (not a minimum).
std::optional<Eigen::MatrixXd> varpar_covariance(const RemlProblem& prob, const Eigen::VectorXd& theta, double sigma) {
  const auto K = theta.size();
  Eigen::VectorXd varpar(K + 1);
  varpar << theta, sigma;
  const Eigen::MatrixXd H =
      hessian_from_gradient([&](const Eigen::VectorXd& v) { return prob.gradient_vp(v); }, varpar);
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(H);
  if (ldlt.info() != Eigen::Success || (ldlt.vectorD().array() <= 0.0).any()) return std::nullopt;
  return Eigen::MatrixXd(2.0 * ldlt.solve(Eigen::MatrixXd::Identity(K + 1, K + 1)));
}

// Satterthwaite df for each coefficient, as lmerTest::contest1D with L = e_j:
//   df_j = 2 Var(beta_j)^2 / (g_j' A g_j),  g_j = d Var(beta_j) / d(theta, sigma)
// (Kuznetsova, Brockhoff & Christensen 2017, eq. 7; Satterthwaite 1946).
std::vector<double> satterthwaite_df(const RemlProblem& prob, const RemlEvaluation& e, double sigma,
                                     const Eigen::MatrixXd& A) {
  const auto K = static_cast<Eigen::Index>(prob.factors());
  const Eigen::Index p = e.C0.rows();
  std::vector<double> df(static_cast<std::size_t>(p), kNaN);
  const double sigma2 = sigma * sigma;
  const Eigen::MatrixXd UC0 = e.U * e.C0;  // rows u_i' C0
  for (Eigen::Index j = 0; j < p; ++j) {
    Eigen::VectorXd g(K + 1);
    Eigen::Index row = 0;
    for (Eigen::Index k = 0; k < K; ++k) {
      const Eigen::Index q_k = prob.group_count(static_cast<std::size_t>(k));
      // dC0/dtheta_k = 2 theta_k C0 U_k'U_k C0, so d Var(beta_j)/dtheta_k = sigma^2 2 theta_k ||U_k C0 e_j||^2
      g[k] = sigma2 * 2.0 * e.theta[k] * UC0.block(row, j, q_k, 1).squaredNorm();
      row += q_k;
    }
    g[K] = 2.0 * sigma * e.C0(j, j);  // d(sigma^2 C0_jj)/d sigma
    const double var = sigma2 * e.C0(j, j);
    df[static_cast<std::size_t>(j)] = 2.0 * var * var / g.dot(A * g);
  }
  return df;
}

// statsmodels' printed "Group Var" Std.Err.: sqrt(scale) times the SE of psi_k = theta_k^2
// from the inverse Hessian of the profiled criterion in psi (MixedLMResults.summary). The
// Hessian in psi is taken by differences of the analytic slope a(psi) = d REMLcrit / d psi,
// one-sided at psi = 0 so that boundary fits get a value too (as statsmodels prints one).
std::vector<double> statsmodels_variance_se(const RemlProblem& prob, const Eigen::VectorXd& theta, double sigma) {
  const auto K = theta.size();
  const Eigen::VectorXd psi = theta.cwiseProduct(theta);
  auto slope = [&](const Eigen::VectorXd& ps) {
    return prob.slope_variance_ratio(prob.evaluate(ps.cwiseMax(0.0).cwiseSqrt(), true));
  };
  Eigen::MatrixXd H(K, K);
  for (Eigen::Index j = 0; j < K; ++j) {
    const double h = 1e-4 * std::max(psi[j], 1e-2);
    Eigen::VectorXd up = psi, down = psi, up2 = psi;
    if (psi[j] >= h) {
      up[j] += h;
      down[j] -= h;
      H.col(j) = (slope(up) - slope(down)) / (2.0 * h);  // central
    } else {
      up[j] += h;
      up2[j] += 2.0 * h;
      H.col(j) = (-3.0 * slope(psi) + 4.0 * slope(up) - slope(up2)) / (2.0 * h);  // forward, O(h^2)
    }
  }
  H = 0.5 * (H + H.transpose());
  std::vector<double> se(static_cast<std::size_t>(K), kNaN);
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(H);
  if (ldlt.info() != Eigen::Success || (ldlt.vectorD().array() <= 0.0).any()) return se;
  const Eigen::MatrixXd cov_psi = 2.0 * ldlt.solve(Eigen::MatrixXd::Identity(K, K));  // REMLcrit = -2 llf
  for (Eigen::Index k = 0; k < K; ++k) se[static_cast<std::size_t>(k)] = sigma * std::sqrt(cov_psi(k, k));
  return se;
}

}  // namespace

const char* to_string(ConvergenceStatus status) {
  switch (status) {
    case ConvergenceStatus::converged: return "converged";
    case ConvergenceStatus::boundary: return "boundary";
    case ConvergenceStatus::gradient_not_zero: return "gradient_not_zero";
  }
  return "unknown";
}

LmmFit lmm_fit(const Design& design, const std::vector<CodedFactor>& groups, const LmmOptions& options) {
  if (design.column_names.size() != static_cast<std::size_t>(design.X.cols())) {
    throw std::invalid_argument("lmm_fit: column_names and X disagree");
  }
  const RemlProblem prob(design.X, design.y, groups);
  // r^2 at the start value; relative to y'y since it is computed as a difference of sums
  const double r2 = prob.evaluate(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(groups.size())), false).pwrss;
  if (!(r2 > 1e-12 * design.y.squaredNorm())) {
    throw std::invalid_argument("lmm_fit: the fixed and random effects fit the response exactly (zero residual)");
  }
  const RemlOptimum opt = minimise(prob, options);
  const auto e = prob.evaluate(opt.theta, true);

  LmmFit fit;
  fit.n_obs = prob.n();
  const double nmp = static_cast<double>(prob.n() - prob.p());
  fit.residual_variance = e.pwrss / nmp;  // sigma^2-hat = r^2 / (n - p) (REML)
  const double sigma = std::sqrt(fit.residual_variance);
  fit.reml_criterion = prob.criterion(e);
  fit.log_likelihood = -0.5 * fit.reml_criterion;
  fit.vcov = fit.residual_variance * e.C0;  // Var(beta-hat) = sigma^2 (X'W^{-1}X)^{-1}
  for (std::size_t k = 0; k < groups.size(); ++k) {
    const double th = opt.theta[static_cast<Eigen::Index>(k)];
    fit.random.push_back({groups[k].name, groups[k].levels.size(), th * th * fit.residual_variance, th, kNaN, kNaN});
  }
  fit.convergence = assess(prob, opt.theta, opt.iterations, groups, options);

  std::vector<double> df(prob.p(), kNaN);
  const auto A = varpar_covariance(prob, opt.theta, sigma);
  if (A) {
    if (options.satterthwaite) df = satterthwaite_df(prob, e, sigma, *A);
    const auto K = opt.theta.size();
    for (Eigen::Index k = 0; k < K; ++k) {
      // delta method: sigma_k^2 = theta_k^2 sigma^2, gradient (2 theta_k sigma^2 e_k, 2 sigma theta_k^2)
      Eigen::VectorXd g = Eigen::VectorXd::Zero(K + 1);
      g[k] = 2.0 * opt.theta[k] * fit.residual_variance;
      g[K] = 2.0 * sigma * opt.theta[k] * opt.theta[k];
      // at a boundary the delta method would give 0: the Wald SE is meaningless there
      fit.random[static_cast<std::size_t>(k)].se =
          opt.theta[k] > options.boundary_tolerance ? std::sqrt(g.dot(*A * g)) : kNaN;
    }
    fit.residual_variance_se = 2.0 * sigma * std::sqrt((*A)(K, K));  // d sigma^2 / d sigma = 2 sigma
  }
  const auto se_sm = statsmodels_variance_se(prob, opt.theta, sigma);
  for (std::size_t k = 0; k < se_sm.size(); ++k) fit.random[k].se_statsmodels = se_sm[k];
  const boost::math::normal_distribution<double> norm;
  for (std::size_t j = 0; j < prob.p(); ++j) {
    const auto jj = static_cast<Eigen::Index>(j);
    FixedEffect fe;
    fe.name = design.column_names[j];
    fe.estimate = e.beta[jj];
    fe.se = std::sqrt(fit.vcov(jj, jj));
    fe.z = fe.estimate / fe.se;
    fe.p_normal = floor_p(2.0 * boost::math::cdf(boost::math::complement(norm, std::fabs(fe.z))));  // 2 Phi(-|z|)
    fe.df = df[j];
    if (std::isfinite(fe.df) && fe.df > 0.0) {
      const boost::math::students_t_distribution<double> t(fe.df);
      fe.p_t = floor_p(2.0 * boost::math::cdf(boost::math::complement(t, std::fabs(fe.z))));  // 2 P(T_df > |t|)
    } else {
      fe.p_t = kNaN;
    }
    fit.fixed.push_back(std::move(fe));
  }
  return fit;
}

LmmFit lmm_fit(const DataFrame& data, const LmmSpec& spec, const LmmOptions& options) {
  if (spec.random_intercepts.empty()) throw std::invalid_argument("lmm_fit: at least one random intercept is required");
  const Design design = build_design(data, spec.fixed, spec.levels);
  std::vector<CodedFactor> groups;
  for (const auto& name : spec.random_intercepts) {
    groups.push_back(code_factor(data, name, design.kept_rows, {}));  // observed levels, sorted
  }
  return lmm_fit(design, groups, options);
}

}  // namespace mirac::stats
