// design.hpp: model frame and treatment-coded fixed-effects design for categorical predictors.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace mirac::stats {

/// One categorical variable: a string value per row, or (when `values` is empty) per row an
/// index into `labels`, which may repeat. A frame of many rows and few distinct values
/// need not build and hold a string per row and variable (issue 29).
struct CategoricalColumn {
  CategoricalColumn() = default;
  CategoricalColumn(std::string column_name, std::vector<std::string> row_values = {})
      : name(std::move(column_name)), values(std::move(row_values)) {}

  std::string name;
  std::vector<std::string> values;
  std::vector<int> codes;
  std::vector<std::string> labels;

  std::size_t rows() const { return values.empty() ? codes.size() : values.size(); }
  const std::string& value(std::size_t row) const {
    return values.empty() ? labels[static_cast<std::size_t>(codes[row])] : values[row];
  }
};

/// Rows of categorical predictors plus a numeric response. NaN in `response` marks a missing
/// response; such rows are excluded from the fit (as lme4's na.omit and statsmodels'
/// missing='drop').
struct DataFrame {
  std::vector<CategoricalColumn> columns;
  std::vector<double> response;
};

/// Level order of one variable. Empty `levels` means: the distinct observed values sorted
/// bytewise (R's factor() and patsy sort too). Empty `reference` means levels[0].
struct LevelSpec {
  std::vector<std::string> levels;
  std::string reference;
};

/// A fixed-effect term: the variables whose indicator columns are multiplied. {} is the
/// intercept; {"language"} a main effect; {"language", "hls"} their interaction. The caller
/// expands `a*b` into main effects and interactions.
using FixedTerm = std::vector<std::string>;

/// A categorical variable coded as integer level indices, reference level first.
struct CodedFactor {
  std::string name;
  std::vector<std::string> levels;  ///< levels[0] is the reference
  std::vector<int> codes;           ///< per kept row, index into levels
};

/// A design by rows, only its non-zeros stored.
using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// The fixed-effects design after removing rows with a missing response.
struct Design {
  /// n x p, treatment (dummy) coding, held sparse: a row has a 1 per term at most, and the
  /// models' columns multiply p (66 to 71 at ten times MIRA, 216,000 rows), so a dense X was
  /// 114 MB per model to allocate and zero (issue 29). `X.toDense()` where a reader needs it.
  SparseRows X;
  Eigen::VectorXd y;                        ///< n responses
  std::vector<std::string> column_names;    ///< "(Intercept)", "language=zh", "language=zh:hls=low"
  std::vector<std::size_t> kept_rows;       ///< row index in the input of each design row
};

/// Codes `name` for the kept rows with the level order from `spec` (or the default order).
/// Throws std::invalid_argument("code_factor: ...") for unknown columns, values not in the
/// given levels, or an unknown reference.
CodedFactor code_factor(const DataFrame& data, const std::string& name, const std::vector<std::size_t>& rows,
                        const std::map<std::string, LevelSpec>& levels);

/// Builds X for `terms` with treatment contrasts: every non-reference level of each variable
/// gets an indicator; an interaction's columns are the products, the first variable's levels
/// varying fastest (R's model.matrix order), named "a=x:b=y". Throws
/// std::invalid_argument("build_design: ...") naming any column that is all zero or aliased
/// with earlier columns (rank deficiency): nothing is dropped silently.
Design build_design(const DataFrame& data, const std::vector<FixedTerm>& terms,
                    const std::map<std::string, LevelSpec>& levels);

}  // namespace mirac::stats
