// content.cpp: the pieces every kind of report content shares: reading results.json
// defensively, printing expressions, and grouping by-model-and-arm (and cell) lists.
#include "engine/report/content.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "interpreter/eval/eval.hpp"
#include "interpreter/format/format.hpp"
#include "runtime/report/numbers.hpp"

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

std::string count_of(const Json* j, const char* key) { return count(number(member(j, key))); }

std::string group_label(const Json& group, const std::vector<std::string>& by) {
  if (by.empty()) return "all";
  std::vector<std::string> values;
  for (const auto& v : by) values.push_back(text(member(&group, v)));
  return fmt::format("{}", fmt::join(values, " / "));
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
// spec's model and arm names as values) and, on an entry of `cell_means`, the factors
// (and level names as values). Anything else (a score, a seed field) is not in these
// lists, and evaluation stops with an error naming it.
class EntryScope : public Scope {
 public:
  EntryScope(const Spec& spec, std::string model, std::string arm, const Json* cell)
      : spec_(spec), model_(std::move(model)), arm_(std::move(arm)), cell_(cell) {}
  std::optional<Value> name(const std::string& n) const override {
    if (n == "model") return Value::of(model_);
    if (n == "arm") return Value::of(arm_);
    for (const auto& m : spec_.models)
      if (m.name == n) return Value::of(n);
    for (const auto& a : spec_.arms)
      if (a.name == n) return Value::of(n);
    if (!cell_) return std::nullopt;
    if (int f = spec_.factor_index(n); f >= 0) {
      const std::string level = text(member(cell_, n));
      const int l = spec_.factors[static_cast<std::size_t>(f)].level_index(level);
      return l >= 0 ? std::optional<Value>(Value::of_level(f, l, level)) : std::nullopt;
    }
    for (const auto& factor : spec_.factors)
      if (factor.level_index(n) >= 0) return Value::of(n);
    return std::nullopt;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> out{"model", "arm"};
    if (cell_)
      for (const auto& f : spec_.factors) out.push_back(f.name);
    return out;
  }

 private:
  const Spec& spec_;
  std::string model_, arm_;
  const Json* cell_;
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

std::string term_label(const Spec& spec, const std::string& term) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= term.size()) {
    std::size_t colon = term.find(':', start);
    if (colon == std::string::npos) colon = term.size();
    std::string part = term.substr(start, colon - start);
    if (auto eq = part.find('='); eq != std::string::npos && eq > 0)
      part = part.substr(0, eq) + " = " + level_label(spec, part.substr(0, eq), part.substr(eq + 1));
    parts.push_back(std::move(part));
    start = colon + 1;
  }
  return fmt::format("{}", fmt::join(parts, " × "));
}

std::string level_label(const Spec& spec, const std::string& factor, const std::string& level) {
  const int f = spec.factor_index(factor);
  if (f < 0) return level;
  const auto& levels = spec.factors[static_cast<std::size_t>(f)].levels;
  for (const auto& l : levels)
    if (l.name.name == level && l.label) return fmt::format("{} ({})", l.label->value, level);
  return level;
}

std::vector<int> cell_factors(const Spec& spec) {
  return spec.variants.empty() ? spec.design : spec.variants.front().by;
}

ModelArmGrouping group_by_model_arm(const Context& ctx, const Item& item, const Json* list,
                                    const std::vector<std::string>& default_by, bool cells) {
  const Spec& spec = ctx.spec;
  ModelArmGrouping g;
  std::vector<std::string> dropped;
  for (const auto& v : item.by.empty() ? default_by : item.by) {
    const bool known = v == "model" || v == "arm" || (cells && (v == "cell" || spec.factor_index(v) >= 0));
    if (!known) dropped.push_back(v);
    else if (std::find(g.by.begin(), g.by.end(), v) == g.by.end()) g.by.push_back(v);
  }
  if (!dropped.empty())
    g.notes.push_back(fmt::format("results.json holds these numbers by {} only, so they cannot be grouped by {}; "
                                  "shown {}.",
                                  cells ? "model, arm and cell" : "model and arm", fmt::join(dropped, ", "),
                                  g.by.empty() ? "over all answers" : "by " + join_by(g.by)));
  if (!list || !list->is_array()) return g;

  // Sort key: the spec's index of each value, so groups follow the declaration order.
  std::map<std::vector<std::pair<int, std::string>>, ModelArmGroup> groups;
  for (const auto& e : *list) {
    const std::string model = text(member(&e, "model")), arm = text(member(&e, "arm"));
    const Json* cell = cells ? member(&e, "cell") : nullptr;
    if (item.where) {
      try {
        if (!truthy(evaluate(*item.where, EntryScope(spec, model, arm, cell)))) continue;
      } catch (const EvalError& err) {
        g.notes = {fmt::format("'where {}' cannot be applied: results.json holds these numbers by {} only ({}).",
                               expr_text(*item.where), cells ? "model, arm and cell" : "model and arm", err.what())};
        g.failed = true;
        g.groups.clear();
        return g;
      }
    }
    auto level_of = [&](int f) {
      const std::string level = text(member(cell, spec.factors[static_cast<std::size_t>(f)].name));
      return std::make_pair(spec.factors[static_cast<std::size_t>(f)].level_index(level), level);
    };
    std::vector<std::pair<int, std::string>> key;
    std::vector<std::string> values, labels;
    for (const auto& v : g.by) {
      if (v == "model" || v == "arm") {
        const std::string& value = v == "model" ? model : arm;
        key.emplace_back(index_of(spec, v, value), value);
        values.push_back(value);
        labels.push_back(value);
      } else if (v == "cell") {  // the user-side cell: "zh.low.colloquial"
        std::string value, label;
        int index = 0;
        for (int f : cell_factors(spec)) {
          auto [l, level] = level_of(f);
          const auto& factor = spec.factors[static_cast<std::size_t>(f)];
          index = index * static_cast<int>(factor.levels.size()) + l;
          value += (value.empty() ? "" : ".") + level;
          const bool labelled = l >= 0 && factor.levels[static_cast<std::size_t>(l)].label;
          label += (label.empty() ? "" : ", ") + (labelled ? factor.levels[static_cast<std::size_t>(l)].label->value : level);
        }
        key.emplace_back(index, value);
        values.push_back(value);
        labels.push_back(label);
      } else {
        auto [l, level] = level_of(spec.factor_index(v));
        key.emplace_back(l, level);
        values.push_back(level);
        labels.push_back(level_label(spec, v, level));
      }
    }
    auto& group = groups[key];
    group.values = values;
    group.labels = labels;
    group.entries.push_back(&e);
  }
  for (auto& [key, group] : groups) g.groups.push_back(std::move(group));
  return g;
}

namespace {

// The rubric whose dimensions the scores are: the first judge's, else the first declared.
const ast::RubricDecl* scored_rubric(const Spec& spec) {
  const ast::RubricDecl* r = nullptr;
  if (!spec.judges.empty()) r = spec.find_rubric(spec.judges.front().rubric);
  if (!r && !spec.rubrics.empty()) r = &spec.rubrics.front();
  return r;
}

}  // namespace

bool worst_is_low(const Spec& spec) {
  const ast::RubricDecl* r = scored_rubric(spec);
  return r && r->worst && r->worst->name == "low";
}

std::string dimension_label(const Spec& spec, const std::string& dim) {
  for (const auto& r : spec.rubrics)
    for (const auto& d : r.dims)
      if (d.name.name == dim && !d.title.value.empty()) return fmt::format("{} ({})", dim, d.title.value);
  return dim;
}

std::string group_values_label(const Json& group, const Json* by) {
  if (!by || !by->is_array() || by->empty()) return "all";
  std::vector<std::string> values;
  for (const auto& v : *by) values.push_back(text(member(&group, text(&v))));
  return fmt::format("{}", fmt::join(values, " / "));
}

const char* const kSignificanceLegend = "† p < .10, * p < .05, ** p < .01, *** p < .001";

std::string significance_marks(std::optional<double> p) {
  if (!p || !std::isfinite(*p)) return "";
  if (*p < 0.001) return "***";
  if (*p < 0.01) return "**";
  if (*p < 0.05) return "*";
  if (*p < 0.10) return "†";
  return "";
}

std::optional<double> scale_top(const Spec& spec, const std::vector<std::string>& dims) {
  const ast::RubricDecl* r = scored_rubric(spec);
  if (r && has_dim_scales(*r) && !dims.empty()) {
    double top = dim_scale(*r, dims.front()).hi;
    for (const auto& d : dims) top = std::max(top, dim_scale(*r, d).hi);
    return top;
  }
  if (!r || !r->scale) return std::nullopt;
  const auto* range = std::get_if<ast::RangeLit>(&r->scale->node);
  if (!range || !range->hi) return std::nullopt;
  const auto* hi = std::get_if<ast::NumberLit>(&range->hi->node);
  return hi ? std::optional<double>(hi->value) : std::nullopt;
}

}  // namespace mirac::report
