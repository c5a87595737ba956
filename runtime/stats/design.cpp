// design.cpp: treatment-coded design matrices with explicit rank-deficiency errors.
#include "runtime/stats/design.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace mirac::stats {
namespace {

const CategoricalColumn& find_column(const DataFrame& data, const std::string& name, const char* fn) {
  for (const auto& c : data.columns) {
    if (c.name == name) {
      if (c.values.size() != data.response.size()) {
        throw std::invalid_argument(std::string(fn) + ": column '" + name + "' has " +
                                    std::to_string(c.values.size()) + " rows, response has " +
                                    std::to_string(data.response.size()));
      }
      return c;
    }
  }
  throw std::invalid_argument(std::string(fn) + ": no column named '" + name + "'");
}

}  // namespace

CodedFactor code_factor(const DataFrame& data, const std::string& name, const std::vector<std::size_t>& rows,
                        const std::map<std::string, LevelSpec>& levels) {
  const auto& column = find_column(data, name, "code_factor");
  CodedFactor f;
  f.name = name;
  const auto spec = levels.find(name);
  if (spec != levels.end() && !spec->second.levels.empty()) {
    f.levels = spec->second.levels;
  } else {
    std::set<std::string> seen;  // bytewise sorted, like R factor() in the C locale
    for (std::size_t r : rows) seen.insert(column.values[r]);
    f.levels.assign(seen.begin(), seen.end());
  }
  if (f.levels.empty()) throw std::invalid_argument("code_factor: variable '" + name + "' has no levels");
  if (spec != levels.end() && !spec->second.reference.empty()) {
    const auto it = std::find(f.levels.begin(), f.levels.end(), spec->second.reference);
    if (it == f.levels.end()) {
      throw std::invalid_argument("code_factor: reference level '" + spec->second.reference +
                                  "' is not a level of '" + name + "'");
    }
    std::rotate(f.levels.begin(), it, it + 1);  // reference first, others keep their order
  }
  std::map<std::string, int> index;
  for (std::size_t k = 0; k < f.levels.size(); ++k) index[f.levels[k]] = static_cast<int>(k);
  f.codes.reserve(rows.size());
  for (std::size_t r : rows) {
    const auto it = index.find(column.values[r]);
    if (it == index.end()) {
      throw std::invalid_argument("code_factor: value '" + column.values[r] + "' of '" + name +
                                  "' is not among its declared levels");
    }
    f.codes.push_back(it->second);
  }
  return f;
}

Design build_design(const DataFrame& data, const std::vector<FixedTerm>& terms,
                    const std::map<std::string, LevelSpec>& levels) {
  if (terms.empty()) throw std::invalid_argument("build_design: no fixed terms");
  Design d;
  for (std::size_t r = 0; r < data.response.size(); ++r) {
    if (!std::isnan(data.response[r])) d.kept_rows.push_back(r);
  }
  const auto n = static_cast<Eigen::Index>(d.kept_rows.size());
  if (n == 0) throw std::invalid_argument("build_design: no rows with a response");

  std::map<std::string, CodedFactor> factors;
  for (const auto& term : terms) {
    for (const auto& v : term) {
      if (!factors.count(v)) factors.emplace(v, code_factor(data, v, d.kept_rows, levels));
    }
  }

  std::vector<Eigen::VectorXd> cols;
  for (const auto& term : terms) {
    // enumerate non-reference level combinations, first variable fastest (R model.matrix)
    std::vector<const CodedFactor*> fs;
    for (const auto& v : term) fs.push_back(&factors.at(v));
    std::vector<int> combo(fs.size(), 1);
    if (fs.empty()) {
      cols.push_back(Eigen::VectorXd::Ones(n));
      d.column_names.push_back("(Intercept)");
      continue;
    }
    for (const CodedFactor* f : fs) {
      if (f->levels.size() < 2) {  // a one-level variable gives its terms no column: say so
        throw std::invalid_argument("build_design: variable '" + f->name + "' has a single level ('" +
                                    f->levels.front() + "'), so its terms have no columns");
      }
    }
    while (true) {
      Eigen::VectorXd x = Eigen::VectorXd::Ones(n);
      std::string label;
      for (std::size_t k = 0; k < fs.size(); ++k) {
        for (Eigen::Index i = 0; i < n; ++i) {
          if (fs[k]->codes[static_cast<std::size_t>(i)] != combo[k]) x[i] = 0.0;
        }
        label += (k ? ":" : "") + fs[k]->name + "=" + fs[k]->levels[static_cast<std::size_t>(combo[k])];
      }
      cols.push_back(std::move(x));
      d.column_names.push_back(std::move(label));
      std::size_t k = 0;  // odometer increment, first position fastest
      for (; k < fs.size(); ++k) {
        if (++combo[k] < static_cast<int>(fs[k]->levels.size())) break;
        combo[k] = 1;
      }
      if (k == fs.size()) break;
    }
  }

  const auto p = static_cast<Eigen::Index>(cols.size());
  d.X.resize(n, p);
  for (Eigen::Index j = 0; j < p; ++j) d.X.col(j) = cols[static_cast<std::size_t>(j)];
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) d.y[i] = data.response[d.kept_rows[static_cast<std::size_t>(i)]];

  // Rank check by an incremental Cholesky of X'X: the pivot r_jj is the squared norm of x_j
  // after projecting out x_1..x_{j-1}; r_jj ~ 0 means x_j is aliased (Golub & Van Loan 4.2).
  const Eigen::MatrixXd XtX = d.X.transpose() * d.X;
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(p, p);
  for (Eigen::Index j = 0; j < p; ++j) {
    const std::string& name = d.column_names[static_cast<std::size_t>(j)];
    if (XtX(j, j) == 0.0) {
      throw std::invalid_argument("build_design: column '" + name + "' is all zero (no row has this level combination)");
    }
    for (Eigen::Index k = 0; k < j; ++k) {
      L(j, k) = (XtX(j, k) - L.row(j).head(k).dot(L.row(k).head(k))) / L(k, k);
    }
    const double pivot = XtX(j, j) - L.row(j).head(j).squaredNorm();
    if (pivot <= 1e-10 * XtX(j, j)) {
      throw std::invalid_argument("build_design: column '" + name +
                                  "' is aliased with earlier columns (rank-deficient design)");
    }
    L(j, j) = std::sqrt(pivot);
  }
  return d;
}

}  // namespace mirac::stats
