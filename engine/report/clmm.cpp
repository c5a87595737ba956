// clmm.cpp (report): `table analysis(rq1_ord)` for a cumulative-link mixed model: its
// coefficients (log-odds of a higher score) and thresholds, with the scale stated in words
// because a reader of an LMM table expects score points.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "engine/report/content.hpp"
#include "runtime/report/numbers.hpp"

namespace mirac::report {

namespace {

// What a positive coefficient means for the rubric the scores follow: with `worst high`
// a higher score is a worse one.
std::string direction_note(const Spec& spec) {
  const ast::RubricDecl* rubric = spec.scored_rubric();
  const std::string worst = rubric && rubric->worst ? rubric->worst->name : "";
  if (worst == "high")
    return "Coefficients are log-odds of a higher, i.e. worse, score (the rubric's worst is high): a positive "
           "coefficient means worse scores than at the reference levels; exp(coefficient) is the odds ratio.";
  if (worst == "low")
    return "Coefficients are log-odds of a higher, i.e. better, score (the rubric's worst is low): a positive "
           "coefficient means better scores than at the reference levels; exp(coefficient) is the odds ratio.";
  return "Coefficients are log-odds of a higher score: a positive coefficient shifts the scores up from the "
         "reference levels; exp(coefficient) is the odds ratio.";
}

}  // namespace

void clmm_analysis(const Context& ctx, const Item& item, const Json& a, const std::string& where,
                   std::vector<Block>& out) {
  const std::string name = text(member(&a, "name"));
  const std::string caption =
      !item.title.empty() ? item.title
                          : fmt::format("Analysis {}: cumulative-logit mixed model {}{} (n = {})", name,
                                        text(member(&a, "formula")), where, count(number(member(&a, "n"))));
  const Json* cv = member(&a, "convergence");
  if (cv && text(member(cv, "status")) != "converged")
    out.push_back(Note{fmt::format("Analysis {}: the fit ended with status '{}': {}", name, text(member(cv, "status")),
                                   text(member(cv, "message")))});
  std::string intro = direction_note(ctx.spec);
  if (const Json* refs = member(&a, "reference"); refs && refs->is_object() && !refs->empty()) {
    std::vector<std::string> parts;
    for (const auto& [factor, level] : refs->items())
      parts.push_back(fmt::format("{} = {}", factor, level_label(ctx.spec, factor, text(&level))));
    intro = fmt::format("Reference levels of {}: {}. {}", name, fmt::join(parts, ", "), intro);
  }
  out.push_back(Paragraph{intro});
  Table t;
  t.caption = caption;
  t.header = {"term", "estimate (log-odds)", "SE", "z", "p"};
  t.numeric = {false, true, true, true, true};
  if (const Json* list = member(&a, "fixed"); list && list->is_array())
    for (const auto& f : *list)
      t.rows.push_back({term_label(ctx.spec, text(member(&f, "term"))), estimate(number(member(&f, "estimate"))),
                        estimate(number(member(&f, "se"))), fixed(number(member(&f, "z")), 2),
                        p_value(number(member(&f, "p")))});
  out.push_back(std::move(t));
  Table th;
  th.caption = fmt::format("Analysis {}: thresholds (logit of P(score <= j) at the reference levels, for a typical "
                           "group)", name);
  th.header = {"threshold", "estimate", "SE"};
  th.numeric = {false, true, true};
  if (const Json* list = member(&a, "thresholds"); list && list->is_array())
    for (const auto& h : *list)
      th.rows.push_back({text(member(&h, "name")), estimate(number(member(&h, "estimate"))),
                         estimate(number(member(&h, "se")))});
  out.push_back(std::move(th));
  std::vector<std::string> parts;
  if (const Json* random = member(&a, "random"); random && random->is_array())
    for (const auto& r : *random)
      parts.push_back(fmt::format("random intercept of {} ({} groups): variance {} (SD {})", text(member(&r, "group")),
                                  count(number(member(&r, "groups"))), estimate(number(member(&r, "variance"))),
                                  estimate(number(member(&r, "sd")))));
  parts.push_back(fmt::format("log-likelihood (Laplace) {}", fixed(number(member(&a, "log_likelihood")), 2)));
  if (cv) parts.push_back(fmt::format("convergence: {}", text(member(cv, "status"))));
  std::string line = fmt::format("{}", fmt::join(parts, "; "));
  line[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(line[0])));
  out.push_back(Paragraph{line + "."});
}

}  // namespace mirac::report
