// clmm_laplace.cpp: Laplace objective of the cumulative-logit random-intercept model and its
// gradient. The gradient is the total derivative through the modes b_g(psi):
//   d nll_g / d psi = h_psi + (D_psi + h_bbb db/dpsi) / (2 D),  db/dpsi = -h_bpsi / D,
// h the negative log integrand, D = h_bb; all from derivatives of log p up to third order.
#include "runtime/stats/clmm_laplace.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace mirac::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The logistic cdf F, its complement G = 1 - F and the density's derivatives at z, each
// computed without cancellation in either tail. At z = +-inf everything but F or G is 0.
struct Logistic {
  double F = 0.0, G = 0.0, f = 0.0, f1 = 0.0, f2 = 0.0;
};

Logistic logistic(double z) {
  Logistic l;
  if (z == kInf) return {1.0, 0.0, 0.0, 0.0, 0.0};
  if (z == -kInf) return {0.0, 1.0, 0.0, 0.0, 0.0};
  const double e = std::exp(-std::fabs(z));
  const double small = e / (1.0 + e), large = 1.0 / (1.0 + e);
  l.F = z >= 0 ? large : small;
  l.G = z >= 0 ? small : large;
  l.f = l.F * l.G;
  l.f1 = l.f * (l.G - l.F);        // f' = f (1 - 2F)
  l.f2 = l.f * (1.0 - 6.0 * l.f);  // f'' = f (1 - 6F + 6F^2)
  return l;
}

// Derivatives of l = log p, p = F(z1) - F(z0), where S = d/dz0 + d/dz1 is the common shift
// (b and x'beta enter as -S) and d0, d1 the threshold-wise partials:
//   a1 = S l, a2 = S^2 l, a3 = S^3 l, c_k = d_k l, d_k = d_k S l, e_k = d_k S^2 l.
struct RowTerms {
  double log_p = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  double c0 = 0.0, c1 = 0.0, d0 = 0.0, d1 = 0.0, e0 = 0.0, e1 = 0.0;
};

RowTerms row_terms(double z0, double z1, bool full) {
  const Logistic L0 = logistic(z0), L1 = logistic(z1);
  // both ends in the upper tail: subtract the complements, which are not rounded to 1
  const double p = z0 > 0.0 ? L0.G - L1.G : L1.F - L0.F;
  RowTerms r;
  r.log_p = p > 0.0 ? std::log(p) : -kInf;
  const double s1 = (L1.f - L0.f) / p, s2 = (L1.f1 - L0.f1) / p, s3 = (L1.f2 - L0.f2) / p;
  r.a1 = s1;
  r.a2 = s2 - s1 * s1;
  if (!full) return r;
  r.a3 = s3 - 3.0 * s1 * s2 + 2.0 * s1 * s1 * s1;
  const double q1 = L1.f / p, q0 = L0.f / p;
  r.c1 = q1;
  r.c0 = -q0;
  r.d1 = L1.f1 / p - s1 * q1;
  r.d0 = -L0.f1 / p + s1 * q0;
  r.e1 = L1.f2 / p - s2 * q1 - 2.0 * s1 * L1.f1 / p + 2.0 * s1 * s1 * q1;
  r.e0 = -L0.f2 / p + s2 * q0 + 2.0 * s1 * L0.f1 / p - 2.0 * s1 * s1 * q0;
  return r;
}

}  // namespace

LaplaceProblem::LaplaceProblem(const SparseRows& X, const Eigen::VectorXd& y, const CodedFactor& group,
                               std::size_t categories)
    : n_(X.rows()), p_(X.cols()), k_(static_cast<Eigen::Index>(categories) - 1) {
  if (y.size() != X.rows() || group.codes.size() != static_cast<std::size_t>(X.rows())) {
    throw std::invalid_argument("clmm_fit: response, design and group disagree in length");
  }
  y_.reserve(static_cast<std::size_t>(y.size()));
  for (Eigen::Index i = 0; i < y.size(); ++i) y_.push_back(static_cast<int>(y[i]));
  // Sparse when at most a third of X is non-zero: below that the sparse products win.
  if (X.size() > 0 && X.nonZeros() > 0 && 3 * X.nonZeros() <= X.size()) sparse_ = X;
  else dense_ = X.toDense();
  rows_.resize(group.levels.size());
  for (std::size_t i = 0; i < group.codes.size(); ++i) {
    rows_[static_cast<std::size_t>(group.codes[i])].push_back(static_cast<Eigen::Index>(i));
  }
}

LaplaceValue LaplaceProblem::evaluate(const Eigen::VectorXd& v, std::vector<double>& modes,
                                      LaplaceDerivatives derivatives) const {
  const Eigen::Index p = p_, tau = k_ + p;
  const Eigen::VectorXd theta = v.head(k_);
  Eigen::VectorXd& eta = eta_;
  eta.resize(n_);
  if (sparse_design()) eta.noalias() = sparse_ * v.segment(k_, p);
  else eta.noalias() = dense_ * v.segment(k_, p);
  const double sigma2 = std::exp(2.0 * v[tau]);
  LaplaceValue out;
  out.gradient = Eigen::VectorXd::Zero(parameters());
  const bool with_hessian = derivatives == LaplaceDerivatives::hessian;
  if (with_hessian) out.hessian = Eigen::MatrixXd::Zero(parameters(), parameters());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto invalid = [&] {
    out.nll = kInf;
    out.gradient.setConstant(nan);
    out.hessian.setConstant(nan);
    return out;
  };
  for (Eigen::Index j = 1; j < k_; ++j)
    if (!(theta[j] > theta[j - 1])) return invalid();
  auto bounds = [&](Eigen::Index i, double b) {
    const int c = y_[static_cast<std::size_t>(i)];
    const double z0 = c > 0 ? theta[c - 1] - eta[i] - b : -kInf;
    const double z1 = c < k_ ? theta[c] - eta[i] - b : kInf;
    return std::pair{z0, z1};
  };
  Eigen::VectorXd& w = w_;  // per-row weight of x_i in d nll / d beta
  w.setZero(n_);
  std::vector<RowTerms> terms;  // the current group's, reused from group to group
  for (std::size_t g = 0; g < rows_.size(); ++g) {
    const auto& rows = rows_[g];
    // h(b) = -sum log p_i(b) + b^2 / (2 sigma^2) is strictly convex (the logistic is
    // log-concave), so Newton with step halving finds its unique minimum. One pass over the
    // group's rows gives h, h' and h'' together.
    struct Point {
      double b, h, hb, D;
    };
    auto at = [&](double b) {
      Point q{b, 0.5 * b * b / sigma2, b / sigma2, 1.0 / sigma2};
      for (Eigen::Index i : rows) {
        const auto [z0, z1] = bounds(i, b);
        const RowTerms r = row_terms(z0, z1, false);
        q.h -= r.log_p;
        q.hb += r.a1;
        q.D -= r.a2;
      }
      return q;
    };
    Point cur = at(std::isfinite(modes[g]) ? modes[g] : 0.0);
    for (int it = 0; it < 100; ++it) {
      const double step = cur.hb / cur.D;
      if (!std::isfinite(step)) return invalid();
      if (std::fabs(step) <= 1e-11 * (1.0 + std::fabs(cur.b))) break;
      double t = 1.0;
      Point next = at(cur.b - step);
      // Close to the mode a Newton step on a convex h cannot overshoot, and the change in h
      // is below its rounding: there the slope decides. Far from it, halve until h falls.
      if (std::fabs(step) < 1e-4 * (1.0 + std::fabs(cur.b))) {
        if (!(std::fabs(next.hb) < std::fabs(cur.hb))) break;  // at the mode to rounding
        cur = next;
        continue;
      }
      while (!(next.h <= cur.h) && t > 1e-8) {
        t *= 0.5;
        next = at(cur.b - t * step);
      }
      if (!(next.h <= cur.h)) break;
      cur = next;
    }
    const double b = cur.b;
    modes[g] = b;
    double D = 1.0 / sigma2, H3 = 0.0, log_p = 0.0;
    terms.clear();
    for (Eigen::Index i : rows) {
      const auto [z0, z1] = bounds(i, b);
      terms.push_back(row_terms(z0, z1, true));
      const RowTerms& r = terms.back();
      log_p += r.log_p;
      D -= r.a2;
      H3 += r.a3;
    }
    if (!std::isfinite(log_p) || !(D > 0.0)) return invalid();
    out.nll += -log_p + 0.5 * b * b / sigma2 + v[tau] + 0.5 * std::log(D);
    for (std::size_t r_i = 0; r_i < rows.size(); ++r_i) {
      const RowTerms& r = terms[r_i];
      const Eigen::Index i = rows[r_i];
      w[i] = r.a1 + 0.5 / D * (r.a3 + H3 * r.a2 / D);
      const int c = y_[static_cast<std::size_t>(i)];
      if (c < k_) out.gradient[c] += -r.c1 + 0.5 / D * (-r.e1 - H3 * r.d1 / D);
      if (c > 0) out.gradient[c - 1] += -r.c0 + 0.5 / D * (-r.e0 - H3 * r.d0 / D);
    }
    out.gradient[tau] += 1.0 - b * b / sigma2 + 0.5 / D * (-2.0 / sigma2 + 2.0 * b * H3 / (sigma2 * D));
    if (with_hessian) add_group_hessian(g, theta, b, sigma2, D, H3, out.hessian);
  }
  if (sparse_design()) out.gradient.segment(k_, p).noalias() = sparse_.transpose() * w;
  else out.gradient.segment(k_, p).noalias() = dense_.transpose() * w;
  return out;
}

}  // namespace mirac::stats
