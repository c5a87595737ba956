// design.cpp: treatment-coded design matrices with explicit rank-deficiency errors.
#include "runtime/stats/design.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace mirac::stats {
namespace {

const CategoricalColumn& find_column(const DataFrame& data, const std::string& name, const char* fn) {
  for (const auto& c : data.columns) {
    if (c.name == name) {
      if (c.rows() != data.response.size()) {
        throw std::invalid_argument(std::string(fn) + ": column '" + name + "' has " +
                                    std::to_string(c.rows()) + " rows, response has " +
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
    for (std::size_t r : rows) seen.insert(column.value(r));
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
  // hashed: a lookup per row, and a variable may have dozens of levels (the models)
  std::unordered_map<std::string_view, int> index;
  for (std::size_t k = 0; k < f.levels.size(); ++k) index.emplace(f.levels[k], static_cast<int>(k));
  f.codes.reserve(rows.size());
  for (std::size_t r : rows) {
    const auto it = index.find(column.value(r));
    if (it == index.end()) {
      throw std::invalid_argument("code_factor: value '" + column.value(r) + "' of '" + name +
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

  // Columns term by term, non-reference level combinations first variable fastest (R's
  // model.matrix). A row has at most one 1 per term: the column of its own combination, when
  // no variable of the term is at its reference. X holds those columns only, row by row,
  // and X'X (for the rank check) is summed from them: rows x terms^2, not rows x columns
  // (twice) and rows x columns^2 as column-by-column products cost, which grew with every
  // model a spec adds (issue 29).
  struct TermColumns {
    std::vector<const CodedFactor*> factors;
    Eigen::Index first = 0;                  ///< its first column
    std::vector<Eigen::Index> stride;        ///< column step per level of each variable
  };
  std::vector<TermColumns> layout;
  Eigen::Index p = 0;
  for (const auto& term : terms) {
    TermColumns t;
    t.first = p;
    for (const auto& v : term) t.factors.push_back(&factors.at(v));
    if (t.factors.empty()) {
      d.column_names.push_back("(Intercept)");
      ++p;
      layout.push_back(std::move(t));
      continue;
    }
    for (const CodedFactor* f : t.factors) {
      if (f->levels.size() < 2) {  // a one-level variable gives its terms no column: say so
        throw std::invalid_argument("build_design: variable '" + f->name + "' has a single level ('" +
                                    f->levels.front() + "'), so its terms have no columns");
      }
    }
    Eigen::Index columns = 1;
    for (const CodedFactor* f : t.factors) {
      t.stride.push_back(columns);
      columns *= static_cast<Eigen::Index>(f->levels.size()) - 1;
    }
    std::vector<int> combo(t.factors.size(), 1);
    for (Eigen::Index c = 0; c < columns; ++c) {
      std::string label;
      for (std::size_t k = 0; k < t.factors.size(); ++k) {
        label += (k ? ":" : "") + t.factors[k]->name + "=" + t.factors[k]->levels[static_cast<std::size_t>(combo[k])];
      }
      d.column_names.push_back(std::move(label));
      for (std::size_t k = 0; k < combo.size(); ++k) {  // odometer increment, first position fastest
        if (++combo[k] < static_cast<int>(t.factors[k]->levels.size())) break;
        combo[k] = 1;
      }
    }
    p += columns;
    layout.push_back(std::move(t));
  }

  d.X.resize(n, p);
  d.X.reserve(n * static_cast<Eigen::Index>(layout.size()));
  Eigen::MatrixXd XtX = Eigen::MatrixXd::Zero(p, p);
  std::vector<Eigen::Index> ones;  // ascending: terms' columns follow each other
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto row = static_cast<std::size_t>(i);
    ones.clear();
    for (const TermColumns& t : layout) {
      Eigen::Index column = t.first;
      bool reference = false;
      for (std::size_t k = 0; k < t.factors.size() && !reference; ++k) {
        const int code = t.factors[k]->codes[row];
        reference = code == 0;
        column += (code - 1) * t.stride[k];
      }
      if (!reference) ones.push_back(column);
    }
    d.X.startVec(i);
    for (Eigen::Index j : ones) {
      d.X.insertBack(i, j) = 1.0;
      for (Eigen::Index l : ones) XtX(j, l) += 1.0;
    }
  }
  d.X.finalize();
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) d.y[i] = data.response[d.kept_rows[static_cast<std::size_t>(i)]];

  // Rank check by an incremental Cholesky of X'X: the pivot r_jj is the squared norm of x_j
  // after projecting out x_1..x_{j-1}; r_jj ~ 0 means x_j is aliased (Golub & Van Loan 4.2).
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
