// answer_links.cpp: which answers a number of the report stands for, as the query of
// `mirac view`'s answer list (engine/view/query.cpp reads it), so that report.html served
// by the view can link each mean to exactly the answers it averages. A link that showed
// other answers than those behind the number would mislead, so whatever the view's filters
// cannot say (a `where` on something but model, arm and factor levels) gets no link at all.
#include <fmt/format.h>

#include "engine/report/content.hpp"

namespace mirac::report {

namespace {

// The names mirac view reads as its own (engine/view/query.hpp, kQueryParams, and `view`,
// the page's switch to its pairs): a factor so named is not a filter there, so a link
// could not ask for its level. tests/report/answer_links_test.cpp checks the two agree.
constexpr const char* kViewNames[] = {"model",  "arm",   "seed",   "judge", "status", "flag", "scored_on", "offset",
                                      "limit", "factor", "a",     "b",      "dim",  "min_diff",  "view"};

// `name == value` or `value == name` for a variable the view filters on: the pair
// (variable, value), else nullopt.
std::optional<std::pair<std::string, std::string>> equality(const Spec& spec, const ast::Binary& b) {
  const auto* lhs = std::get_if<ast::Name>(&b.lhs->node);
  const auto* rhs = std::get_if<ast::Name>(&b.rhs->node);
  if (!lhs || !rhs) return std::nullopt;
  auto valid = [&](const std::string& var, const std::string& value) {
    if (var == "model") {
      for (const auto& m : spec.models)
        if (m.name == value) return true;
      return false;
    }
    if (var == "arm") {
      for (const auto& a : spec.arms)
        if (a.name == value) return true;
      return false;
    }
    const int f = spec.factor_index(var);
    return f >= 0 && !view_reserved(var) && spec.factors[static_cast<std::size_t>(f)].level_index(value) >= 0;
  };
  if (valid(lhs->name, rhs->name)) return std::make_pair(lhs->name, rhs->name);
  if (valid(rhs->name, lhs->name)) return std::make_pair(rhs->name, lhs->name);
  return std::nullopt;
}

bool add_conjuncts(const Spec& spec, const ast::Expr& e, AnswerQuery& q) {
  const auto* b = std::get_if<ast::Binary>(&e.node);
  if (!b) return false;
  if (b->op == "and") return add_conjuncts(spec, *b->lhs, q) && add_conjuncts(spec, *b->rhs, q);
  if (b->op != "==") return false;
  auto eq = equality(spec, *b);
  return eq && add_param(q, eq->first, eq->second);
}

// Percent-encoding of a query's name or value (RFC 3986 unreserved characters as is).
std::string encoded(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || c == '.' || c == '~';
    out += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace

bool view_reserved(const std::string& name) {
  for (const char* reserved : kViewNames)
    if (name == reserved) return true;
  return false;
}

bool add_param(AnswerQuery& q, const std::string& name, const std::string& value) {
  for (const auto& [n, v] : q)
    if (n == name) return v == value;
  q.emplace_back(name, value);
  return true;
}

std::optional<AnswerQuery> where_query(const Spec& spec, const ast::Expr* where) {
  AnswerQuery q;
  if (!where) return q;
  // Two values of one variable (`arm == a and arm == b`) match nothing; the view would
  // show the answers of one of them, so that is no link either.
  if (!add_conjuncts(spec, *where, q)) return std::nullopt;
  return q;
}

bool add_group_param(const Spec& spec, AnswerQuery& q, const std::string& var, const std::string& value) {
  if (var == "model" || var == "arm") return add_param(q, var, value);
  const int f = spec.factor_index(var);
  if (f < 0 || view_reserved(var) || spec.factors[static_cast<std::size_t>(f)].level_index(value) < 0) return false;
  return add_param(q, var, value);
}

std::string query_string(const AnswerQuery& q) {
  std::string out;
  for (const auto& [name, value] : q) out += (out.empty() ? "" : "&") + encoded(name) + "=" + encoded(value);
  return out;
}

}  // namespace mirac::report
