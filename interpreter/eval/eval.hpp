// eval.hpp: evaluation of expressions and string templates at compile time (prompt
// assembly, derived texts). Names are looked up through a Scope, so the same evaluator
// serves cells, data rows and, later, score rows.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "interpreter/model/ast.hpp"

namespace mirac {

struct Value {
  enum class Kind { na, boolean, number, text, level, object };
  Kind kind = Kind::na;
  bool boolean = false;
  double number = 0;
  std::string text;
  int factor = -1, level = -1;  ///< for levels
  /// For objects (seed, checklist, JSON objects): what the scope needs to resolve fields.
  std::string object_kind;
  const nlohmann::ordered_json* json = nullptr;

  static Value na() { return {}; }
  static Value of(bool b) { Value v; v.kind = Kind::boolean; v.boolean = b; return v; }
  static Value of(double n) { Value v; v.kind = Kind::number; v.number = n; return v; }
  static Value of(std::string s) { Value v; v.kind = Kind::text; v.text = std::move(s); return v; }
  static Value of_level(int factor, int level, std::string name) {
    Value v; v.kind = Kind::level; v.factor = factor; v.level = level; v.text = std::move(name); return v;
  }
  static Value object(std::string kind, const nlohmann::ordered_json* json = nullptr) {
    Value v; v.kind = Kind::object; v.object_kind = std::move(kind); v.json = json; return v;
  }
  static Value from_json(const nlohmann::ordered_json& j);
};

/// A problem found while evaluating, with the place of the offending expression.
struct EvalError : std::runtime_error {
  EvalError(SourceRange r, const std::string& message) : std::runtime_error(message), range(r) {}
  SourceRange range;
};

/// Name and field lookup for one evaluation context.
class Scope {
 public:
  virtual ~Scope() = default;
  /// The value of a bare name, or nullopt if the scope has no such name.
  virtual std::optional<Value> name(const std::string& name) const = 0;
  /// The value of `base.field`, or nullopt if there is no such field.
  virtual std::optional<Value> field(const Value& base, const std::string& field) const;
  /// Names offered as "did you mean" suggestions.
  virtual std::vector<std::string> names() const { return {}; }
  /// Why `base` has no field `field`, when the scope can say better than the default.
  virtual std::string missing_field(const Value& base, const std::string& field) const {
    (void)base;
    (void)field;
    return "";
  }
  /// Field names of `base` offered as suggestions.
  virtual std::vector<std::string> field_names(const Value& base) const;
};

Value evaluate(const ast::Expr& expr, const Scope& scope);
/// Expands the placeholders `{a.b}` of a template; `{{` and `}}` stand for braces.
std::string expand_template(const std::string& text, SourceRange range, const Scope& scope);
/// A value as text (levels by name, numbers without trailing zeros, N/A as "").
std::string to_text(const Value& v);
/// Whether a value counts as true in a condition (N/A is false).
bool truthy(const Value& v);

}  // namespace mirac
