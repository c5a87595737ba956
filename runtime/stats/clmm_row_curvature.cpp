// clmm_row_curvature.cpp: derivatives of log(F(z1) - F(z0)) up to fourth order. With
// mu_a..z = (d p / dz_a..dz_z) / p, the derivatives of log p are the cumulants of these
// "moments" (log p plays the cumulant generating function's part), and as p separates into a
// function of z0 minus one of z1, every mu mixing the two ends is zero.
#include "runtime/stats/clmm_row_curvature.hpp"

#include <cmath>

namespace mirac::stats {
namespace {

// The logistic cdf F, its complement G and the density's derivatives f^(r), r = 0..3, at z,
// without cancellation in either tail: f = F G, f' = f (1 - 2F), f'' = f (1 - 6f),
// f''' = f' (1 - 12 f). At z = +-inf all but F or G are 0.
struct LogisticDerivatives {
  double F = 0.0, G = 0.0, f[4]{};
};

LogisticDerivatives logistic_derivatives(double z) {
  LogisticDerivatives l;
  if (std::isinf(z)) {
    (z > 0 ? l.F : l.G) = 1.0;
    return l;
  }
  const double e = std::exp(-std::fabs(z));
  const double small = e / (1.0 + e), large = 1.0 / (1.0 + e);
  l.F = z >= 0 ? large : small;
  l.G = z >= 0 ? small : large;
  l.f[0] = l.F * l.G;
  l.f[1] = l.f[0] * (l.G - l.F);
  l.f[2] = l.f[0] * (1.0 - 6.0 * l.f[0]);
  l.f[3] = l.f[1] * (1.0 - 12.0 * l.f[0]);
  return l;
}

// mu[k][r] = (d^r p / dz_k^r) / p, r = 1..4; m(...) is mu of the ends named, 0 when mixed.
struct Ratios {
  double mu[2][5]{};
  double m(int a) const { return mu[a][1]; }
  double m(int a, int b) const { return a == b ? mu[a][2] : 0.0; }
  double m(int a, int b, int c) const { return a == b && b == c ? mu[a][3] : 0.0; }
  double m(int a, int b, int c, int d) const { return a == b && b == c && c == d ? mu[a][4] : 0.0; }
};

// Moments to cumulants, one partition of the indices per term.
double cumulant(const Ratios& r, int a, int b) { return r.m(a, b) - r.m(a) * r.m(b); }

double cumulant(const Ratios& r, int a, int b, int c) {
  return r.m(a, b, c) - r.m(a, b) * r.m(c) - r.m(a, c) * r.m(b) - r.m(b, c) * r.m(a) +
         2.0 * r.m(a) * r.m(b) * r.m(c);
}

double cumulant(const Ratios& r, int a, int b, int c, int d) {
  const double ma = r.m(a), mb = r.m(b), mc = r.m(c), md = r.m(d);
  return r.m(a, b, c, d) - (r.m(a, b, c) * md + r.m(a, b, d) * mc + r.m(a, c, d) * mb + r.m(b, c, d) * ma) -
         (r.m(a, b) * r.m(c, d) + r.m(a, c) * r.m(b, d) + r.m(a, d) * r.m(b, c)) +
         2.0 * (r.m(a, b) * mc * md + r.m(a, c) * mb * md + r.m(a, d) * mb * mc + r.m(b, c) * ma * md +
                r.m(b, d) * ma * mc + r.m(c, d) * ma * mb) -
         6.0 * ma * mb * mc * md;
}

// A symmetric tensor over two ends is known by how many of its indices are z1: T[n] is the
// component with n ones. Contracting `s_count` of its indices with s = e0 + e1, the others
// fixed with `ones` ones among them: sum_i binomial(s_count, i) T[ones + i].
double along_s(const double* T, int s_count, int ones) {
  static constexpr double binomial[5][5] = {{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}};
  double sum = 0.0;
  for (int i = 0; i <= s_count; ++i) sum += binomial[s_count][i] * T[ones + i];
  return sum;
}

}  // namespace

RowCurvature row_curvature(double z0, double z1) {
  const LogisticDerivatives L0 = logistic_derivatives(z0), L1 = logistic_derivatives(z1);
  // both ends in the upper tail: subtract the complements, which are not rounded to 1
  const double p = z0 > 0.0 ? L0.G - L1.G : L1.F - L0.F;
  Ratios r;
  for (int order = 1; order <= 4; ++order) {
    r.mu[0][order] = -L0.f[order - 1] / p;
    r.mu[1][order] = L1.f[order - 1] / p;
  }
  const double T2[3] = {cumulant(r, 0, 0), cumulant(r, 0, 1), cumulant(r, 1, 1)};
  const double T3[4] = {cumulant(r, 0, 0, 0), cumulant(r, 0, 0, 1), cumulant(r, 0, 1, 1), cumulant(r, 1, 1, 1)};
  const double T4[5] = {cumulant(r, 0, 0, 0, 0), cumulant(r, 0, 0, 0, 1), cumulant(r, 0, 0, 1, 1),
                        cumulant(r, 0, 1, 1, 1), cumulant(r, 1, 1, 1, 1)};
  RowCurvature c;
  c.s2 = along_s(T2, 2, 0);
  c.s3 = along_s(T3, 3, 0);
  c.s4 = along_s(T4, 4, 0);
  for (int k = 0; k < 2; ++k) {
    c.s1e[k] = along_s(T2, 1, k);
    c.s2e[k] = along_s(T3, 2, k);
    c.s3e[k] = along_s(T4, 3, k);
  }
  for (int n = 0; n < 3; ++n) {
    c.ee[n] = T2[n];
    c.see[n] = along_s(T3, 1, n);
    c.ssee[n] = along_s(T4, 2, n);
  }
  return c;
}

}  // namespace mirac::stats
