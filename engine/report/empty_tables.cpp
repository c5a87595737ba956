// empty_tables.cpp: a declared table that is empty because what it needs is not there yet
// says so in its place, with how to supply it, rather than showing an empty grid or a bare
// error: people's scores (agreement and corrected analyses, the paper's Tables 2 and 16,
// before anyone has annotated) and a spearman analysis's external file (Table 6 and
// Figure 4, real-world scores the audit does not produce).
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/report/content.hpp"

namespace mirac::report {

namespace {

const ast::AnalysisDecl* declared(const Spec& spec, const std::string& name) {
  for (const auto& a : spec.analyses)
    if (a.name.name == name) return &a;
  return nullptr;
}

// "model * language" -> model, language.
void split_product(const std::string& text, std::vector<std::string>& out) {
  std::size_t start = 0;
  for (std::size_t at; (at = text.find(" * ", start)) != std::string::npos; start = at + 3)
    out.push_back(text.substr(start, at - start));
  out.push_back(text.substr(start));
}

// An empty table under the item's title (else `caption`), with `why` in its place.
Table empty_table(const Item& item, const std::string& caption, std::string why) {
  Table t;
  t.caption = !item.title.empty() ? item.title : caption;
  t.empty_because = std::move(why);
  return t;
}

}  // namespace

bool missing_people_scores(const Item& item, const Json& a, std::vector<Block>& out) {
  const Json* rater = member(&a, "missing_scores");
  if (!rater) return false;
  const std::string name = text(member(&a, "name")), kind = text(member(&a, "kind")), who = text(rater);
  const std::string what = kind == "agreement" ? "compares raters' scores with people's"
                           : kind == "corrected" ? "corrects the judge's figures with people's scores"
                                                 : "needs people's scores";
  out.push_back(empty_table(
      item, fmt::format("Analysis {} ({})", name, kind),
      fmt::format("Empty until people score answers: analysis {} {} (rater `{}`), and there are none yet. To fill it, "
                  "`mirac annotate sample SPEC` draws a sample of the answers for people to score (in a page that "
                  "works offline, or a sheet), `mirac annotate import SPEC SHEET --annotator NAME` stores each "
                  "person's scores, and `mirac analyze SPEC` then computes this table; scores kept elsewhere can be "
                  "given as `mirac analyze SPEC --scores FILE`, as rows whose `rater` is `{}` (docs/judging.md, "
                  "\"Human annotation\").",
                  name, what, who, who)));
  return true;
}

std::string external_file_needs(const Spec& spec, const Json& a) {
  const std::string name = text(member(&a, "name"));
  const ast::AnalysisDecl* decl = declared(spec, name);
  std::string file = text(member(&a, "against"));
  std::vector<std::string> by, dims;
  std::map<std::string, std::string> column;  // variable or dimension -> its column in the file
  if (decl) {
    for (const auto& o : decl->options) {
      if (o.key.name == "by")
        for (const auto& v : o.values) split_product(expr_text(v.value), by);
      if (o.key.name != "against" || o.values.empty()) continue;
      if (const auto* call = std::get_if<ast::Call>(&o.values[0].value.node); call && !call->args.empty())
        if (const auto* path = std::get_if<ast::StringLit>(&call->args[0].node)) file = path->value;
      if (o.columns)
        for (const auto& [variable, col] : *o.columns) column[variable.name] = col.name;
    }
    for (const auto& arg : decl->args) dims.push_back(expr_text(arg));
  }
  std::vector<std::string> columns;
  for (const auto& v : by) columns.push_back(column.count(v) ? column[v] : v);
  for (const auto& d : dims) columns.push_back(column.count(d) ? column[d] : d);
  return fmt::format("`{}` in the spec's data directory (`--data`), one row per {} with the columns {} (a number per "
                     "dimension; empty or N/A where there is none)",
                     file.empty() ? "the external file" : file, by.empty() ? "group" : join_by(by),
                     fmt::join(columns, ", "));
}

bool missing_external_data(const Context& ctx, const Item& item, const Json& a, std::vector<Block>& out) {
  if (text(member(&a, "kind")) != "spearman") return false;
  const std::string name = text(member(&a, "name"));
  const std::string against = text(member(&a, "against"));
  const std::string caption = fmt::format("Analysis {}: Spearman correlation of the audit's means with {}", name,
                                          against.empty() ? "an external file" : against);
  if (const Json* error = member(&a, "error")) {
    out.push_back(empty_table(item, caption,
                              fmt::format("Empty: analysis {} correlates the audit's means with values from outside it "
                                          "({}). To fill it, supply {}, and run `mirac analyze SPEC` again.",
                                          name, text(error), external_file_needs(ctx.spec, a))));
    return true;
  }
  // Every dimension short of groups: the file has (almost) nothing for the audit's groups.
  const Json* results = member(&a, "results");
  if (!results || !results->is_array() || results->empty()) return false;
  std::size_t most = 0;
  for (const auto& r : *results) {
    if (!member(&r, "error")) return false;
    most = std::max<std::size_t>(most, static_cast<std::size_t>(number(member(&r, "n")).value_or(0)));
  }
  out.push_back(empty_table(
      item, caption,
      fmt::format("Empty: Spearman's rho needs at least 3 groups that have both a mean in the audit and a value in "
                  "`{}`, and {} {} both. To fill it, supply {}, and run `mirac analyze SPEC` again.",
                  against, most, most == 1 ? "has" : "have", external_file_needs(ctx.spec, a))));
  return true;
}

}  // namespace mirac::report
