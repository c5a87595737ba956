// context.hpp: what every part of `mirac analyze` shares: the spec, the scores, the
// options, where problems go, and the output (results.json plus CSV tables).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/scores/row_variables.hpp"
#include "interpreter/scores/scores.hpp"

namespace mirac::analyze {

struct AnalyzeOptions {
  std::size_t resamples = 2000;  ///< cluster-bootstrap resamples per contrast interval
  std::uint64_t seed = 20260101;  ///< bootstrap seed; each interval restarts from it
  /// The scores cover only part of the plan (a pilot with --limit or --only, a model that
  /// was not found, an unfinished run): an analysis the subset cannot support (a factor
  /// level with no scores, say) is skipped with its reason instead of being an error.
  bool partial = false;
};

/// One CSV file of the output directory.
struct Table {
  std::string name;  ///< file name without ".csv"
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct Output {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  std::vector<Table> tables;
  /// The `# ` lines every CSV table opens with: where its numbers come from (csv_provenance()).
  std::string csv_preamble;
};

struct Context {
  const Spec& spec;
  const ScoreTable& scores;
  AnalyzeOptions options;
  SourceManager& sources;
  Diagnostics& diags;
};

/// An analysis the scores cannot support, for `reason`: on a partial table a warning and an
/// entry marked skipped, otherwise an error at the analysis. Either way `entry` gets "error".
void report_unsupported(const Context& ctx, const ast::AnalysisDecl& a, const std::string& reason,
                        nlohmann::ordered_json& entry);

/// An analysis that cannot run without `rater`'s scores (`why`, which becomes `entry`'s
/// "error"). People's scores (rater `human` or `human.NAME`) come after the run, so their
/// absence is no problem of it: `entry` gets "missing_scores" and add_analyses says once,
/// for every such analysis, what that means and how to add them. Any other rater is warned
/// about at the analysis.
void report_missing_scores(const Context& ctx, const ast::AnalysisDecl& a, const std::string& rater, const std::string& why,
                           nlohmann::ordered_json& entry);

/// Warns that `count` of the analysis's intervals rest on fewer seeds than
/// stats::kSmallestVerifiedClusters (nothing when `count` is 0).
void warn_small_designs(const Context& ctx, const ast::AnalysisDecl& a, std::size_t count);

/// A number for a CSV cell: shortest round-trip form, NaN as an empty cell.
std::string csv_number(double x);
/// A number for JSON: NaN and infinities as null.
nlohmann::ordered_json json_number(double x);

/// Whether `variable` is something variable_value() (interpreter/scores/row_variables.hpp) knows.
bool is_variable(const Spec& spec, const std::string& variable);

/// Names in `by`-like option values: `model * language` and `model, arm` both give
/// {model, language} / {model, arm}.
std::vector<std::string> variables_of(const ast::Expr& e);

/// Indices of the rows where every `where` condition of `options` holds. Evaluation
/// problems are reported at the condition and the row is left out.
std::vector<std::size_t> filter_rows(const Context& ctx, const std::vector<ast::AnalysisOption>& options);

/// Indices of the rows where `condition` holds (a contrast's `where`). False, with the
/// problem reported at the condition, when it cannot be evaluated.
bool rows_where(const Context& ctx, const ast::Expr& condition, std::vector<std::size_t>& rows);

/// The option named `key`, or nullptr.
const ast::AnalysisOption* find_option(const std::vector<ast::AnalysisOption>& options, const std::string& key);

/// The spec text of a range, e.g. a pattern as written.
std::string source_text(const Context& ctx, SourceRange range);

/// The name an option value spells (`bh`, `language`), or "" if it is not a bare name.
std::string name_of(const ast::Expr& e);

}  // namespace mirac::analyze

namespace mirac::analyze {

/// Rows sharing the values of some grouping variables.
struct Group {
  std::vector<std::string> values;  ///< one per variable
  std::vector<std::size_t> rows;    ///< indices into ScoreTable::rows, in file order
};

/// Groups `rows` by `variables`, ordered as the spec declares levels, models, arms and seeds
/// (other variables bytewise). No variables: one group of every row.
std::vector<Group> group_rows(const Spec& spec, const ScoreTable& scores, const std::vector<std::size_t>& rows,
                              const std::vector<std::string>& variables);

/// `{"model": "gpt", "language": "zh"}` for a group.
nlohmann::ordered_json group_json(const std::vector<std::string>& variables, const Group& g);
/// "gpt/zh" for a group (CSV cells, labels).
std::string group_label(const Group& g);

}  // namespace mirac::analyze
