// check_analysis.cpp: rubrics, flags, contrasts, analyses and reports. Their evaluation
// belongs to `mirac analyze`; here every name they use is resolved against the spec. This
// file: names and cells in expressions, rubrics, flags and contrasts; the analyses' and
// report items' options are in check_analysis_options.cpp.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "interpreter/check/analysis_checker.hpp"
#include "interpreter/check/context.hpp"

namespace mirac {

namespace check_detail {

std::string option_word(const std::vector<ast::OptionValue>& values) {
  if (values.empty()) return "";
  if (std::holds_alternative<ast::NoneLit>(values[0].value.node)) return "none";
  const auto* n = std::get_if<ast::Name>(&values[0].value.node);
  return n ? n->name : "";
}

namespace {

const std::set<std::string> kFunctions = {"lower_first", "upper_first", "lower", "upper", "trim", "len",
                                          "strip_prefix", "strip_suffix", "replace", "abs", "min", "max"};

}  // namespace

Checker::Checker(const Spec& spec, Diagnostics& diags) : spec_(spec), diags_(diags) {
  for (const auto& r : spec.rubrics)
    for (const auto& d : r.dims) dims_.insert(d.name.name);
  for (const auto& f : spec.factors) {
    factors_.insert(f.name);
    for (const auto& l : f.levels) levels_.insert(l.name.name);
  }
  for (const auto& f : spec.seed_fields) seed_fields_.insert(f.name);
  seed_fields_.insert("id");
  for (const auto& m : spec.models) models_.insert(m.name);
  for (const auto& a : spec.arms) arms_.insert(a.name);
}

/// A condition on a score row; `no_scores`: why it may not read a dimension (empty: it may).
void Checker::row_condition(const ast::Expr& e, const std::string& no_scores) const {
  NameEnv env = row_env();
  if (!no_scores.empty()) {
    for (const auto& d : dims_) env.names.erase(d);
    env.dims.clear();
    env.dims_forbidden = no_scores;
  }
  names(e, env);
}

void Checker::run() {
  for (const auto& r : spec_.rubrics) rubric(r);
  for (const auto& f : spec_.flags) flag(f);
  for (const auto& c : spec_.contrasts) contrast(c);
  for (const auto& a : spec_.analyses) analysis(a);
  for (const auto& r : spec_.reports) report(r);
}

// Names a score row has: dimensions, factors, model, arm, seed, checklist, levels.
NameEnv Checker::row_env() const {
  NameEnv env;
  env.names = dims_;
  env.names.insert(factors_.begin(), factors_.end());
  env.names.insert({"model", "arm", "seed", "checklist"});
  env.names.insert(models_.begin(), models_.end());
  env.names.insert(arms_.begin(), arms_.end());
  env.fields["seed"] = seed_fields_;
  env.fields["checklist"] = std::set<std::string>(spec_.checklist_fields.begin(), spec_.checklist_fields.end());
  env.dims = dims_;
  return env;
}

void Checker::names(const ast::Expr& e, const NameEnv& env) const {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Name>) {
          if (!env.dims_forbidden.empty() && dims_.count(n.name)) {
            diags_.error(e.range, fmt::format("'{}' is a score: {}", n.name, env.dims_forbidden));
          } else if (!env.names.count(n.name) && !levels_.count(n.name)) {
            std::vector<std::string> all = list(env.names);
            all.insert(all.end(), levels_.begin(), levels_.end());
            diags_.error(e.range, with_suggestion(fmt::format("unknown name '{}'", n.name), n.name, all));
          }
        } else if constexpr (std::is_same_v<T, ast::Field>) {
          const auto* base = std::get_if<ast::Name>(&n.base->node);
          if (base && env.fields.count(base->name) && env.names.count(base->name)) {
            const auto& allowed = env.fields.at(base->name);
            if (!allowed.empty() && !allowed.count(n.field.name)) {
              diags_.error(n.field.range, with_suggestion(fmt::format("'{}' has no field '{}'", base->name, n.field.name),
                                                          n.field.name, list(allowed)));
            }
          } else {
            names(*n.base, env);
          }
        } else if constexpr (std::is_same_v<T, ast::CellSelect>) {
          cell_select(n, e, env);
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          if (!kFunctions.count(n.callee.name))
            diags_.error(n.callee.range, with_suggestion(fmt::format("unknown function '{}'", n.callee.name),
                                                         n.callee.name, list(kFunctions)));
          for (const auto& a : n.args) names(a, env);
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          names(*n.operand, env);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          names(*n.lhs, env);
          names(*n.rhs, env);
        } else if constexpr (std::is_same_v<T, ast::IfExpr>) {
          names(*n.cond, env);
          names(*n.then_branch, env);
          names(*n.else_branch, env);
        } else if constexpr (std::is_same_v<T, ast::ListLit>) {
          for (const auto& i : n.items) names(i, env);
        } else if constexpr (std::is_same_v<T, ast::RangeLit>) {
          names(*n.lo, env);
          names(*n.hi, env);
        }
      },
      e.node);
}

void Checker::cell_select(const ast::CellSelect& s, const ast::Expr& e, const NameEnv& env) const {
  const auto* base = std::get_if<ast::Name>(&s.base->node);
  if (!env.allow_cells) {
    diags_.error(e.range, "a cell selection like D3[zh, low] is allowed in contrasts only");
    return;
  }
  if (!base || !dims_.count(base->name)) {
    diags_.error(s.base->range, with_suggestion(fmt::format("'{}' is not a rubric dimension", base ? base->name : "expression"),
                                                base ? base->name : "", list(dims_)));
  }
  std::set<int> used;
  for (const auto& item : s.items) {
    int factor = -1;
    if (item.factor) {
      factor = spec_.factor_index(item.factor->name);
      if (factor < 0) {
        diags_.error(item.factor->range, with_suggestion(fmt::format("unknown factor '{}'", item.factor->name),
                                                         item.factor->name, list(factors_)));
        continue;
      }
      if (spec_.factors[factor].level_index(item.level.name) < 0) {
        diags_.error(item.level.range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", item.level.name,
                                                                   item.factor->name),
                                                       item.level.name, spec_.factors[factor].level_names()));
        note_declared_levels(spec_, factor, item.level.name, diags_);
        continue;
      }
    } else {
      bool ambiguous = false;
      for (std::size_t f = 0; f < spec_.factors.size() && !ambiguous; ++f) {
        if (spec_.factors[f].level_index(item.level.name) < 0) continue;
        if (factor >= 0) {
          diags_.error(item.level.range, fmt::format("level '{}' is ambiguous: it belongs to '{}' and '{}'; write "
                                                     "factor={}", item.level.name, spec_.factors[factor].name,
                                                     spec_.factors[f].name, item.level.name));
          ambiguous = true;
        }
        factor = static_cast<int>(f);
      }
      if (ambiguous) continue;
      if (factor < 0) {
        diags_.error(item.level.range, with_suggestion(fmt::format("'{}' is not a level of any factor", item.level.name),
                                                       item.level.name, list(levels_)));
        note_declared_levels(spec_, -1, item.level.name, diags_);
        continue;
      }
    }
    if (!used.insert(factor).second)
      diags_.error(item.level.range, fmt::format("factor '{}' is selected twice", spec_.factors[factor].name));
  }
}

void Checker::rubric(const ast::RubricDecl& r) const {
  double lo = 1, hi = 5;
  if (r.scale) {
    const auto* range = std::get_if<ast::RangeLit>(&r.scale->node);
    const auto* a = range ? std::get_if<ast::NumberLit>(&range->lo->node) : nullptr;
    const auto* b = range ? std::get_if<ast::NumberLit>(&range->hi->node) : nullptr;
    if (!a || !b || a->value >= b->value) diags_.error(r.scale->range, "scale must be a range of integers like 1..5");
    else lo = a->value, hi = b->value;
  }
  if (r.worst && r.worst->name != "high" && r.worst->name != "low")
    diags_.error(r.worst->range, "worst must be 'high' or 'low'");
  std::set<std::string> seen;
  NameEnv env;
  env.names = {"checklist"};
  for (const auto& d : r.dims) env.names.insert(d.name.name);
  env.fields["checklist"] = std::set<std::string>(spec_.checklist_fields.begin(), spec_.checklist_fields.end());
  for (const auto& d : r.dims) {
    if (!seen.insert(d.name.name).second) {
      diags_.error(d.name.range, fmt::format("dimension '{}' appears twice in rubric '{}'", d.name.name, r.name.name));
    }
    double dim_lo = lo, dim_hi = hi;
    if (d.scale) dim_scale_range(r, d, dim_lo, dim_hi);
    std::set<double> scores;
    for (const auto& a : d.anchors) {
      const auto* n = std::get_if<ast::NumberLit>(&a.score.node);
      if (!n || n->value < dim_lo || n->value > dim_hi)
        diags_.error(a.score.range, fmt::format("anchor score is outside the scale {}..{}{}", dim_lo, dim_hi,
                                                d.scale ? " of dimension '" + d.name.name + "'" : ""));
      else if (!scores.insert(n->value).second)
        diags_.error(a.score.range, fmt::format("score {} has two anchors", n->text));
    }
    if (d.na_when) names(*d.na_when, env);
    if (d.scored_by && d.scored_by->name != "judge" && d.scored_by->name != "human" && d.scored_by->name != "both")
      diags_.error(d.scored_by->range, with_suggestion(fmt::format("'scored by {}': a dimension is scored by judge, "
                                                                   "human or both",
                                                                   d.scored_by->name),
                                                       d.scored_by->name, {"judge", "human", "both"}));
    // The judge cannot apply an N/A rule that reads what only people score.
    if (d.na_when && !d.human_only())
      for (const auto& other : r.dims)
        if (other.human_only() && source_mentions(*d.na_when, other.name.name))
          diags_.error(d.na_when->range, fmt::format("{}'s N/A rule reads {}, which only people score; the judge "
                                                     "cannot apply it",
                                                     d.name.name, other.name.name));
    if (d.against) {
      const auto* f = std::get_if<ast::Field>(&d.against->node);
      const auto* base = f ? std::get_if<ast::Name>(&f->base->node) : nullptr;
      if (!base || base->name != "checklist")
        diags_.error(d.against->range, "'against' names a checklist field, e.g. checklist.required_elements");
      else if (!spec_.checklist_fields.empty() &&
               std::find(spec_.checklist_fields.begin(), spec_.checklist_fields.end(), f->field.name) == spec_.checklist_fields.end())
        diags_.error(f->field.range, with_suggestion(fmt::format("checklists have no field '{}'", f->field.name),
                                                     f->field.name, spec_.checklist_fields));
    }
  }
  std::set<std::string> ordered;
  for (const auto& step : r.order) {
    for (const auto& id : step) {
      if (!seen.count(id.name))
        diags_.error(id.range, with_suggestion(fmt::format("'{}' is not a dimension of rubric '{}'", id.name, r.name.name),
                                               id.name, list(seen)));
      else if (!ordered.insert(id.name).second)
        diags_.error(id.range, fmt::format("dimension '{}' appears twice in the scoring order", id.name));
    }
  }
  if (!r.order.empty()) order_complete(r, ordered);
}

// A dimension's own `scale`: two whole numbers, the lowest first, at least two scores apart
// from nothing (`3..3` leaves the judge no choice). `lo` and `hi` keep the rubric's otherwise.
void Checker::dim_scale_range(const ast::RubricDecl& r, const ast::DimDecl& d, double& lo, double& hi) const {
  const auto* range = std::get_if<ast::RangeLit>(&d.scale->node);
  const auto* a = range ? std::get_if<ast::NumberLit>(&range->lo->node) : nullptr;
  const auto* b = range ? std::get_if<ast::NumberLit>(&range->hi->node) : nullptr;
  const std::string owner = fmt::format("dimension '{}' of rubric '{}'", d.name.name, r.name.name);
  if (!a || !b || a->value != std::floor(a->value) || b->value != std::floor(b->value)) {
    diags_.error(d.scale->range, fmt::format("{}: scale must be a range of whole numbers like 1..10", owner));
  } else if (a->value > b->value) {
    diags_.error(d.scale->range, fmt::format("{}: scale {}..{} is reversed; write the lowest score first: scale {}..{}",
                                             owner, a->text, b->text, b->text, a->text));
  } else if (a->value == b->value) {
    diags_.error(d.scale->range, fmt::format("{}: scale {}..{} holds a single score; a scale needs at least two", owner,
                                             a->text, b->text));
  } else {
    lo = a->value, hi = b->value;
  }
}

// With an `order`, every dimension the judge scores is in one of its steps, and an N/A
// rule reads only dimensions of earlier steps (those of its own step are scored with it).
void Checker::order_complete(const ast::RubricDecl& r, const std::set<std::string>& ordered) const {
  std::map<std::string, std::size_t> step_of;
  for (std::size_t s = 0; s < r.order.size(); ++s)
    for (const auto& id : r.order[s]) step_of.emplace(id.name, s);
  for (const auto& d : r.dims) {
    if (!d.asked_of_judge()) continue;
    if (!ordered.count(d.name.name)) {
      diags_.error(d.name.range, fmt::format("dimension '{}' is in no step of the order of rubric '{}', so the judge is never "
                                             "asked for it; add it to a step",
                                             d.name.name, r.name.name));
      continue;
    }
    if (!d.na_when) continue;
    std::vector<std::pair<std::string, SourceRange>> read;
    names_read(*d.na_when, read);
    const std::size_t own = step_of.at(d.name.name);
    for (const auto& [name, at] : read) {
      auto other = step_of.find(name);
      if (other == step_of.end() || other->second < own) continue;
      diags_.error(at, fmt::format("{}'s N/A rule reads {}, which is scored {} (order: step {} of {}); it may read only "
                                   "dimensions of earlier steps",
                                   d.name.name, name, other->second == own ? "in the same step" : "in a later step",
                                   other->second + 1, r.order.size()));
    }
  }
}

// Whether `e` names `name` anywhere (a dimension read by a condition).
bool Checker::source_mentions(const ast::Expr& e, const std::string& name) {
  if (const auto* n = std::get_if<ast::Name>(&e.node)) return n->name == name;
  if (const auto* b = std::get_if<ast::Binary>(&e.node)) return source_mentions(*b->lhs, name) || source_mentions(*b->rhs, name);
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) return source_mentions(*u->operand, name);
  return false;
}

void Checker::flag(const ast::FlagDecl& f) const {
  NameEnv env = row_env();
  if (!f.pairings.empty()) {
    env.names.insert({"a", "b"});
    std::set<std::string> side = dims_;
    side.insert(factors_.begin(), factors_.end());
    side.insert({"model", "arm"});
    env.fields["a"] = side;
    env.fields["b"] = side;
  }
  for (const auto& p : f.pairings) pairing(p);
  names(f.when, env);
}

void Checker::pairing(const ast::Pairing& p) const {
  int factor = spec_.factor_index(p.factor.name);
  if (factor < 0) {
    diags_.error(p.factor.range, with_suggestion(fmt::format("unknown factor '{}'", p.factor.name), p.factor.name, list(factors_)));
    return;
  }
  const Factor& named = spec_.factors[factor];
  // Both sides levels of another factor: the pair was written under the wrong factor, and
  // the fix is that factor's name, not other levels.
  if (named.level_index(p.a.name) < 0 && named.level_index(p.b.name) < 0)
    for (const auto& other : spec_.factors)
      if (other.level_index(p.a.name) >= 0 && other.level_index(p.b.name) >= 0) {
        diags_.error(p.factor.range, fmt::format("'{}' and '{}' are levels of factor '{}', not of '{}'", p.a.name,
                                                 p.b.name, other.name, p.factor.name));
        diags_.note(fmt::format("write pair({}: {} vs {})", other.name, p.a.name, p.b.name));
        return;
      }
  for (const ast::Ident* l : {&p.a, &p.b}) {
    if (named.level_index(l->name) >= 0) continue;
    diags_.error(l->range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", l->name, p.factor.name),
                                           l->name, named.level_names()));
    note_declared_levels(spec_, factor, l->name, diags_);
  }
  if (p.a.name == p.b.name) diags_.error(p.b.range, "a pair compares two different levels");
}

// `by`, `pairs`, `within`: factors, model, arm, seed or seed fields.
void Checker::grouping(const ast::Ident& id) const {
  if (factors_.count(id.name) || seed_fields_.count(id.name) || id.name == "model" || id.name == "arm" || id.name == "seed" ||
      id.name == "cell" || id.name == "prompt" || (id.name == "answer" && spec_.answers > 1) ||
      spec_.is_model_group(id.name))
    return;
  std::vector<std::string> all = list(factors_);
  all.insert(all.end(), seed_fields_.begin(), seed_fields_.end());
  all.insert(all.end(), {"model", "arm", "seed"});
  diags_.error(id.range, with_suggestion(fmt::format("'{}' is neither a factor nor a seed field", id.name), id.name, all));
}

void Checker::grouping_expr(const ast::Expr& e) const {
  if (const auto* n = std::get_if<ast::Name>(&e.node)) {
    grouping(ast::Ident{n->name, e.range});
  } else if (const auto* b = std::get_if<ast::Binary>(&e.node); b && b->op == "*") {
    grouping_expr(*b->lhs);
    grouping_expr(*b->rhs);
  } else {
    diags_.error(e.range, "expected a factor or seed field name");
  }
}

void Checker::contrast(const ast::ContrastDecl& c) const {
  NameEnv env;
  env.allow_cells = true;
  env.names = dims_;
  names(c.value, env);
  for (const auto& id : c.by) grouping(id);
  if (c.where) names(*c.where, row_env());
}

void Checker::dim_arg(const ast::Expr& e) const {
  const auto* n = std::get_if<ast::Name>(&e.node);
  if (!n) {
    diags_.error(e.range, "expected a rubric dimension");
  } else if (!dims_.count(n->name)) {
    diags_.error(e.range, with_suggestion(fmt::format("'{}' is not a rubric dimension", n->name), n->name, list(dims_)));
  }
}

void Checker::level_of(const std::string& factor_name, const ast::Expr& e) const {
  const auto* n = std::get_if<ast::Name>(&e.node);
  if (factor_name == "arm") {
    if (!n || !arms_.count(n->name)) diags_.error(e.range, with_suggestion(fmt::format("'{}' is not an arm", n ? n->name : "?"),
                                                                           n ? n->name : "", list(arms_)));
    return;
  }
  if (factor_name == "model") {
    if (!n || !models_.count(n->name)) diags_.error(e.range, with_suggestion(fmt::format("'{}' is not a model", n ? n->name : "?"),
                                                                             n ? n->name : "", list(models_)));
    return;
  }
  int f = spec_.factor_index(factor_name);
  if (f < 0) return;  // reported by the caller
  if (!n || spec_.factors[f].level_index(n->name) < 0) {
    diags_.error(e.range, with_suggestion(fmt::format("'{}' is not a level of factor '{}'", n ? n->name : "?", factor_name),
                                          n ? n->name : "", spec_.factors[f].level_names()));
    note_declared_levels(spec_, f, n ? n->name : "", diags_);
  }
}

}  // namespace check_detail

using check_detail::Checker;

// Every bare name `e` reads, with where it is read.
void names_read(const ast::Expr& e, std::vector<std::pair<std::string, SourceRange>>& out) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Name>) {
          out.emplace_back(n.name, e.range);
        } else if constexpr (std::is_same_v<T, ast::Field> || std::is_same_v<T, ast::CellSelect>) {
          names_read(*n.base, out);
        } else if constexpr (std::is_same_v<T, ast::Call> || std::is_same_v<T, ast::ListLit>) {
          if constexpr (std::is_same_v<T, ast::Call>) {
            for (const auto& a : n.args) names_read(a, out);
          } else {
            for (const auto& a : n.items) names_read(a, out);
          }
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          names_read(*n.operand, out);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          names_read(*n.lhs, out), names_read(*n.rhs, out);
        } else if constexpr (std::is_same_v<T, ast::IfExpr>) {
          names_read(*n.cond, out), names_read(*n.then_branch, out), names_read(*n.else_branch, out);
        } else if constexpr (std::is_same_v<T, ast::RangeLit>) {
          names_read(*n.lo, out), names_read(*n.hi, out);
        }
      },
      e.node);
}

void check_analysis_blocks(const Spec& spec, Diagnostics& diags) { Checker(spec, diags).run(); }

void check_row_condition(const Spec& spec, const ast::Expr& condition, const std::string& no_scores, Diagnostics& diags) {
  Checker(spec, diags).row_condition(condition, no_scores);
}

// Flags, contrasts and analyses are kept by name here; their names and expressions are
// checked by check_analysis_blocks once ranging contrasts are expanded.
void check_flags(CheckContext& cx) {
  NameTable flag_names("flag", cx.diags);
  for (auto [d, f] : all_of<ast::FlagDecl>(cx.decls))
    if (flag_names.add(f->name)) cx.spec.flags.push_back(*f);
}

void check_contrasts(CheckContext& cx) {
  NameTable contrast_names("contrast", cx.diags);
  for (auto [d, c] : all_of<ast::ContrastDecl>(cx.decls))
    if (contrast_names.add(c->name)) cx.spec.contrasts.push_back(*c);
}

void check_analyses(CheckContext& cx) {
  NameTable analysis_names("analysis", cx.diags);
  for (auto [d, a] : all_of<ast::AnalysisDecl>(cx.decls))
    if (analysis_names.add(a->name)) cx.spec.analyses.push_back(*a);
}

}  // namespace mirac
