// check_analysis_checker.hpp: the checker of rubrics, flags, contrasts, analyses and
// reports, shared by check_analysis.cpp (names, rubrics, flags, contrasts) and
// check_analysis_options.cpp (analyses, their options, report items). Internal to
// interpreter/; the rest of mirac calls the functions check.hpp declares.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "interpreter/check/check.hpp"

namespace mirac::check_detail {

/// The word an option value spells: a name, or `none`, which the grammar reads as the
/// literal (it is a reserved word), so `adjust none` and `effect none` are words here too.
std::string option_word(const std::vector<ast::OptionValue>& values);

/// The names an expression may use, and for some of them the fields they have.
struct NameEnv {
  std::set<std::string> names;
  std::map<std::string, std::set<std::string>> fields;  ///< name -> its fields; absent = any
  std::set<std::string> dims;
  bool allow_cells = false;
  /// Said of a dimension named where scores cannot be read; empty: dimensions are names.
  std::string dims_forbidden;
};

/// Resolves every name the analysis blocks use against the spec; problems go to `diags`.
class Checker {
 public:
  Checker(const Spec& spec, Diagnostics& diags);
  /// A condition on a score row; `no_scores`: why it may not read a dimension (empty: it may).
  void row_condition(const ast::Expr& e, const std::string& no_scores) const;
  void run();

 private:
  // Names a score row has: dimensions, factors, model, arm, seed, checklist, levels.
  NameEnv row_env() const;
  std::vector<std::string> list(const std::set<std::string>& s) const { return {s.begin(), s.end()}; }
  void names(const ast::Expr& e, const NameEnv& env) const;
  void cell_select(const ast::CellSelect& s, const ast::Expr& e, const NameEnv& env) const;
  void rubric(const ast::RubricDecl& r) const;
  // With an `order`, every dimension the judge scores is in one of its steps, and an N/A
  // rule reads only dimensions of earlier steps (those of its own step are scored with it).
  void order_complete(const ast::RubricDecl& r, const std::set<std::string>& ordered) const;
  void dim_scale_range(const ast::RubricDecl& r, const ast::DimDecl& d, double& lo, double& hi) const;
  // Whether `e` names `name` anywhere (a dimension read by a condition).
  static bool source_mentions(const ast::Expr& e, const std::string& name);
  void flag(const ast::FlagDecl& f) const;
  void pairing(const ast::Pairing& p) const;
  // `by`, `pairs`, `within`: factors, model, arm, seed or seed fields.
  void grouping(const ast::Ident& id) const;
  void grouping_expr(const ast::Expr& e) const;
  void contrast(const ast::ContrastDecl& c) const;
  void dim_arg(const ast::Expr& e) const;
  void level_of(const std::string& factor_name, const ast::Expr& e) const;
  void analysis(const ast::AnalysisDecl& a) const;
  void option(const ast::AnalysisDecl& a, const ast::AnalysisOption& o) const;
  // `raters a, b, c` (or `raters a vs b`): at least two distinct judges or panels, each
  // applying a rubric that has every dimension the analysis names.
  void raters(const ast::AnalysisDecl& a, const ast::AnalysisOption& o) const;
  static std::string name_of_expr(const ast::Expr& e);
  // corrected_options.cpp: a `corrected` analysis's judge (the `judge` option, else the
  // analyses' rater) scores every dimension it corrects; its other options name a judge,
  // people, declared contrasts and unit flags, a certification rule and a method.
  void corrected_judge(const ast::AnalysisDecl& a) const;
  void corrected_option(const ast::AnalysisOption& o) const;
  // invariance_options.cpp: an `invariance` analysis's required options and judge (one
  // judge, giving every dimension compared), and its own options.
  void invariance_analysis(const ast::AnalysisDecl& a) const;
  void invariance_option(const ast::AnalysisDecl& a, const ast::AnalysisOption& o) const;
  void same_scale(const ast::RubricDecl& own, const ast::RubricDecl& other, const SourceRange& at) const;
  static const ast::AnalysisOption* find(const ast::AnalysisDecl& a, const std::string& key);
  void report(const ast::ReportDecl& r) const;

  const Spec& spec_;
  Diagnostics& diags_;
  std::set<std::string> dims_, factors_, levels_, seed_fields_, models_, arms_;
};

}  // namespace mirac::check_detail
