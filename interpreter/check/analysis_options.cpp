// check_analysis_options.cpp: the analyses (their kinds, arguments and options, raters)
// and the report blocks' items, checked by the Checker of check_analysis_checker.hpp.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "interpreter/check/analysis_checker.hpp"

namespace mirac::check_detail {

void Checker::analysis(const ast::AnalysisDecl& a) const {
  static const std::map<std::string, std::set<std::string>> kOptions = {
      {"lmm", {"where", "reference"}},
      {"clmm", {"where", "reference"}},
      {"wilcoxon", {"compare", "pairs", "within", "where", "adjust", "effect"}},
      {"paired", {"compare", "by", "pairs", "where", "patterns"}},
      {"spearman", {"by", "against", "where"}},
      {"agreement", {"raters", "by", "where"}},
      {"criteria", {"rater", "compare", "by", "where"}},
      {"corrected", {"judge", "people", "by", "where", "contrasts", "flags", "certify", "method"}},
      {"invariance",
       {"judge", "translate", "translator", "instruction", "rubric", "across", "sample", "by", "where", "contrasts"}}};
  auto kind = kOptions.find(a.kind.name);
  if (kind == kOptions.end()) {
    std::string message = with_suggestion(fmt::format("unknown analysis '{}'", a.kind.name), a.kind.name,
                                          {"lmm", "clmm", "wilcoxon", "paired", "spearman", "agreement", "criteria",
                                           "corrected", "invariance"});
    if (message.find("did you mean") == std::string::npos)
      message += "; analyses are lmm, clmm, wilcoxon, paired, spearman, agreement, criteria, corrected and invariance";
    diags_.error(a.kind.range, message);
    return;
  }
  if (a.kind.name == "lmm" || a.kind.name == "clmm") {
    const std::string& k = a.kind.name;
    if (!a.formula) {
      diags_.error(a.kind.range, fmt::format("{} needs a formula: {}(D3 ~ a * b + (1 | seed))", k, k));
    } else {
      dim_arg(ast::Expr{ast::Name{a.formula->response.name}, a.formula->response.range});
      int random = 0;
      for (const auto& t : a.formula->terms) {
        if (t.group) {
          // clmm fits one random intercept (one integral per group); crossed ones would
          // need a multivariate Laplace approximation it does not implement
          if (k == "clmm" && random == 1)
            diags_.error(t.group->range, "clmm takes one random intercept, e.g. (1 | seed); a second is not supported");
          ++random;
          grouping(*t.group);
        }
        for (const auto& v : t.vars) {
          if (factors_.count(v.name) || seed_fields_.count(v.name) || v.name == "model" || v.name == "arm") continue;
          std::vector<std::string> all = list(factors_);
          all.insert(all.end(), seed_fields_.begin(), seed_fields_.end());
          all.insert(all.end(), {"model", "arm"});
          diags_.error(v.range, with_suggestion(fmt::format("{} term '{}' is neither a factor nor a seed field", k, v.name),
                                                v.name, all));
        }
      }
      if (!random)
        diags_.error(a.formula->range, fmt::format("{} needs {} random intercept, e.g. (1 | seed)", k,
                                                   k == "clmm" ? "a" : "at least one"));
    }
  } else {
    if (a.formula) diags_.error(a.formula->range, fmt::format("{} takes dimensions, not a formula", a.kind.name));
    // corrected may correct declared contrasts or flags alone.
    const bool corrects_others = a.kind.name == "corrected" && (find(a, "contrasts") || find(a, "flags"));
    if (a.args.empty() && !a.formula && a.kind.name != "criteria" && !corrects_others)
      diags_.error(a.kind.range, a.kind.name == "corrected"
                                     ? std::string("corrected needs a rubric dimension, or contrasts or flags to correct: "
                                                   "corrected(D3) or corrected() { flags NAME }")
                                     : fmt::format("{} needs at least one rubric dimension", a.kind.name));
    if (!a.args.empty() && a.kind.name == "criteria")
      diags_.error(a.args.front().range, "criteria() reads the criteria of a rater, not dimensions: criteria() { rater NAME }");
    for (const auto& arg : a.args) dim_arg(arg);
    if (a.kind.name == "corrected") corrected_judge(a);
    if (a.kind.name == "invariance") invariance_analysis(a);
  }
  const bool has_compare =
      std::any_of(a.options.begin(), a.options.end(), [](const ast::AnalysisOption& o) { return o.key.name == "compare"; });
  if (a.kind.name == "wilcoxon" && !has_compare)
    diags_.error(a.kind.range, "wilcoxon needs the levels it compares: compare FACTOR: a vs b, e.g. compare condition: "
                               "A vs B");
  if (a.kind.name == "paired" && !has_compare)
    diags_.error(a.kind.range, "paired needs the arms it compares: compare arm: a vs b, e.g. compare arm: mitigation "
                               "vs baseline");
  const bool has_raters =
      std::any_of(a.options.begin(), a.options.end(), [](const ast::AnalysisOption& o) { return o.key.name == "raters"; });
  if (a.kind.name == "agreement" && !has_raters)
    diags_.error(a.kind.range, "agreement needs the raters it compares: raters judge_a, judge_b");
  for (const auto& o : a.options) {
    if (!kind->second.count(o.key.name)) {
      diags_.error(o.key.range, with_suggestion(fmt::format("unknown option '{}' for {}", o.key.name, a.kind.name),
                                                o.key.name, list(kind->second)));
      continue;
    }
    option(a, o);
  }
}

void Checker::option(const ast::AnalysisDecl& a, const ast::AnalysisOption& o) const {
  const std::string& k = o.key.name;
  if (a.kind.name == "invariance" && (k == "judge" || k == "translate" || k == "translator" || k == "instruction" ||
                                      k == "rubric" || k == "across" || k == "sample" || k == "where")) {
    invariance_option(a, o);
    return;
  }
  if (k == "where") {
    for (const auto& v : o.values) names(v.value, row_env());
  } else if (k == "reference") {
    for (const auto& v : o.values) {
      if (!v.label) {
        diags_.error(v.range, "write 'reference factor: level'");
        continue;
      }
      if (!factors_.count(v.label->name) && !seed_fields_.count(v.label->name) && v.label->name != "model" &&
          v.label->name != "arm") {
        diags_.error(v.label->range, with_suggestion(fmt::format("unknown factor '{}'", v.label->name), v.label->name, list(factors_)));
        continue;
      }
      if (factors_.count(v.label->name) || v.label->name == "model" || v.label->name == "arm") level_of(v.label->name, v.value);
    }
  } else if (k == "compare") {
    std::string factor;
    for (const auto& v : o.values) {
      if (v.label) factor = v.label->name;
      if (factor.empty()) {
        diags_.error(v.range, "write 'compare factor: a vs b'");
        continue;
      }
      if (!factors_.count(factor) && factor != "arm" && factor != "model") {
        diags_.error(v.label ? v.label->range : v.range, with_suggestion(fmt::format("unknown factor '{}'", factor), factor, list(factors_)));
        continue;
      }
      if (a.kind.name == "paired" && factor != "arm") diags_.error(v.range, "paired compares arms: compare arm: a vs b");
      if (!v.versus) {
        diags_.error(v.range, "write 'a vs b'");
        continue;
      }
      level_of(factor, v.value);
      level_of(factor, *v.versus);
    }
  } else if (k == "pairs" || k == "within" || k == "by") {
    for (const auto& v : o.values) grouping_expr(v.value);
  } else if (k == "adjust") {
    std::string w = option_word(o.values);
    if (w != "bh" && w != "bonferroni" && w != "none") diags_.error(o.range, "adjust must be bh, bonferroni or none");
  } else if (k == "effect") {
    std::string w = option_word(o.values);
    if (w != "cohen_dz" && w != "none") diags_.error(o.range, "effect must be cohen_dz or none");
  } else if (k == "against") {
    const auto* c = o.values.empty() ? nullptr : std::get_if<ast::Call>(&o.values[0].value.node);
    if (!c || (c->callee.name != "csv" && c->callee.name != "jsonl") || c->args.size() != 1 ||
        !std::holds_alternative<ast::StringLit>(c->args[0].node))
      diags_.error(o.range, "against needs a data file: against csv(\"scores.csv\") { model = model_column ... }");
  } else if (k == "raters") {
    raters(a, o);
  } else if (k == "judge" || k == "people" || k == "contrasts" || k == "flags" || k == "certify" || k == "method") {
    corrected_option(o);
  } else if (k == "patterns") {
    NameEnv env;
    env.names = {"delta"};
    env.fields["delta"] = dims_;
    for (const auto& v : o.values) names(v.value, env);
  }
}

// `raters a, b, c` (or `raters a vs b`): at least two distinct judges or panels, each
// applying a rubric that has every dimension the analysis names.
void Checker::raters(const ast::AnalysisDecl& a, const ast::AnalysisOption& o) const {
  std::vector<std::string> known;
  for (const auto& j : spec_.judges) known.push_back(j.name);
  for (const auto& p : spec_.panels) known.push_back(p.name);
  std::set<std::string> seen;
  std::size_t count = 0;
  auto one = [&](const ast::Expr& e) {
    const std::string name = rater_name(e);
    ++count;
    const bool human = is_human_rater(name);
    if (!human && (name.empty() || std::find(known.begin(), known.end(), name) == known.end())) {
      diags_.error(e.range, with_suggestion(fmt::format("'{}' is neither a judge, a panel, human nor human.NAME",
                                                        name.empty() ? "?" : name),
                                            name, known));
      return;
    }
    if (!seen.insert(name).second) {
      diags_.error(e.range, fmt::format("rater '{}' is named twice", name));
      return;
    }
    if (human) return;  // people score the analyses' rubric
    const int j = spec_.judge_index(name);
    const std::string rubric = j >= 0 ? spec_.judges[static_cast<std::size_t>(j)].rubric : spec_.find_panel(name)->rubric;
    const ast::RubricDecl* r = spec_.find_rubric(rubric);
    if (!r) return;
    for (const auto& arg : a.args) {
      const std::string dim = name_of_expr(arg);
      const ast::DimDecl* found = nullptr;
      for (const auto& d : r->dims)
        if (d.name.name == dim) found = &d;
      if (!dim.empty() && !found)
        diags_.error(e.range, fmt::format("rater '{}' applies rubric '{}', which has no dimension {}", name, rubric, dim));
      else if (found && found->human_only())
        diags_.error(e.range, fmt::format("rater '{}' does not score {}: only people do (scored by human)", name, dim));
    }
  };
  for (const auto& v : o.values) {
    one(v.value);
    if (v.versus) one(*v.versus);
  }
  if (count < 2) diags_.error(o.range, "agreement compares at least two raters: raters judge_a, judge_b");
}

std::string Checker::name_of_expr(const ast::Expr& e) {
  const auto* n = std::get_if<ast::Name>(&e.node);
  return n ? n->name : "";
}

void Checker::report(const ast::ReportDecl& r) const {
  std::set<std::string> contrasts, analyses, lmms, paireds, flags;
  for (const auto& c : spec_.contrasts) contrasts.insert(c.name.name);
  for (const auto& a : spec_.analyses) {
    analyses.insert(a.name.name);
    if (a.kind.name == "lmm" || a.kind.name == "clmm") lmms.insert(a.name.name);
    if (a.kind.name == "paired") paireds.insert(a.name.name);
  }
  for (const auto& f : spec_.flags) flags.insert(f.name.name);
  std::set<std::string> plain_fields;  // one value per seed: what seeds(...) can count by
  for (const auto& f : spec_.seed_fields)
    if (f.index_factor < 0) plain_fields.insert(f.name);
  static const std::set<std::string> kinds = {"table", "figure", "text", "section"};
  for (const auto& item : r.items) {
    if (item.change != ast::ItemChange::add) continue;  // a change with no base's item: check_report_items
    if (!kinds.count(item.kind.name)) {
      diags_.error(item.kind.range, with_suggestion(fmt::format("unknown report item '{}'", item.kind.name), item.kind.name, list(kinds)));
      continue;
    }
    if (item.kind.name == "text" || item.kind.name == "section") {
      if (!item.content || !std::holds_alternative<ast::StringLit>(item.content->node))
        diags_.error(item.kind.range, fmt::format("'{}' takes a string", item.kind.name));
      continue;
    }
    const auto* c = item.content ? std::get_if<ast::Call>(&item.content->node) : nullptr;
    if (!c) {
      diags_.error(item.content->range, "expected a table or figure such as means(D3) or contrasts(DTI_core)");
      continue;
    }
    // What each content takes as arguments, and which options besides `title`.
    struct Content {
      const std::set<std::string>* allowed;
      const char* what;
      std::set<std::string> options;
    };
    const std::map<std::string, Content> contents = {
        {"means", {&dims_, "dimensions", {"by", "where"}}},
        {"bars", {&dims_, "dimensions", {"by", "where"}}},
        {"contrasts", {&contrasts, "contrasts", {"by", "where"}}},
        {"analysis", {&analyses, "analyses", {"by", "where"}}},
        {"coefficients", {&lmms, "lmm or clmm analyses", {"terms"}}},
        {"deltas", {&paireds, "paired analyses", {}}},
        {"flags", {&flags, "flags", {"by", "where", "delta", "split"}}},
        {"seeds", {&plain_fields, "seed fields", {}}}};
    auto content = contents.find(c->callee.name);
    if (content == contents.end()) {
      std::set<std::string> names;
      for (const auto& [name, _] : contents) names.insert(name);
      diags_.error(c->callee.range, with_suggestion(fmt::format("unknown {} '{}'", item.kind.name, c->callee.name),
                                                    c->callee.name, list(names)));
      continue;
    }
    if (c->callee.name == "coefficients" && item.kind.name != "table")
      diags_.error(item.kind.range, "coefficients are a table: write `table coefficients(...)`");
    const std::set<std::string>& allowed = *content->second.allowed;
    for (const auto& arg : c->args) {
      const auto* n = std::get_if<ast::Name>(&arg.node);
      if (n && c->callee.name == "seeds" && n->name != "id" && seed_fields_.count(n->name) && !allowed.count(n->name)) {
        diags_.error(arg.range, fmt::format("seeds({}): '{}' has a value per level of a factor, not one per seed to count "
                                            "seeds by",
                                            n->name, n->name));
        continue;
      }
      if (!n || !allowed.count(n->name))
        diags_.error(arg.range, with_suggestion(fmt::format("'{}' is not one of the spec's {}", n ? n->name : "expression",
                                                            content->second.what),
                                                n ? n->name : "", list(allowed)));
    }
    if (c->callee.name == "seeds" && c->args.empty())
      diags_.error(c->callee.range, "seeds() needs a seed field to count the seeds by, e.g. seeds(category)");
    for (const auto& o : item.options) {
      const std::string& key = o.key.name;
      if (c->callee.name == "seeds" && (key == "by" || key == "where")) {
        // results.json counts the seeds once, over every analysed answer.
        diags_.error(o.key.range, fmt::format("seeds(...) takes no '{}': it counts every seed the analysed answers cover",
                                              key));
      } else if (key != "title" && !content->second.options.count(key)) {
        std::set<std::string> known = content->second.options;
        known.insert("title");
        diags_.error(o.key.range, with_suggestion(fmt::format("unknown option '{}' of {}", key, c->callee.name), key, list(known)));
      } else if (key == "by") {
        for (const auto& v : o.values) grouping_expr(v.value);
      } else if (key == "where") {
        for (const auto& v : o.values) names(v.value, row_env());
      } else if (key == "delta" || key == "split") {
        for (const auto& v : o.values) {
          if (v.label && !std::any_of(c->args.begin(), c->args.end(), [&](const ast::Expr& arg) {
                const auto* n = std::get_if<ast::Name>(&arg.node);
                return n && n->name == v.label->name;
              }))
            diags_.error(v.label->range, fmt::format("'{}' is not one of this table's flags", v.label->name));
          const auto* n = std::get_if<ast::Name>(&v.value.node);
          if (!n || !dims_.count(n->name))
            diags_.error(v.value.range, with_suggestion(fmt::format("'{}' of '{}' is not a dimension of the rubric",
                                                                    n ? n->name : "expression", key),
                                                        n ? n->name : "", list(dims_)));
        }
      } else if (key == "terms") {
        for (const auto& v : o.values) grouping_expr(v.value);
      }
    }
  }
}

}  // namespace mirac::check_detail
