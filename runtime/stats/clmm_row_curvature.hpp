// clmm_row_curvature.hpp: one row's log-probability differentiated up to fourth order, for
// the analytic Hessian of the Laplace objective (clmm_laplace.cpp).
#pragma once

namespace mirac::stats {

/// l = log p, p = F(z1) - F(z0) with F logistic, as a function of the row's two ends z0 < z1
/// (z0 = -inf for the lowest category, z1 = +inf for the highest). Every parameter moves the
/// ends along one of three directions: s = (1, 1) shifts both (the random intercept and x'beta
/// enter as -s), e0 = (1, 0) and e1 = (0, 1) move one (the row's two thresholds). The fields
/// are l's derivatives along those directions; arrays indexed by an end k hold D_ek, arrays
/// of three indexed by j + k hold D_ej D_ek (D_e0 D_e1 = D_e1 D_e0).
struct RowCurvature {
  double s2 = 0.0, s3 = 0.0, s4 = 0.0;         ///< D_s^2 l, D_s^3 l, D_s^4 l
  double s1e[2]{}, s2e[2]{}, s3e[2]{};         ///< D_s D_ek l, D_s^2 D_ek l, D_s^3 D_ek l
  double ee[3]{}, see[3]{}, ssee[3]{};         ///< D_ej D_ek l, D_s D_ej D_ek l, D_s^2 D_ej D_ek l
};

/// Exact derivatives at (z0, z1). As p is a difference of one function of z0 and one of z1,
/// the derivatives of p itself have no mixed terms, and those of log p are their cumulants.
RowCurvature row_curvature(double z0, double z1);

}  // namespace mirac::stats
