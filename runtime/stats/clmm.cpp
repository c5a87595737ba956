// clmm.cpp: cumulative-link mixed model, logit link, one random intercept, Laplace
// approximation (R ordinal::clmm with nAGQ = 1). The negative log-likelihood and its
// analytic gradient are in clmm_laplace.cpp; this file optimises, assesses convergence and
// computes the Wald inference.
#include "runtime/stats/clmm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>

#include "runtime/stats/clmm_laplace.hpp"
#include "runtime/stats/finite_difference.hpp"
#include "runtime/stats/nan.hpp"
#include "runtime/stats/p_value.hpp"

namespace mirac::stats {
namespace {

// log sigma is not taken below this: the likelihood is flat in it there (sigma ~ 4.5e-5),
// and the Newton step in log sigma would stay ~ -1/2 for ever.
constexpr double kMinLogSd = -10.0;

// The optimiser works in x = (theta_1, log(theta_2 - theta_1), ..., beta, log sigma), in
// which every x gives increasing thresholds; the reported estimates, gradient and Hessian
// are in R's natural parameters (theta, beta, log sigma).
Eigen::VectorXd to_natural(const Eigen::VectorXd& x, Eigen::Index k) {
  Eigen::VectorXd v = x;
  for (Eigen::Index j = 1; j < k; ++j) v[j] = v[j - 1] + std::exp(x[j]);
  return v;
}

Eigen::VectorXd from_natural(const Eigen::VectorXd& v, Eigen::Index k) {
  Eigen::VectorXd x = v;
  for (Eigen::Index j = 1; j < k; ++j) x[j] = std::log(v[j] - v[j - 1]);
  return x;
}

// Chain rule: d/dx_0 = sum_j d/dtheta_j; d/dx_j = exp(x_j) sum_{i >= j} d/dtheta_i.
Eigen::VectorXd gradient_in_x(const Eigen::VectorXd& g_natural, const Eigen::VectorXd& x, Eigen::Index k) {
  Eigen::VectorXd g = g_natural;
  double tail = 0.0;
  for (Eigen::Index j = k - 1; j >= 0; --j) {
    tail += g_natural[j];
    g[j] = j == 0 ? tail : std::exp(x[j]) * tail;
  }
  return g;
}

struct LaplaceOptimum {
  Eigen::VectorXd natural;
  int iterations = 0;
};

// Start: thresholds at the logits of the marginal cumulative proportions, beta = 0, sigma = 1.
Eigen::VectorXd start_value(const LaplaceProblem& prob) {
  const Eigen::Index k = prob.thresholds(), m = prob.parameters();
  Eigen::VectorXd v = Eigen::VectorXd::Zero(m);
  std::vector<double> count(static_cast<std::size_t>(k + 1), 0.0);
  for (int c : prob.categories()) count[static_cast<std::size_t>(c)] += 1.0;
  double cumulative = 0.0;
  const auto n = static_cast<double>(prob.categories().size());
  for (Eigen::Index j = 0; j < k; ++j) {
    cumulative += count[static_cast<std::size_t>(j)];
    const double q = std::clamp(cumulative / n, 1e-3, 1.0 - 1e-3);
    v[j] = std::log(q / (1.0 - q));
    if (j > 0) v[j] = std::max(v[j], v[j - 1] + 1e-2);  // strictly increasing
  }
  return v;
}

// The Hessian in x from the natural one: J' H J with J = d theta / d x, plus the gradient
// times theta's second derivatives, of which only d2 theta_i / dx_j^2 = exp(x_j), 1 <= j <= i,
// are not zero: on the diagonal they add exp(x_j) sum_{i >= j} g_i, x's own gradient.
Eigen::MatrixXd hessian_in_x(const Eigen::MatrixXd& H_natural, const Eigen::VectorXd& g_natural,
                             const Eigen::VectorXd& x, Eigen::Index k) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Identity(x.size(), x.size());
  for (Eigen::Index i = 0; i < k; ++i)
    for (Eigen::Index j = 1; j <= i; ++j) J(i, j) = std::exp(x[j]);
  for (Eigen::Index i = 1; i < k; ++i) J(i, 0) = 1.0;
  Eigen::MatrixXd H = J.transpose() * H_natural * J;
  const Eigen::VectorXd g = gradient_in_x(g_natural, x, k);
  for (Eigen::Index j = 1; j < k; ++j) H(j, j) += g[j];
  return H;
}

// Minimises nll over x by Newton's method on the exact Hessian (clmm_laplace_hessian.cpp),
// which costs about two passes over the rows, as a gradient does: so every step is a full
// Newton step, and it converges quadratically. Directions are eigenvalue-modified (always
// downhill), capped at 2 log-odds units, with Armijo backtracking.
LaplaceOptimum maximise(const LaplaceProblem& prob, const ClmmOptions& opt) {
  const Eigen::Index k = prob.thresholds(), tau = prob.parameters() - 1;
  Eigen::VectorXd x = from_natural(start_value(prob), k);
  std::vector<double> modes(prob.group_count(), 0.0);
  auto value = [&](const Eigen::VectorXd& y, std::vector<double>& warm) {
    LaplaceValue e = prob.evaluate(to_natural(y, k), warm, LaplaceDerivatives::hessian);
    e.hessian = hessian_in_x(e.hessian, e.gradient, y, k);
    e.gradient = gradient_in_x(e.gradient, y, k);
    return e;
  };
  LaplaceOptimum out;
  LaplaceValue e = value(x, modes);
  int steps_below_rounding = 0;
  while (out.iterations < opt.max_iterations) {
    ++out.iterations;
    Eigen::VectorXd g = e.gradient;
    Eigen::MatrixXd H = e.hessian;
    // sigma held at its floor while the likelihood still falls towards zero variance
    if (x[tau] <= kMinLogSd && g[tau] > 0.0) {
      H.row(tau).setZero();
      H.col(tau).setZero();
      H(tau, tau) = 1.0;
      g[tau] = 0.0;
    }
    if (!g.allFinite() || !H.allFinite()) break;
    Eigen::VectorXd s = newton_direction(H, g);
    const double longest = s.cwiseAbs().maxCoeff();
    if (longest > 2.0) s *= 2.0 / longest;
    // A tenth of the tolerance: with the exact Hessian the step is the distance to the
    // optimum, and below that the likelihood is flat to rounding.
    if (longest < 0.1 * opt.step_tolerance) break;
    // Near the optimum the decrease a Newton step promises (~ g's / 2) falls below the
    // rounding of a sum over thousands of rows; there the gradient, not the value, says
    // whether the step helps, and a shorter step cannot help more.
    const bool below_rounding = 0.5 * std::fabs(g.dot(s)) < 1e-12 * std::max(1.0, std::fabs(e.nll));
    double t = 1.0;
    Eigen::VectorXd next;
    std::vector<double> next_modes;
    LaplaceValue f;
    auto trial = [&](double step) {
      next = x + step * s;
      next[tau] = std::max(next[tau], kMinLogSd);
      next_modes = modes;
      f = value(next, next_modes);
    };
    auto accepted = [&] {
      if (below_rounding)
        return f.nll <= e.nll + 1e-12 * std::max(1.0, std::fabs(e.nll)) &&
               f.gradient.cwiseAbs().maxCoeff() < e.gradient.cwiseAbs().maxCoeff();
      return f.nll <= e.nll + 1e-4 * t * g.dot(s);
    };
    trial(t);
    if (below_rounding && !accepted()) break;  // at the optimum to rounding
    while (!accepted() && t > 1e-10) trial(t *= 0.5);
    if (t <= 1e-10) break;  // stuck: clmm_fit reports what the gradient and Hessian say
    x = next;
    modes = next_modes;
    e = f;
    // Newton converges in one or two steps once the change is below rounding; more is noise
    if (below_rounding && ++steps_below_rounding >= 5) break;
  }
  out.natural = to_natural(x, k);
  return out;
}

}  // namespace

const char* to_string(ClmmStatus status) {
  switch (status) {
    case ClmmStatus::converged: return "converged";
    case ClmmStatus::boundary: return "boundary";
    case ClmmStatus::not_converged: return "not_converged";
    case ClmmStatus::hessian_not_positive_definite: return "hessian_not_positive_definite";
    case ClmmStatus::ill_conditioned: return "ill_conditioned";
  }
  return "unknown";
}

ClmmFit clmm_fit(const Design& design, const std::vector<std::string>& categories, const CodedFactor& group,
                 const ClmmOptions& options) {
  if (categories.size() < 2) {
    throw std::invalid_argument(fmt::format(
        "clmm_fit: the response has {} observed category; an ordinal model needs at least two", categories.size()));
  }
  if (design.column_names.size() != static_cast<std::size_t>(design.X.cols())) {
    throw std::invalid_argument("clmm_fit: column_names and X disagree");
  }
  const LaplaceProblem prob(design.X, design.y, group, categories.size());
  const Eigen::Index k = prob.thresholds(), p = design.X.cols(), m = prob.parameters(), tau = m - 1;
  const LaplaceOptimum opt = maximise(prob, options);
  std::vector<double> modes(prob.group_count(), 0.0);
  const LaplaceValue e = prob.evaluate(opt.natural, modes, LaplaceDerivatives::hessian);

  ClmmFit fit;
  fit.categories = categories;
  fit.group = group.name;
  fit.groups = group.levels.size();
  fit.n_obs = static_cast<std::size_t>(design.X.rows());
  fit.sd = std::exp(opt.natural[tau]);
  fit.variance = fit.sd * fit.sd;
  fit.log_likelihood = -e.nll;

  auto& c = fit.convergence;
  c.iterations = opt.iterations;
  c.max_abs_gradient = e.gradient.cwiseAbs().maxCoeff();
  const bool boundary = fit.sd <= options.boundary_sd;
  // At a boundary the Hessian in log sigma vanishes; the SEs of the others are those with
  // sigma held at its estimate (the inverse of their block of the Hessian).
  const Eigen::Index free = boundary ? m - 1 : m;
  const Eigen::MatrixXd H = e.hessian.topLeftCorner(free, free);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(H);
  const double ev_min = eig.eigenvalues().minCoeff(), ev_max = eig.eigenvalues().maxCoeff();
  c.hessian_positive_definite = std::isfinite(ev_min) && ev_min > 0.0;
  c.condition_number = c.hessian_positive_definite ? ev_max / ev_min : kNaN;
  Eigen::VectorXd se = Eigen::VectorXd::Constant(m, kNaN);
  if (c.hessian_positive_definite) {
    fit.vcov = eig.eigenvectors() * eig.eigenvalues().cwiseInverse().asDiagonal() * eig.eigenvectors().transpose();
    se.head(free) = fit.vcov.diagonal().cwiseSqrt();
    c.newton_step = (fit.vcov * e.gradient.head(free)).cwiseAbs().maxCoeff();
  } else {
    c.newton_step = kNaN;
  }
  const double max_estimate = opt.natural.head(k + p).cwiseAbs().maxCoeff();
  if (!c.hessian_positive_definite) {
    c.status = ClmmStatus::hessian_not_positive_definite;
    c.message = fmt::format(
        "Hessian not positive definite after {} iterations (smallest eigenvalue {:.3g}): not a maximum; no SEs",
        c.iterations, ev_min);
  } else if (c.condition_number > options.max_condition) {
    c.status = ClmmStatus::ill_conditioned;
    c.message = fmt::format(
        "ill-conditioned Hessian (condition number {:.3g}, largest |estimate| {:.3g}): the likelihood is flat "
        "in some direction (separation, or a level seen in one category only); SEs unreliable",
        c.condition_number, max_estimate);
  } else if (c.max_abs_gradient > options.gradient_tolerance || !(c.newton_step <= options.step_tolerance)) {
    c.status = ClmmStatus::not_converged;
    c.message = fmt::format(
        "not converged after {} iterations: max |gradient| {:.3g}, Newton step {:.3g}, largest |estimate| {:.3g}{}",
        c.iterations, c.max_abs_gradient, c.newton_step, max_estimate,
        // log-odds beyond 10 are odds of 20,000: a coefficient heading for infinity
        max_estimate > 10.0 ? " (so large an estimate suggests separation: some level seen in extreme categories only)" : "");
  } else if (boundary) {
    c.status = ClmmStatus::boundary;
    c.message = fmt::format(
        "boundary fit: random-intercept SD of {} is ~0 ({:.3g}); SEs are those with it held there",
        group.name, fit.sd);
  } else {
    c.status = ClmmStatus::converged;
    c.message = fmt::format("converged in {} iterations: max |gradient| {:.3g}, Newton step {:.3g}, condition number {:.3g}",
                            c.iterations, c.max_abs_gradient, c.newton_step, c.condition_number);
  }

  for (Eigen::Index j = 0; j < k; ++j) {
    const auto jj = static_cast<std::size_t>(j);
    fit.thresholds.push_back({categories[jj] + "|" + categories[jj + 1], opt.natural[j], se[j]});
  }
  const boost::math::normal_distribution<double> norm;
  for (Eigen::Index j = 0; j < p; ++j) {
    OrdinalEffect fe;
    fe.name = design.column_names[static_cast<std::size_t>(j)];
    fe.estimate = opt.natural[k + j];
    fe.se = se[k + j];
    fe.z = fe.estimate / fe.se;
    fe.p = std::isfinite(fe.z) ? floor_p(2.0 * boost::math::cdf(boost::math::complement(norm, std::fabs(fe.z)))) : kNaN;
    fit.fixed.push_back(std::move(fe));
  }
  return fit;
}

ClmmFit clmm_fit(const DataFrame& data, const ClmmSpec& spec, const ClmmOptions& options) {
  if (spec.random_intercept.empty()) throw std::invalid_argument("clmm_fit: a random intercept is required");
  for (double y : data.response) {
    if (!std::isnan(y) && (!std::isfinite(y) || y != std::floor(y))) {
      throw std::invalid_argument(fmt::format("clmm_fit: score {} is not a whole number; an ordinal model needs "
                                              "integer categories", y));
    }
  }
  // Treatment coding against an intercept, which is then dropped: the thresholds take its place.
  std::vector<FixedTerm> terms{FixedTerm{}};
  for (const auto& t : spec.fixed)
    if (!t.empty()) terms.push_back(t);
  Design design = build_design(data, terms, spec.levels);
  design.X = SparseRows(design.X.rightCols(design.X.cols() - 1));
  design.column_names.erase(design.column_names.begin());
  // categories: the observed values, ascending; y becomes their index
  std::set<double> values(design.y.data(), design.y.data() + design.y.size());
  std::vector<double> sorted(values.begin(), values.end());
  std::vector<std::string> categories;
  for (double v : sorted) categories.push_back(fmt::format("{:g}", v));
  for (Eigen::Index i = 0; i < design.y.size(); ++i) {
    design.y[i] = static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), design.y[i]) - sorted.begin());
  }
  const CodedFactor group = code_factor(data, spec.random_intercept, design.kept_rows, {});
  return clmm_fit(design, categories, group, options);
}

}  // namespace mirac::stats
