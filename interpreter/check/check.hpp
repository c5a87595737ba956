// check.hpp: phase 2, resolve and check. Turns parsed modules into a Spec: loads and maps
// the data files, resolves every name, and reports every problem found (never throws for
// a problem in the spec or the data).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "interpreter/model/spec.hpp"

namespace mirac {

struct CheckOptions {
  std::optional<std::filesystem::path> data_root;  ///< --data DIR
  std::optional<std::filesystem::path> env_data_root;  ///< $MIRAC_DATA
  /// --offline: every model and judge is answered by the built-in `offline` provider.
  bool offline = false;
  /// --answers K: answers per prompt, model and arm, in place of the header's `answers`.
  std::optional<int> answers;
  /// `--only seed=a,b,c`: the seeds a pilot runs on. Only their data is checked, so a variant
  /// whose data covers only them passes; a selected seed without its data is an error, and the
  /// other seeds without data are left out of the plan. `seeds_said` names the selection.
  std::optional<std::set<std::string>> seeds;
  std::string seeds_said;
  /// A command that selects requests (--only, --sample, --limit) checks the analyses on the
  /// plan's selected requests itself (engine/selection.hpp), not on the whole plan.
  bool analyses_on_selection = false;
  /// Whether to check that each analysis can run on the plan's requests. Commands that only
  /// read answers (view, export, annotate) leave it to those that run or analyse: at ten
  /// times MIRA it is a third of compiling.
  bool check_analyses = true;
};

/// `data_roots`: the data roots of the files of extending specs (MergedSpec::data_roots);
/// the data of every other file is found from the spec's data root.
Spec check(const std::vector<ast::Module>& modules, const CheckOptions& options, SourceManager& sources,
           Diagnostics& diags, const std::map<FileId, std::filesystem::path>& data_roots = {});

// Parts of the checker, one file each (the parts that take a CheckContext are in context.hpp).
/// Seeds, checklists and variants; with `options.seeds`, only the selected seeds are kept.
void bind_seeds(Spec& spec, const std::vector<const ast::Decl*>& decls, const CheckOptions& options, SourceManager& sources,
                Diagnostics& diags);
void bind_texts(Spec& spec, const std::vector<const ast::Decl*>& decls, SourceManager& sources, Diagnostics& diags);
void check_analysis_blocks(const Spec& spec, Diagnostics& diags);
/// Reports every name of `condition` that a score row lacks (factors, levels, model, arm,
/// seed and checklist fields, dimensions). `no_scores` non-empty: reading a dimension is an
/// error too, and `no_scores` says why.
void check_row_condition(const Spec& spec, const ast::Expr& condition, const std::string& no_scores, Diagnostics& diags);
/// Every bare name `e` reads (not fields: `a.D1` reads `a`), with where it is read.
void names_read(const ast::Expr& e, std::vector<std::pair<std::string, SourceRange>>& out);
/// The `simulate` block: its dimensions, constants and conditions.
void check_simulate(const Spec& spec, Diagnostics& diags);
/// The data files analyses read (a spearman's `against csv(...)`): read now, with the
/// columns the analysis needs, so that a missing file stops the run before anything is paid.
void check_analysis_files(const Spec& spec, SourceManager& sources, Diagnostics& diags);
/// Contrasts and pair flags that range over levels (`D3[each language, formal, high]`,
/// `pair(language: each vs en)`): a contrast becomes one per level (named NAME_LEVEL, or NAME
/// when there is one level), a pairing one per level, and a report's reference to a ranging
/// contrast names every contrast it became.
void expand_ranges(Spec& spec, const SourceManager& sources, Diagnostics& diags);
/// The names of a report's items (one item per name), `override` and `remove` items outside a
/// variant's `extend report`, and placeholders in titles other than kCellsPlaceholder.
void check_report_items(const ast::ReportDecl& report, const SourceManager& sources, Diagnostics& diags);
/// `{cells}` in a report title or section heading: the report writes the number of user-side
/// cells there (engine/report/report.cpp), so a title stays true in a variant with more levels.
inline constexpr const char* kCellsPlaceholder = "cells";
/// Rubrics' `criteria` blocks and the dimensions derived from them.
void check_criteria(const Spec& spec, Diagnostics& diags);
/// Panels, and the rater the analyses use (`scores_setting`: the header's `scores`, if any).
void check_raters(Spec& spec, const std::vector<const ast::Decl*>& decls, const ast::Property* scores_setting,
                  Diagnostics& diags);
/// The `price` setting of a model's or judge's block, checked. `found` says whether there
/// was one at all (a malformed price is reported, and the table price is not used instead).
std::optional<Price> own_price(const std::optional<ast::Block>& settings, const std::string& owner, bool& found,
                               Diagnostics& diags);
/// Points every model and judge at the built-in `offline` provider (declaring it when the
/// spec does not use stdlib.providers): models become `sim-<model>`, judges `judge-<model>`.
void use_offline_provider(Spec& spec);
/// Notes under "'xx' is not a level of factor 'f'": the levels `factor` declares, and the
/// factor `level` does belong to, if another does; with `factor` -1 (a level of no factor),
/// every factor's levels (factors.cpp). For every message about an undeclared level, in the
/// spec or in a file it reads (a scores CSV), so that they all give the fix alike.
void note_declared_levels(const Spec& spec, int factor, const std::string& level, Diagnostics& diags);

/// Whether a setting holds a credential: a credential-like name (key, token, secret,
/// password, authorization, apiKey, ...) or a value shaped like a provider's key. Reported
/// to `diags` when given; the caller then drops the setting, so no key reaches a request.
bool holds_credential(const ast::Property& p, Diagnostics* diags);

}  // namespace mirac
