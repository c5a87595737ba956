#include "runtime/stats/agreement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace mirac::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t label_index(std::span<const double> labels, double v) {
  auto it = std::lower_bound(labels.begin(), labels.end(), v);
  if (it == labels.end() || *it != v) throw std::invalid_argument("quadratic_weighted_kappa: a value is not a label");
  return static_cast<std::size_t>(it - labels.begin());
}

}  // namespace

double quadratic_weighted_kappa(std::span<const double> a, std::span<const double> b, std::span<const double> labels) {
  if (a.size() != b.size()) throw std::invalid_argument("quadratic_weighted_kappa: a and b differ in length");
  const std::size_t k = labels.size();
  if (a.empty() || k == 0) return kNaN;
  std::vector<double> confusion(k * k, 0.0), rows(k, 0.0), cols(k, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t r = label_index(labels, a[i]), c = label_index(labels, b[i]);
    confusion[r * k + c] += 1;
    rows[r] += 1;
    cols[c] += 1;
  }
  const double n = static_cast<double>(a.size());
  double observed = 0, expected = 0;
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t c = 0; c < k; ++c) {
      const double d = static_cast<double>(r) - static_cast<double>(c);
      const double w = d * d;
      observed += w * confusion[r * k + c];
      expected += w * rows[r] * cols[c] / n;
    }
  if (expected == 0) return kNaN;
  return 1.0 - observed / expected;
}

PairAgreement pair_agreement(std::span<const double> a, std::span<const double> b, std::span<const double> labels) {
  if (a.size() != b.size()) throw std::invalid_argument("pair_agreement: a and b differ in length");
  PairAgreement out;
  out.n = a.size();
  if (a.empty()) {
    out.exact = out.adjacent = out.mean_signed_error = out.qwk = kNaN;
    return out;
  }
  double exact = 0, adjacent = 0, error = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = a[i] - b[i];
    exact += d == 0;
    adjacent += std::fabs(d) <= 1;
    error += d;
  }
  const double n = static_cast<double>(a.size());
  out.exact = exact / n;
  out.adjacent = adjacent / n;
  out.mean_signed_error = error / n;
  out.qwk = labels.empty() ? kNaN : quadratic_weighted_kappa(a, b, labels);
  return out;
}

double krippendorff_alpha(const std::vector<std::vector<double>>& units, AlphaMetric metric) {
  // The values in use, ascending, and the coincidence matrix over them.
  std::map<double, std::size_t> index;
  for (const auto& u : units)
    if (u.size() >= 2)
      for (double v : u) index.emplace(v, 0);
  std::size_t next = 0;
  for (auto& [v, i] : index) i = next++;
  const std::size_t k = index.size();
  if (k == 0) return kNaN;
  std::vector<double> o(k * k, 0.0);
  for (const auto& u : units) {
    if (u.size() < 2) continue;
    const double m = static_cast<double>(u.size());
    for (std::size_t i = 0; i < u.size(); ++i)
      for (std::size_t j = 0; j < u.size(); ++j)
        if (i != j) o[index[u[i]] * k + index[u[j]]] += 1.0 / (m - 1.0);
  }
  std::vector<double> nc(k, 0.0), value(k, 0.0);
  for (const auto& [v, i] : index) value[i] = v;
  double n = 0;
  for (std::size_t c = 0; c < k; ++c) {
    for (std::size_t j = 0; j < k; ++j) nc[c] += o[c * k + j];
    n += nc[c];
  }
  if (n < 2) return kNaN;
  auto delta = [&](std::size_t c, std::size_t j) {
    if (c == j) return 0.0;
    switch (metric) {
      case AlphaMetric::nominal: return 1.0;
      case AlphaMetric::interval: return (value[c] - value[j]) * (value[c] - value[j]);
      case AlphaMetric::ordinal: {
        const std::size_t lo = std::min(c, j), hi = std::max(c, j);
        double between = 0;
        for (std::size_t g = lo; g <= hi; ++g) between += nc[g];
        const double d = between - (nc[lo] + nc[hi]) / 2.0;
        return d * d;
      }
    }
    return 0.0;
  };
  double observed = 0, expected = 0;
  for (std::size_t c = 0; c < k; ++c)
    for (std::size_t j = 0; j < k; ++j) {
      const double d = delta(c, j);
      observed += o[c * k + j] * d;
      expected += nc[c] * nc[j] * d;
    }
  if (expected == 0) return kNaN;
  return 1.0 - (n - 1.0) * observed / expected;
}

}  // namespace mirac::stats
