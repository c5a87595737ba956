#include "engine/analyze/context.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "interpreter/scores/row_scope.hpp"
#include "runtime/stats/bootstrap.hpp"

namespace mirac::analyze {

namespace {

// runtime/stats says which function failed (`lmm_fit: ...`, `build_design: ...`), which is
// what its own tests and callers want; a user of an analysis wants the reason alone.
std::string without_function_name(const std::string& message) {
  const std::size_t colon = message.find(": ");
  if (colon == std::string::npos || colon == 0) return message;
  const std::string name = message.substr(0, colon);
  const bool function = name.find('_') != std::string::npos &&
                        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") == std::string::npos;
  return function ? message.substr(colon + 2) : message;
}

}  // namespace

void report_unsupported(const Context& ctx, const ast::AnalysisDecl& a, const std::string& why,
                        nlohmann::ordered_json& entry) {
  const std::string reason = without_function_name(why);
  entry["error"] = reason;
  if (!ctx.options.partial) {
    ctx.diags.error(a.name.range, fmt::format("analysis {}: {}", a.name.name, reason));
    return;
  }
  // A pilot is not a broken spec: the full run will have what this subset lacks.
  entry["skipped"] = true;
  ctx.diags.warning(a.name.range, fmt::format("analysis {} skipped: {} (the scores cover only part of the plan)",
                                              a.name.name, reason));
}

std::string csv_number(double x) { return std::isfinite(x) ? fmt::format("{}", x) : ""; }

nlohmann::ordered_json json_number(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(); }

bool is_variable(const Spec& spec, const std::string& variable) {
  if (spec.factor_index(variable) >= 0 || variable == "model" || variable == "arm" || variable == "seed" || variable == "cell" ||
      variable == "answer" || variable == "prompt" || spec.is_model_group(variable))
    return true;
  for (const auto& info : spec.seed_fields)
    if (info.name == variable) return true;
  return false;
}

std::vector<std::string> variables_of(const ast::Expr& e) {
  if (const auto* n = std::get_if<ast::Name>(&e.node)) return {n->name};
  if (const auto* b = std::get_if<ast::Binary>(&e.node); b && b->op == "*") {
    std::vector<std::string> out = variables_of(*b->lhs);
    for (auto& v : variables_of(*b->rhs)) out.push_back(std::move(v));
    return out;
  }
  return {};
}

const ast::AnalysisOption* find_option(const std::vector<ast::AnalysisOption>& options, const std::string& key) {
  for (const auto& o : options)
    if (o.key.name == key) return &o;
  return nullptr;
}

std::string source_text(const Context& ctx, SourceRange range) {
  if (!range.valid()) return std::string();
  return ctx.sources.text(range.file).substr(range.begin.byte, range.end.byte - range.begin.byte);
}

std::string name_of(const ast::Expr& e) {
  const auto* n = std::get_if<ast::Name>(&e.node);
  return n ? n->name : std::string();
}

bool rows_where(const Context& ctx, const ast::Expr& condition, std::vector<std::size_t>& rows) {
  rows.clear();
  for (std::size_t i = 0; i < ctx.scores.rows.size(); ++i) {
    try {
      if (holds(condition, ctx.spec, ctx.scores, ctx.scores.rows[i])) rows.push_back(i);
    } catch (const EvalError& e) {
      ctx.diags.error(e.range, e.what());  // once: the same problem recurs on every row
      return false;
    }
  }
  return true;
}

std::vector<std::size_t> filter_rows(const Context& ctx, const std::vector<ast::AnalysisOption>& options) {
  std::vector<const ast::Expr*> conditions;
  for (const auto& o : options)
    if (o.key.name == "where")
      for (const auto& v : o.values) conditions.push_back(&v.value);
  std::vector<std::size_t> out;
  out.reserve(ctx.scores.rows.size());
  for (std::size_t i = 0; i < ctx.scores.rows.size(); ++i) {
    bool keep = true;
    for (const ast::Expr* c : conditions) {
      try {
        keep = holds(*c, ctx.spec, ctx.scores, ctx.scores.rows[i]);
      } catch (const EvalError& e) {
        // One report per condition is enough: the same problem recurs on every row.
        ctx.diags.error(e.range, e.what());
        return {};
      }
      if (!keep) break;
    }
    if (keep) out.push_back(i);
  }
  return out;
}

}  // namespace mirac::analyze

namespace mirac::analyze {

namespace {
// Sort rank of a variable's value: its declaration index when it has one, else 0 (then the
// string orders).
int rank_of(const Spec& spec, const ScoreRow& row, const std::string& variable) {
  int f = spec.factor_index(variable);
  if (f >= 0) return row.levels[f];
  if (variable == "model") return row.model;
  if (variable == "arm") return row.arm;
  if (variable == "seed") return row.seed;
  return 0;
}
}  // namespace

std::vector<Group> group_rows(const Spec& spec, const ScoreTable& scores, const std::vector<std::size_t>& rows,
                              const std::vector<std::string>& variables) {
  std::map<std::vector<std::pair<int, std::string>>, std::size_t> index;
  std::vector<Group> groups;
  for (std::size_t i : rows) {
    const ScoreRow& r = scores.rows[i];
    std::vector<std::pair<int, std::string>> key;
    for (const auto& v : variables) key.emplace_back(rank_of(spec, r, v), variable_value(spec, r, v));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) {
      Group g;
      for (auto& [rank, value] : key) g.values.push_back(value);
      groups.push_back(std::move(g));
    }
    groups[it->second].rows.push_back(i);
  }
  std::vector<Group> ordered;
  for (const auto& [key, g] : index) ordered.push_back(std::move(groups[g]));
  return ordered;
}

nlohmann::ordered_json group_json(const std::vector<std::string>& variables, const Group& g) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < variables.size(); ++i) j[variables[i]] = g.values[i];
  return j;
}

std::string group_label(const Group& g) {
  std::string s;
  for (const auto& v : g.values) s += (s.empty() ? "" : "/") + v;
  return s;
}

void report_missing_scores(const Context& ctx, const ast::AnalysisDecl& a, const std::string& rater, const std::string& why,
                           nlohmann::ordered_json& entry) {
  entry["error"] = why;
  if (is_human_rater(rater)) entry["missing_scores"] = rater;
  else ctx.diags.warning(a.name.range, fmt::format("analysis {}: {}", a.name.name, why));
}

void warn_small_designs(const Context& ctx, const ast::AnalysisDecl& a, std::size_t count) {
  if (count == 0) return;
  ctx.diags.warning(a.name.range,
                    fmt::format("analysis {}: {} interval{} on fewer than {} seeds, a design smaller than any whose "
                                "coverage is verified: such intervals may hold the truth less often than 95% "
                                "(docs/statistics.md, section 6)",
                                a.name.name, count, count == 1 ? " rests" : "s rest", stats::kSmallestVerifiedClusters));
}

}  // namespace mirac::analyze
