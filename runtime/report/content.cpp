// content.cpp: the pieces every kind of report content shares: reading results.json
// defensively, printing expressions, and grouping by-model-and-arm lists.
#include "runtime/report/content.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "interpreter/eval.hpp"
#include "interpreter/format.hpp"

namespace mirac::report {

const Json* member(const Json* j, const std::string& key) {
  if (!j || !j->is_object()) return nullptr;
  auto it = j->find(key);
  return it == j->end() ? nullptr : &*it;
}

const Json* named_entry(const Json& results, const std::string& list, const std::string& name) {
  const Json* l = member(&results, list);
  if (!l || !l->is_array()) return nullptr;
  for (const auto& e : *l)
    if (const Json* n = member(&e, "name"); n && n->is_string() && n->get<std::string>() == name) return &e;
  return nullptr;
}

std::optional<double> number(const Json* j) {
  if (!j || !j->is_number()) return std::nullopt;
  return j->get<double>();
}

std::string text(const Json* j) {
  if (!j) return "";
  if (j->is_string()) return j->get<std::string>();
  if (j->is_number() || j->is_boolean()) return j->dump();
  return "";
}

namespace {

int precedence(const std::string& op) {
  if (op == "or") return 1;
  if (op == "and") return 2;
  if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") return 3;
  if (op == "+" || op == "-" || op == "++") return 5;
  return 6;
}

std::string expr_text_in(const ast::Expr& e, int outer) {
  return std::visit(
      [&](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::NumberLit>) return n.text.empty() ? fmt::format("{:g}", n.value) : n.text;
        else if constexpr (std::is_same_v<T, ast::StringLit>) return quote_string(n.value);
        else if constexpr (std::is_same_v<T, ast::BoolLit>) return n.value ? "true" : "false";
        else if constexpr (std::is_same_v<T, ast::NoneLit>) return "none";
        else if constexpr (std::is_same_v<T, ast::Name>) return n.name;
        else if constexpr (std::is_same_v<T, ast::Field>) return expr_text_in(*n.base, 8) + "." + n.field.name;
        else if constexpr (std::is_same_v<T, ast::Unary>)
          return n.op == "not" ? "not " + expr_text_in(*n.operand, 7) : "-" + expr_text_in(*n.operand, 7);
        else if constexpr (std::is_same_v<T, ast::Binary>) {
          int p = precedence(n.op);
          std::string s = expr_text_in(*n.lhs, p) + " " + n.op + " " + expr_text_in(*n.rhs, p + 1);
          return p < outer ? "(" + s + ")" : s;
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          std::vector<std::string> args;
          for (const auto& a : n.args) args.push_back(expr_text_in(a, 0));
          return fmt::format("{}({})", n.callee.name, fmt::join(args, ", "));
        } else if constexpr (std::is_same_v<T, ast::ListLit>) {
          std::vector<std::string> items;
          for (const auto& a : n.items) items.push_back(expr_text_in(a, 0));
          return fmt::format("[{}]", fmt::join(items, ", "));
        } else if constexpr (std::is_same_v<T, ast::CellSelect>) {
          std::vector<std::string> items;
          for (const auto& c : n.items) items.push_back(c.factor ? c.factor->name + "=" + c.level.name : c.level.name);
          return fmt::format("{}[{}]", expr_text_in(*n.base, 8), fmt::join(items, ", "));
        } else if constexpr (std::is_same_v<T, ast::RangeLit>) {
          return expr_text_in(*n.lo, 5) + ".." + expr_text_in(*n.hi, 5);
        } else {
          return "if " + expr_text_in(*n.cond, 0) + " then " + expr_text_in(*n.then_branch, 0) + " else " +
                 expr_text_in(*n.else_branch, 0);
        }
      },
      e.node);
}

// Names a `where` may read on an entry of results.json: `model` and `arm` (and the
// spec's model and arm names as values). Anything else (a factor, a score) is not in a
// by-model-and-arm list, and evaluation stops with an error naming it.
class ModelArmScope : public Scope {
 public:
  ModelArmScope(const Spec& spec, std::string model, std::string arm)
      : spec_(spec), model_(std::move(model)), arm_(std::move(arm)) {}
  std::optional<Value> name(const std::string& n) const override {
    if (n == "model") return Value::of(model_);
    if (n == "arm") return Value::of(arm_);
    for (const auto& m : spec_.models)
      if (m.name == n) return Value::of(n);
    for (const auto& a : spec_.arms)
      if (a.name == n) return Value::of(n);
    return std::nullopt;
  }
  std::vector<std::string> names() const override { return {"model", "arm"}; }

 private:
  const Spec& spec_;
  std::string model_, arm_;
};

int index_of(const Spec& spec, const std::string& var, const std::string& value) {
  if (var == "model") {
    for (std::size_t i = 0; i < spec.models.size(); ++i)
      if (spec.models[i].name == value) return static_cast<int>(i);
    return static_cast<int>(spec.models.size());
  }
  for (std::size_t i = 0; i < spec.arms.size(); ++i)
    if (spec.arms[i].name == value) return static_cast<int>(i);
  return static_cast<int>(spec.arms.size());
}

}  // namespace

std::string expr_text(const ast::Expr& expr) { return expr_text_in(expr, 0); }

std::string where_suffix(const Item& item) { return item.where ? " where " + expr_text(*item.where) : ""; }

std::string join_by(const std::vector<std::string>& by) { return fmt::format("{}", fmt::join(by, " × ")); }

ModelArmGrouping group_by_model_arm(const Context& ctx, const Item& item, const Json* list,
                                    const std::vector<std::string>& default_by) {
  ModelArmGrouping g;
  std::vector<std::string> dropped;
  for (const auto& v : item.by.empty() ? default_by : item.by) {
    if (v == "model" || v == "arm") {
      if (std::find(g.by.begin(), g.by.end(), v) == g.by.end()) g.by.push_back(v);
    } else {
      dropped.push_back(v);
    }
  }
  if (!dropped.empty())
    g.notes.push_back(fmt::format("results.json holds these numbers by model and arm only, so they cannot be grouped by {}; "
                                  "shown {}.",
                                  fmt::join(dropped, ", "), g.by.empty() ? "over all answers" : "by " + join_by(g.by)));
  if (!list || !list->is_array()) return g;

  // Sort key: the spec's index of each value, so groups follow the declaration order.
  std::map<std::vector<std::pair<int, std::string>>, ModelArmGroup> groups;
  for (const auto& e : *list) {
    const std::string model = text(member(&e, "model")), arm = text(member(&e, "arm"));
    if (item.where) {
      try {
        if (!truthy(evaluate(*item.where, ModelArmScope(ctx.spec, model, arm)))) continue;
      } catch (const EvalError& err) {
        g.notes = {fmt::format("'where {}' cannot be applied: results.json holds these numbers by model and arm only ({}).",
                               expr_text(*item.where), err.what())};
        g.failed = true;
        g.groups.clear();
        return g;
      }
    }
    std::vector<std::pair<int, std::string>> key;
    std::vector<std::string> values;
    for (const auto& v : g.by) {
      const std::string& value = v == "model" ? model : arm;
      key.emplace_back(index_of(ctx.spec, v, value), value);
      values.push_back(value);
    }
    auto& group = groups[key];
    group.values = values;
    group.entries.push_back(&e);
  }
  for (auto& [key, group] : groups) g.groups.push_back(std::move(group));
  return g;
}

std::optional<double> scale_top(const Spec& spec) {
  const ast::RubricDecl* r = nullptr;
  if (!spec.judges.empty()) r = spec.find_rubric(spec.judges.front().rubric);
  if (!r && !spec.rubrics.empty()) r = &spec.rubrics.front();
  if (!r || !r->scale) return std::nullopt;
  const auto* range = std::get_if<ast::RangeLit>(&r->scale->node);
  if (!range || !range->hi) return std::nullopt;
  const auto* hi = std::get_if<ast::NumberLit>(&range->hi->node);
  return hi ? std::optional<double>(hi->value) : std::nullopt;
}

}  // namespace mirac::report
