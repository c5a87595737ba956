#include "interpreter/scores/row_scope.hpp"

namespace mirac::analyze {

namespace {
Value score_value(double s) { return is_na(s) ? Value::na() : Value::of(s); }
}  // namespace

RowScope::RowScope(const Spec& spec, const ScoreTable& table, const ScoreRow& row)
    : spec_(spec), table_(table), row_(row), cell_(spec, spec.seeds[row.seed], row.levels) {}

std::optional<Value> RowScope::name(const std::string& name) const {
  int d = table_.dim_index(name);
  if (d >= 0) return score_value(row_.scores[d]);
  if (name == "model") return Value::of(spec_.models[row_.model].name);
  if (name == "arm") return Value::of(spec_.arms[row_.arm].name);
  if (spec_.factor_index(name) < 0) {
    // A model or arm name on the other side of `model == gpt` stands for itself. Arms
    // first: there are few, and `where arm == baseline` is read on every row of an audit
    // that may have dozens of models.
    for (const auto& a : spec_.arms)
      if (a.name == name) return Value::of(name);
    for (const auto& m : spec_.models)
      if (m.name == name) return Value::of(name);
  }
  return cell_.name(name);
}

std::optional<Value> RowScope::field(const Value& base, const std::string& field) const {
  return cell_.field(base, field);
}

std::vector<std::string> RowScope::names() const {
  std::vector<std::string> out = table_.dims;
  out.insert(out.end(), {"model", "arm"});
  for (const auto& n : cell_.names()) out.push_back(n);
  return out;
}

std::optional<Value> PairScope::name(const std::string& name) const {
  if (name == "a" || name == "b") return Value::object(name);
  return a_.name(name);
}

std::optional<Value> PairScope::field(const Value& base, const std::string& field) const {
  if (base.kind == Value::Kind::object && (base.object_kind == "a" || base.object_kind == "b"))
    return (base.object_kind == "a" ? a_ : b_).name(field);
  return a_.field(base, field);
}

std::vector<std::string> PairScope::names() const {
  std::vector<std::string> out = {"a", "b"};
  for (const auto& n : a_.names()) out.push_back(n);
  return out;
}

std::optional<Value> DeltaScope::name(const std::string& name) const {
  if (name == "delta") return Value::object("delta");
  return std::nullopt;
}

std::optional<Value> DeltaScope::field(const Value& base, const std::string& field) const {
  if (base.kind != Value::Kind::object || base.object_kind != "delta") return std::nullopt;
  for (std::size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] == field) return score_value(delta_[i]);
  return std::nullopt;
}

bool holds(const ast::Expr& cond, const Spec& spec, const ScoreTable& table, const ScoreRow& row) {
  return truthy(evaluate(cond, RowScope(spec, table, row)));
}

}  // namespace mirac::analyze
