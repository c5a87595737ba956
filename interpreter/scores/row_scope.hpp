// row_scope.hpp: what names mean in a flag condition or a `where` clause evaluated on a
// score row (and, for pair flags, on two rows `a` and `b`).
#pragma once

#include "interpreter/scores/scores.hpp"
#include "interpreter/eval/cell_scope.hpp"

namespace mirac::analyze {

/// Names: the rubric's dimensions (scores, N/A as N/A), `model` and `arm` (their names),
/// the spec's model and arm names, then everything a cell has (factors, levels, `seed`,
/// `checklist`) through CellScope.
class RowScope : public Scope {
 public:
  RowScope(const Spec& spec, const ScoreTable& table, const ScoreRow& row);
  std::optional<Value> name(const std::string& name) const override;
  std::optional<Value> field(const Value& base, const std::string& field) const override;
  std::vector<std::string> names() const override;
  std::vector<std::string> field_names(const Value& base) const override { return cell_.field_names(base); }

 private:
  const Spec& spec_;
  const ScoreTable& table_;
  const ScoreRow& row_;
  CellScope cell_;
};

/// A pair flag's scope: `a.X` and `b.X` read X on either side; any other name reads the
/// first side (the two share seed, model, arm and the other factors).
class PairScope : public Scope {
 public:
  PairScope(const RowScope& a, const RowScope& b) : a_(a), b_(b) {}
  std::optional<Value> name(const std::string& name) const override;
  std::optional<Value> field(const Value& base, const std::string& field) const override;
  std::vector<std::string> names() const override;

 private:
  const RowScope& a_;
  const RowScope& b_;
};

/// A paired comparison's scope for `patterns`: `delta.DIM` is treatment - control.
class DeltaScope : public Scope {
 public:
  DeltaScope(const std::vector<std::string>& dims, const std::vector<double>& delta) : dims_(dims), delta_(delta) {}
  std::optional<Value> name(const std::string& name) const override;
  std::optional<Value> field(const Value& base, const std::string& field) const override;

 private:
  const std::vector<std::string>& dims_;
  const std::vector<double>& delta_;
};

/// Whether `cond` holds on `row` (an N/A condition does not). Throws EvalError.
bool holds(const ast::Expr& cond, const Spec& spec, const ScoreTable& table, const ScoreRow& row);

}  // namespace mirac::analyze
