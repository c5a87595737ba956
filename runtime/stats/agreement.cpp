#include "runtime/stats/agreement.hpp"
#include "runtime/stats/nan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mirac::stats {

namespace {

std::size_t label_index(std::span<const double> labels, double v) {
  auto it = std::lower_bound(labels.begin(), labels.end(), v);
  if (it == labels.end() || *it != v) throw std::invalid_argument("agreement: a value is not one of the labels");
  return static_cast<std::size_t>(it - labels.begin());
}

}  // namespace

double quadratic_weighted_kappa(std::span<const double> confusion, std::size_t k) {
  if (confusion.size() != k * k) throw std::invalid_argument("quadratic_weighted_kappa: confusion is not k x k");
  std::vector<double> rows(k, 0.0), cols(k, 0.0);
  double n = 0;
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t c = 0; c < k; ++c) {
      rows[r] += confusion[r * k + c];
      cols[c] += confusion[r * k + c];
      n += confusion[r * k + c];
    }
  if (n == 0) return kNaN;
  double observed = 0, expected = 0;
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t c = 0; c < k; ++c) {
      const double d = static_cast<double>(r) - static_cast<double>(c);
      observed += d * d * confusion[r * k + c];
      expected += d * d * rows[r] * cols[c] / n;
    }
  if (expected == 0) return kNaN;
  return 1.0 - observed / expected;
}

double quadratic_weighted_kappa(std::span<const double> a, std::span<const double> b, std::span<const double> labels) {
  if (a.size() != b.size()) throw std::invalid_argument("quadratic_weighted_kappa: a and b differ in length");
  const std::size_t k = labels.size();
  if (a.empty() || k == 0) return kNaN;
  std::vector<double> confusion(k * k, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) confusion[label_index(labels, a[i]) * k + label_index(labels, b[i])] += 1;
  return quadratic_weighted_kappa(confusion, k);
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

void add_coincidences(std::span<const double> unit, std::span<const double> values, std::vector<double>& o) {
  if (unit.size() < 2) return;
  const std::size_t k = values.size();
  const double m = static_cast<double>(unit.size());
  for (std::size_t i = 0; i < unit.size(); ++i)
    for (std::size_t j = 0; j < unit.size(); ++j)
      if (i != j) o[label_index(values, unit[i]) * k + label_index(values, unit[j])] += 1.0 / (m - 1.0);
}

double krippendorff_alpha(std::span<const double> o, std::span<const double> value, AlphaMetric metric) {
  const std::size_t k = value.size();
  if (o.size() != k * k) throw std::invalid_argument("krippendorff_alpha: coincidences are not k x k");
  std::vector<double> nc(k, 0.0);
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

double krippendorff_alpha(const std::vector<std::vector<double>>& units, AlphaMetric metric) {
  std::vector<double> values;
  for (const auto& u : units)
    if (u.size() >= 2) values.insert(values.end(), u.begin(), u.end());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.empty()) return kNaN;
  std::vector<double> o(values.size() * values.size(), 0.0);
  for (const auto& u : units) add_coincidences(u, values, o);
  return krippendorff_alpha(o, values, metric);
}

}  // namespace mirac::stats
