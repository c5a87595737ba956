// finite_difference.hpp: Hessians by differences of an analytic gradient (lmm.cpp; the tests
// hold clmm's exact Hessian to them) and the Newton direction shared by the mixed-model fits.
#pragma once

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

namespace mirac::stats {

/// Central differences of an analytic gradient, symmetrised: H_jk ~ dg_k / dx_j. With one
/// Richardson step (4 D(h/2) - D(h)) / 3 the truncation error is O(h^4) (numDeriv's scheme).
template <class Gradient>
Eigen::MatrixXd hessian_from_gradient(const Gradient& grad, const Eigen::VectorXd& x) {
  const Eigen::Index m = x.size();
  Eigen::MatrixXd H(m, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const double h = 1e-4 * std::max(std::fabs(x[j]), 1e-2);
    auto central = [&](double step) {
      Eigen::VectorXd up = x, down = x;
      up[j] += step;
      down[j] -= step;
      return Eigen::VectorXd((grad(up) - grad(down)) / (2.0 * step));
    };
    H.col(j) = (4.0 * central(h / 2.0) - central(h)) / 3.0;
  }
  return 0.5 * (H + H.transpose());
}

/// Newton direction with the Hessian's eigenvalues replaced by their absolute values (kept
/// away from 0), so that it is a descent direction even where the criterion is not convex.
inline Eigen::VectorXd newton_direction(const Eigen::MatrixXd& H, const Eigen::VectorXd& g) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(H);
  Eigen::VectorXd ev = eig.eigenvalues().cwiseAbs();
  const double floor = std::max(1e-8, 1e-10 * ev.maxCoeff());
  ev = ev.cwiseMax(floor);
  return -(eig.eigenvectors() * ((eig.eigenvectors().transpose() * g).cwiseQuotient(ev)));
}

}  // namespace mirac::stats
