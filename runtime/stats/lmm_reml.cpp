// lmm_reml.cpp: profiled REML criterion via the Cholesky factor of Lambda'Z'Z Lambda + I
// (lme4's predModule), dense because q (number of groups) is small in audit designs.
#include "runtime/stats/lmm_reml.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/SparseCore>

namespace mirac::stats {

RemlProblem::RemlProblem(const SparseRows& X, const Eigen::VectorXd& y, const std::vector<CodedFactor>& groups)
    : d_n(static_cast<std::size_t>(X.rows())) {
  if (y.size() != X.rows()) throw std::invalid_argument("RemlProblem: X and y differ in rows");
  if (groups.empty()) throw std::invalid_argument("RemlProblem: no random intercept");
  if (X.rows() <= X.cols()) throw std::invalid_argument("RemlProblem: need more rows than fixed effects");
  Eigen::Index q = 0;
  for (const auto& g : groups) {
    if (g.codes.size() != d_n) {
      throw std::invalid_argument("RemlProblem: grouping factor '" + g.name + "' has " +
                                  std::to_string(g.codes.size()) + " codes for " + std::to_string(d_n) + " rows");
    }
    d_offset.push_back(q);
    d_size.push_back(static_cast<Eigen::Index>(g.levels.size()));
    q += static_cast<Eigen::Index>(g.levels.size());
  }
  const Eigen::Index p = X.cols();
  // A design of dummy codings is mostly zeros (MIRA's: about 12 non-zeros a row of 20 to 70
  // columns). Its products then cost the rows' non-zeros (squared, for X'X), not n p^2, so a
  // column per model no longer adds to every row's cost (issue 29).
  // A design denser than that is multiplied dense, as before it was held sparse.
  const bool use_sparse = X.size() > 0 && X.nonZeros() > 0 && 3 * X.nonZeros() <= X.size();
  Eigen::MatrixXd dense;
  if (!use_sparse) dense = X.toDense();
  if (use_sparse) {
    d_XtX = Eigen::MatrixXd::Zero(p, p);
    d_Xty = Eigen::VectorXd::Zero(p);
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      for (SparseRows::InnerIterator a(X, i); a; ++a) {
        d_Xty[a.col()] += a.value() * y[i];
        for (SparseRows::InnerIterator b(X, i); b; ++b) d_XtX(a.col(), b.col()) += a.value() * b.value();
      }
    }
  } else {
    d_XtX = dense.transpose() * dense;  // X'X, O(n p^2) once
    d_Xty = dense.transpose() * y;
  }
  d_yty = y.squaredNorm();
  // Nested: one factor's groups each within one group of the other. Then Z'Z needs no
  // q x q matrix: its only cross terms join a group to its parent.
  if (groups.size() == 2) {
    for (std::size_t inner : {std::size_t{1}, std::size_t{0}}) {
      const CodedFactor& in = groups[inner];
      const CodedFactor& out = groups[1 - inner];
      std::vector<Eigen::Index> parent(in.levels.size(), -1);
      bool nested = true;
      for (std::size_t i = 0; i < d_n && nested; ++i) {
        const int code = in.codes[i];
        if (code < 0 || static_cast<std::size_t>(code) >= parent.size()) {
          nested = false;  // reported below
          break;
        }
        Eigen::Index& p_of = parent[static_cast<std::size_t>(code)];
        if (p_of < 0) p_of = out.codes[i];
        nested = p_of == out.codes[i];
      }
      if (nested && std::find(parent.begin(), parent.end(), -1) == parent.end()) {
        d_inner = inner;
        d_parent = std::move(parent);
        break;
      }
    }
  }
  const bool crossed = groups.size() > 1 && d_parent.empty();
  d_counts = Eigen::VectorXd::Zero(q);
  if (crossed) d_ZtZ = Eigen::MatrixXd::Zero(q, q);  // one factor: Z'Z is diagonal, keep the counts only
  d_ZtX = Eigen::MatrixXd::Zero(q, p);
  d_Zty = Eigen::VectorXd::Zero(q);
  std::vector<Eigen::Index> col(groups.size());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const int code = groups[k].codes[static_cast<std::size_t>(i)];
      if (code < 0 || code >= d_size[k]) throw std::invalid_argument("RemlProblem: group code out of range");
      col[k] = d_offset[k] + code;  // Z has one 1 per row and factor
    }
    for (std::size_t k = 0; k < groups.size(); ++k) {
      // Z'X: per-group column sums of X
      if (use_sparse) {
        for (SparseRows::InnerIterator a(X, i); a; ++a) d_ZtX(col[k], a.col()) += a.value();
      } else {
        d_ZtX.row(col[k]) += dense.row(i);
      }
      d_Zty[col[k]] += y[i];
      d_counts[col[k]] += 1.0;  // diag(Z'Z): group sizes
      if (crossed) {
        for (std::size_t l = 0; l < groups.size(); ++l) d_ZtZ(col[k], col[l]) += 1.0;  // Z'Z: cross-tabulation
      }
    }
  }
  for (std::size_t k = 0; k < groups.size(); ++k) {
    for (Eigen::Index j = 0; j < d_size[k]; ++j) {
      if (d_counts[d_offset[k] + j] == 0.0) {
        throw std::invalid_argument("RemlProblem: level '" + groups[k].levels[static_cast<std::size_t>(j)] +
                                    "' of '" + groups[k].name + "' has no rows");
      }
    }
  }
}

namespace {

// The random-effects half of an evaluation: everything that involves Z, for each layout.
struct RandomPart {
  double ldL2 = 0.0;
  Eigen::MatrixXd RZX;       // L^{-1} Lambda' Z'X (rows in any order: only RZX'RZX, RZX'cu are used)
  Eigen::VectorXd cu;        // L^{-1} Lambda' Z'y (rows in RZX's order)
  // with derivatives only:
  Eigen::MatrixXd U;         // Z'W^{-1}X
  Eigen::VectorXd ZtWy;      // Z'W^{-1}y
  Eigen::VectorXd diagZtWZ;  // diag(Z'W^{-1}Z)
};

// Two nested factors. With the inner groups j first and the outer groups s after,
//   A = Lambda'Z'Z Lambda + I = [D  C; C' E],  D = diag(tb^2 n_j + 1),  E = diag(ta^2 n_s + 1),
// C joining j only to its parent s with ta tb n_j. Its Cholesky factor has L11 = sqrt(D),
// L21 = C' L11^-T, and a Schur complement E - C' D^-1 C that is diagonal, since each j has
// one parent: S_s = ta^2 n_s + 1 - sum_{j in s} (ta tb n_j)^2 / d_j. Every solve is O(q).
struct NestedLayout {
  Eigen::Index inner_offset, outer_offset, inner_size, outer_size;
  const std::vector<Eigen::Index>& parent;
  double ta, tb;
  Eigen::ArrayXd d, S;  // d_j and S_s
  // L^{-1} M for M with a row per group (Z's column order); rows stay in that order.
  Eigen::MatrixXd forward(const Eigen::MatrixXd& M, const Eigen::VectorXd& counts) const {
    Eigen::MatrixXd Y = M;
    for (Eigen::Index j = 0; j < inner_size; ++j) Y.row(inner_offset + j) /= std::sqrt(d[j]);
    for (Eigen::Index j = 0; j < inner_size; ++j) {
      const double l21 = ta * tb * counts[inner_offset + j] / std::sqrt(d[j]);
      Y.row(outer_offset + parent[static_cast<std::size_t>(j)]) -= l21 * Y.row(inner_offset + j);
    }
    for (Eigen::Index s = 0; s < outer_size; ++s) Y.row(outer_offset + s) /= std::sqrt(S[s]);
    return Y;
  }
  // L^-T Y: what forward() leaves, solved back into A^{-1} M.
  Eigen::MatrixXd backward(Eigen::MatrixXd Y, const Eigen::VectorXd& counts) const {
    for (Eigen::Index s = 0; s < outer_size; ++s) Y.row(outer_offset + s) /= std::sqrt(S[s]);
    for (Eigen::Index j = 0; j < inner_size; ++j) {
      const double l21 = ta * tb * counts[inner_offset + j] / std::sqrt(d[j]);
      Y.row(inner_offset + j) -= l21 * Y.row(outer_offset + parent[static_cast<std::size_t>(j)]);
      Y.row(inner_offset + j) /= std::sqrt(d[j]);
    }
    return Y;
  }
  // Z'Z R, from the counts and the parent links.
  Eigen::MatrixXd ztz_times(const Eigen::MatrixXd& R, const Eigen::VectorXd& counts) const {
    Eigen::MatrixXd out = counts.asDiagonal() * R;
    for (Eigen::Index j = 0; j < inner_size; ++j) {
      const Eigen::Index s = outer_offset + parent[static_cast<std::size_t>(j)], g = inner_offset + j;
      out.row(g) += counts[g] * R.row(s);
      out.row(s) += counts[g] * R.row(g);
    }
    return out;
  }
};

}  // namespace

RemlEvaluation RemlProblem::evaluate(const Eigen::VectorXd& theta, bool derivatives) const {
  if (static_cast<std::size_t>(theta.size()) != factors()) {
    throw std::invalid_argument("RemlProblem::evaluate: theta has the wrong length");
  }
  const Eigen::Index q = d_counts.size(), p = d_XtX.rows();
  RandomPart z;
  if (factors() == 1) {
    // One grouping factor: Z'Z = diag(n_g), so L = diag(l_g) with l_g^2 = theta^2 n_g + 1 and
    // every step is a row scaling: O(q p) instead of O(q^3).
    const double th = theta[0];
    const Eigen::ArrayXd l2 = th * th * d_counts.array() + 1.0;  // l_g^2
    z.ldL2 = l2.log().sum();                                       // log|L|^2 = sum log l_g^2
    const Eigen::ArrayXd scale = th / l2.sqrt();                   // theta / l_g
    z.RZX = scale.matrix().asDiagonal() * d_ZtX;
    z.cu = (scale * d_Zty.array()).matrix();
    if (derivatives) {
      // W^{-1} restricted to group g: Z_g'W^{-1} = Z_g' / l_g^2, since 1 - theta^2 n_g / l_g^2 = 1 / l_g^2
      const Eigen::ArrayXd inv = l2.inverse();
      z.U = inv.matrix().asDiagonal() * d_ZtX;
      z.ZtWy = (inv * d_Zty.array()).matrix();
      z.diagZtWZ = (inv * d_counts.array()).matrix();
    }
  } else if (!d_parent.empty()) {
    const std::size_t outer = 1 - d_inner;
    NestedLayout nest{d_offset[d_inner], d_offset[outer], d_size[d_inner], d_size[outer], d_parent,
                      theta[static_cast<Eigen::Index>(outer)], theta[static_cast<Eigen::Index>(d_inner)], {}, {}};
    const double ta = nest.ta, tb = nest.tb;
    nest.d = tb * tb * d_counts.segment(nest.inner_offset, nest.inner_size).array() + 1.0;
    nest.S = ta * ta * d_counts.segment(nest.outer_offset, nest.outer_size).array() + 1.0;
    for (Eigen::Index j = 0; j < nest.inner_size; ++j) {
      const double c = ta * tb * d_counts[nest.inner_offset + j];
      nest.S[d_parent[static_cast<std::size_t>(j)]] -= c * c / nest.d[j];
    }
    z.ldL2 = nest.d.log().sum() + nest.S.log().sum();
    Eigen::VectorXd lambda(q);
    lambda.segment(nest.inner_offset, nest.inner_size).setConstant(tb);
    lambda.segment(nest.outer_offset, nest.outer_size).setConstant(ta);
    z.RZX = nest.forward(lambda.asDiagonal() * d_ZtX, d_counts);
    z.cu = nest.forward(lambda.cwiseProduct(d_Zty), d_counts);
    if (derivatives) {
      // Z'W^{-1}M = Z'M - Z'Z Lambda A^{-1} Lambda Z'M, with A^{-1} = L^-T L^-1.
      z.U = d_ZtX - nest.ztz_times(lambda.asDiagonal() * nest.backward(z.RZX, d_counts), d_counts);
      z.ZtWy = d_Zty - nest.ztz_times(lambda.asDiagonal() * nest.backward(z.cu, d_counts), d_counts);
      // diag: n_g - ||L^{-1} Lambda Z'Z e_g||^2; Lambda Z'Z e_g is non-zero only at g and
      // its parent (an inner g) or at g and its children (an outer g).
      z.diagZtWZ = d_counts;
      Eigen::ArrayXd outer_sum = Eigen::ArrayXd::Zero(nest.outer_size);  // per s: sum over children of l21 top_j
      Eigen::ArrayXd outer_tops = Eigen::ArrayXd::Zero(nest.outer_size);  // per s: sum over children of top_j^2
      for (Eigen::Index j = 0; j < nest.inner_size; ++j) {
        const Eigen::Index g = nest.inner_offset + j;
        const auto s = d_parent[static_cast<std::size_t>(j)];
        const double n = d_counts[g], root = std::sqrt(nest.d[j]), l21 = ta * tb * n / root;
        const double top = tb * n / root;
        const double bottom = (ta * n - l21 * top) / std::sqrt(nest.S[s]);
        z.diagZtWZ[g] -= top * top + bottom * bottom;
        outer_sum[s] += l21 * top;
        outer_tops[s] += top * top;
      }
      for (Eigen::Index s = 0; s < nest.outer_size; ++s) {
        const Eigen::Index g = nest.outer_offset + s;
        const double bottom = (ta * d_counts[g] - outer_sum[s]) / std::sqrt(nest.S[s]);
        z.diagZtWZ[g] -= outer_tops[s] + bottom * bottom;
      }
    }
  } else {
    Eigen::VectorXd lambda(q);  // diagonal of Lambda_theta: theta_k repeated over factor k's groups
    for (std::size_t k = 0; k < factors(); ++k) {
      lambda.segment(d_offset[k], d_size[k]).setConstant(theta[static_cast<Eigen::Index>(k)]);
    }
    // L L' = Lambda' Z'Z Lambda + I                                (eq. 18)
    const Eigen::MatrixXd A = lambda.asDiagonal() * d_ZtZ * lambda.asDiagonal() + Eigen::MatrixXd::Identity(q, q);
    const Eigen::LLT<Eigen::MatrixXd> cholL(A);
    if (cholL.info() != Eigen::Success) throw std::runtime_error("RemlProblem::evaluate: Cholesky of L failed");
    const auto L = cholL.matrixL();
    z.ldL2 = 2.0 * cholL.matrixLLT().diagonal().array().log().sum();  // log|L|^2
    // L R_ZX = Lambda' Z'X ; L c_u = Lambda' Z'y                    (eqs. 48-49)
    z.RZX = L.solve(lambda.asDiagonal() * d_ZtX);
    z.cu = L.solve(lambda.cwiseProduct(d_Zty));
    if (derivatives) {
      // W^{-1} = I - Z Lambda (L L')^{-1} Lambda' Z'. With T = L^{-1} Lambda Z'Z:
      //   Z'W^{-1}Z = Z'Z - T'T,  Z'W^{-1}X = Z'X - T'R_ZX,  Z'W^{-1}y = Z'y - T'c_u
      const Eigen::MatrixXd T = L.solve(lambda.asDiagonal() * d_ZtZ);
      z.U = d_ZtX - T.transpose() * z.RZX;
      z.ZtWy = d_Zty - T.transpose() * z.cu;
      z.diagZtWZ = d_counts - T.colwise().squaredNorm().transpose();
    }
  }

  RemlEvaluation e;
  e.theta = theta;
  e.ldL2 = z.ldL2;
  // R_X'R_X = X'X - R_ZX'R_ZX = X'W^{-1}X (Woodbury)              (eq. 50)
  const Eigen::MatrixXd XtWX = d_XtX - z.RZX.transpose() * z.RZX;
  const Eigen::LLT<Eigen::MatrixXd> cholX(XtWX);
  if (cholX.info() != Eigen::Success) throw std::runtime_error("RemlProblem::evaluate: X'W^{-1}X is not positive definite");
  e.ldRX2 = 2.0 * cholX.matrixLLT().diagonal().array().log().sum();  // log|R_X|^2
  // R_X' c_beta = X'y - R_ZX' c_u ; R_X beta = c_beta, i.e. beta = (X'W^-1 X)^-1 X'W^-1 y
  const Eigen::VectorXd XtWy = d_Xty - z.RZX.transpose() * z.cu;
  e.beta = cholX.solve(XtWy);
  // r^2 = y'y - c_u'c_u - c_beta'c_beta, with c_beta'c_beta = (X'W^-1 y)' beta
  e.pwrss = d_yty - z.cu.squaredNorm() - XtWy.dot(e.beta);
  e.C0 = cholX.solve(Eigen::MatrixXd::Identity(p, p));
  if (!derivatives) return e;

  e.U = std::move(z.U);
  const Eigen::VectorXd ZtPy = z.ZtWy - e.U * e.beta;  // Z'P y = Z'W^{-1}(y - X beta)
  const Eigen::MatrixXd UC0 = e.U * e.C0;
  e.tr_ZtPZ = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(factors()));
  e.ss_ZtPy = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(factors()));
  for (std::size_t k = 0; k < factors(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    for (Eigen::Index j = d_offset[k]; j < d_offset[k] + d_size[k]; ++j) {
      e.tr_ZtPZ[kk] += z.diagZtWZ[j] - UC0.row(j).dot(e.U.row(j));  // (Z'PZ)_jj = (Z'W^-1 Z)_jj - u_j'C0 u_j
    }
    e.ss_ZtPy[kk] = ZtPy.segment(d_offset[k], d_size[k]).squaredNorm();
  }
  return e;
}

double RemlProblem::criterion(const RemlEvaluation& e) const {
  const double nmp = static_cast<double>(d_n - p());
  return e.ldL2 + e.ldRX2 + nmp * (1.0 + std::log(2.0 * std::numbers::pi * e.pwrss / nmp));
}

Eigen::VectorXd RemlProblem::slope_variance_ratio(const RemlEvaluation& e) const {
  if (e.tr_ZtPZ.size() == 0) throw std::invalid_argument("slope_variance_ratio: evaluation lacks derivatives");
  const double nmp = static_cast<double>(d_n - p());
  // d/d(theta_k^2) of log|W| + log|X'W^-1X| is tr(P Z_k Z_k'); of (n-p) log r^2 it is
  // -(n-p) y'P Z_k Z_k' P y / r^2 (Harville 1977, eqs. 3.4-3.5)
  return e.tr_ZtPZ - (nmp / e.pwrss) * e.ss_ZtPy;
}

Eigen::VectorXd RemlProblem::gradient(const RemlEvaluation& e) const {
  return 2.0 * e.theta.cwiseProduct(slope_variance_ratio(e));  // chain rule d(theta^2)/d theta
}

double RemlProblem::deviance_vp(const Eigen::VectorXd& varpar) const {
  const auto K = static_cast<Eigen::Index>(factors());
  const auto e = evaluate(varpar.head(K), false);
  const double sigma2 = varpar[K] * varpar[K];
  const double nmp = static_cast<double>(d_n - p());
  return e.ldL2 + e.ldRX2 + nmp * std::log(2.0 * std::numbers::pi * sigma2) + e.pwrss / sigma2;
}

Eigen::VectorXd RemlProblem::gradient_vp(const Eigen::VectorXd& varpar) const {
  const auto K = static_cast<Eigen::Index>(factors());
  const auto e = evaluate(varpar.head(K), true);
  const double sigma = varpar[K], sigma2 = sigma * sigma;
  const double nmp = static_cast<double>(d_n - p());
  Eigen::VectorXd g(K + 1);
  // dD/dtheta_k = 2 theta_k (tr(Z_k'PZ_k) - ||Z_k'Py||^2 / sigma^2)
  g.head(K) = 2.0 * e.theta.cwiseProduct(e.tr_ZtPZ - e.ss_ZtPy / sigma2);
  g[K] = 2.0 * nmp / sigma - 2.0 * e.pwrss / (sigma2 * sigma);  // dD/dsigma
  return g;
}

}  // namespace mirac::stats
