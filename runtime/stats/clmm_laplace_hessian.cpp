// clmm_laplace_hessian.cpp: the exact Hessian of the Laplace objective (clmm_laplace.hpp),
// by implicit differentiation through each group's mode.
//
// Per group, nll_g(psi) = F(b(psi), psi) with F = h + tau + log(h_bb) / 2 and h_b(b(psi), psi)
// = 0, h the negative log integrand. Write D = h_bb, E = h_bbb, G = h_bbbb and, for every
// parameter, A = h_bpsi, B = h_bbpsi, C = h_bbbpsi. Differentiating twice, with
// db/dpsi = -A / D and d2b/dpsi dpsi' from differentiating h_b = 0 twice:
//   d2 nll_g = M + a AA' + c_B BB' + c_AB (AB' + BA') + c_AC (AC' + CA'),
//   M = h_psipsi' + h_bbpsipsi' / (2D) - E / (2D^2) h_bpsipsi',
//   a = -1/D + G/(2D^3) - E^2/D^4,  c_B = c_AC = -1/(2D^2),  c_AB = E/D^3.
// M is a sum over rows, each touching its two thresholds and the non-zeros of its design
// row: its cost is rows x (non-zeros per row)^2, however many columns the design has. The
// rest is a few outer products of parameter vectors per group. Differences of the gradient
// (what clmm.cpp did before) cost two passes over every row per parameter (issue 29).
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "runtime/stats/clmm_laplace.hpp"
#include "runtime/stats/clmm_row_curvature.hpp"

namespace mirac::stats {

void LaplaceProblem::add_group_hessian(std::size_t g, const Eigen::VectorXd& theta, double b, double sigma2,
                                       double D, double E, Eigen::MatrixXd& hessian) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Eigen::Index p = p_, tau = k_ + p, m = parameters();
  Eigen::VectorXd A = Eigen::VectorXd::Zero(m), B = Eigen::VectorXd::Zero(m), C = Eigen::VectorXd::Zero(m);
  double G = 0.0;
  const double slope_of_log_D = E / (2.0 * D);  // F_b at the mode
  std::vector<std::pair<Eigen::Index, double>> nonzeros;
  nonzeros.reserve(static_cast<std::size_t>(p));
  for (Eigen::Index i : rows_[g]) {
    const int c = y_[static_cast<std::size_t>(i)];
    const double z0 = c > 0 ? theta[c - 1] - eta_[i] - b : -kInf;
    const double z1 = c < k_ ? theta[c] - eta_[i] - b : kInf;
    const RowCurvature r = row_curvature(z0, z1);
    // h = -sum l + b^2 / (2 sigma^2): b moves the ends along -s, beta_j along -x_ij s, the
    // thresholds theta_{c-1} and theta_c along e0 and e1.
    G -= r.s4;
    // The row's share of M as a bilinear form on (e0, e1), indexed by j + k.
    double Q[3];
    for (int n = 0; n < 3; ++n) Q[n] = -r.ee[n] - r.ssee[n] / (2.0 * D) - slope_of_log_D / D * r.see[n];
    const double Qss = Q[0] + 2.0 * Q[1] + Q[2];
    const double Qse[2] = {Q[0] + Q[1], Q[1] + Q[2]};
    const bool has_end[2] = {c > 0, c < k_};
    const Eigen::Index end_index[2] = {c - 1, c};
    for (int e = 0; e < 2; ++e) {
      if (!has_end[e]) continue;
      const Eigen::Index t = end_index[e];
      A[t] += r.s1e[e];
      B[t] -= r.s2e[e];
      C[t] += r.s3e[e];
      for (int f = 0; f < 2; ++f)
        if (has_end[f]) hessian(t, end_index[f]) += Q[e + f];
    }
    nonzeros.clear();
    if (sparse_design()) {
      for (SparseRows::InnerIterator it(sparse_, i); it; ++it)
        nonzeros.emplace_back(it.col(), it.value());
    } else {
      for (Eigen::Index j = 0; j < p; ++j)
        if (dense_(i, j) != 0.0) nonzeros.emplace_back(j, dense_(i, j));
    }
    for (const auto& [j, x] : nonzeros) {
      const Eigen::Index col = k_ + j;
      A[col] -= x * r.s2;
      B[col] += x * r.s3;
      C[col] -= x * r.s4;
      for (int e = 0; e < 2; ++e) {
        if (!has_end[e]) continue;
        hessian(end_index[e], col) -= x * Qse[e];
        hessian(col, end_index[e]) -= x * Qse[e];
      }
      for (const auto& [l, x2] : nonzeros) hessian(col, k_ + l) += x * x2 * Qss;
    }
  }
  // The prior b^2 / (2 sigma^2), sigma^2 = exp(2 tau), is the only term in tau.
  A[tau] = -2.0 * b / sigma2;
  B[tau] = -2.0 / sigma2;
  hessian(tau, tau) += 2.0 * b * b / sigma2 + 2.0 / (sigma2 * D) - slope_of_log_D / D * 4.0 * b / sigma2;
  const double D2 = D * D;
  const double a = -1.0 / D + G / (2.0 * D2 * D) - E * E / (D2 * D2);
  hessian.noalias() += a * A * A.transpose();
  hessian.noalias() -= (0.5 / D2) * (B * B.transpose() + A * C.transpose() + C * A.transpose());
  hessian.noalias() += (E / (D2 * D)) * (A * B.transpose() + B * A.transpose());
}

}  // namespace mirac::stats
