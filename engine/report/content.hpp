// content.hpp: what one report item (`table means(D3) { by model }`, `figure contrasts(...)`)
// becomes: blocks of the document, built from results.json. Shared by the files that
// build each kind of content (means, contrasts, analyses, flags).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/model/spec.hpp"
#include "runtime/report/document.hpp"

namespace mirac::report {

using Json = nlohmann::ordered_json;

/// One item of a `report` block, with its options read; the default report (a spec
/// without one) is built from the same items.
struct Item {
  std::string kind;     ///< section, text, table, figure
  /// `table3` of `table table3 = ...`: the HTML anchor of the item's section or first table,
  /// and the file name of its figures (figures/table3.vl.json); "": unnamed.
  std::string name;
  std::string content;  ///< means, bars, contrasts, analysis, flags, seeds (tables and figures)
  std::vector<std::string> args;
  std::vector<std::string> by;  ///< the `by` option's variables; empty: the content's default
  const ast::Expr* where = nullptr;  ///< the `where` option, pointing into the spec
  std::string title;  ///< the `title` option, or the text of a section or text item
  /// Flags tables: `delta D3` (the mean difference a - b of a pair flag's pairs) and
  /// `split D3` (its flagged pairs by the side that scores worse), for every pair flag of
  /// the item, or for one (`split LANG_FLAG: D3`): (flag or "", dimension).
  std::vector<std::pair<std::string, std::string>> delta, split;
  /// Coefficients tables: `terms language, hls, language * hls`, each the variables of one
  /// term (in any order); empty: every term.
  std::vector<std::vector<std::string>> terms;
};

struct Context {
  const Spec& spec;
  const Json& results;
};

/// Blocks for one table or figure item. Never throws for missing or malformed data: what
/// cannot be shown becomes a Note in place.
void means_item(const Context& ctx, const Item& item, std::vector<Block>& out);
void contrasts_item(const Context& ctx, const Item& item, std::vector<Block>& out);
void analyses_item(const Context& ctx, const Item& item, std::vector<Block>& out);
void flags_item(const Context& ctx, const Item& item, std::vector<Block>& out);
/// `table coefficients(A, B)`: lmm analyses side by side, as the paper's Tables 4 and 17.
void coefficients_item(const Context& ctx, const Item& item, std::vector<Block>& out);
/// `table deltas(A)` and `figure deltas(A)`: a paired analysis's mean differences by group
/// and dimension, as the paper's Table 18 and Figure 5.
void deltas_item(const Context& ctx, const Item& item, std::vector<Block>& out);
/// `seeds(category)`: how many seeds have each value of a seed field (seeds.cpp).
void seeds_item(const Context& ctx, const Item& item, std::vector<Block>& out);
/// An agreement analysis's table (agreement.cpp; analyses_item calls it).
void agreement_table(const Item& item, const Json& analysis, std::vector<Block>& out);
/// A spearman analysis (spearman.cpp): its table of rho per dimension, or as a figure the
/// groups' ranks on both sides, one figure per dimension.
void spearman_analysis(const Context& ctx, const Item& item, const Json& analysis, std::vector<Block>& out);
/// A clmm analysis (clmm.cpp): coefficients on the log-odds scale, with what their sign
/// means for the rubric, and the thresholds. `where` is the analysis's " where ..." or "".
void clmm_analysis(const Context& ctx, const Item& item, const Json& analysis, const std::string& where,
                   std::vector<Block>& out);
/// A criteria analysis's tables (criteria.cpp): the elements most dropped or least met.
void criteria_table(const Item& item, const Json& analysis, std::vector<Block>& out);
/// A corrected analysis's table (corrected.cpp): judge-alone and corrected figures side by
/// side, with people's sample size and the certification.
void corrected_table(const Context& ctx, const Item& item, const Json& analysis, std::vector<Block>& out);
void invariance_table(const Context& ctx, const Item& item, const Json& analysis, std::vector<Block>& out);

/// An analysis that waits for people's scores (results.json "missing_scores"): an empty
/// table in its place that says so and how to add them (empty_tables.cpp). False, and
/// nothing added, for any other analysis.
bool missing_people_scores(const Item& item, const Json& analysis, std::vector<Block>& out);
/// A spearman analysis without the external values it correlates with (its file could not
/// be read, or it holds values for fewer than 3 of the audit's groups on every dimension):
/// an empty table in its place that says what the file must hold. False otherwise.
bool missing_external_data(const Context& ctx, const Item& item, const Json& analysis, std::vector<Block>& out);
/// What a spearman analysis's external file must hold: its name, one row per `by` group,
/// and its columns as the spec's `against` maps them.
std::string external_file_needs(const Spec& spec, const Json& analysis);

/// The notes and tables ahead of the items about the answers behind them (answers.cpp):
/// unscored ones (results.json `coverage`), marked ones (`answers_marked`).
void answers_blocks(const Spec& spec, const Json& results, std::vector<Block>& out);

// --- reading results.json defensively: every accessor accepts any JSON value --------------

/// `j[key]` when `j` is an object holding `key`, else nullptr.
const Json* member(const Json* j, const std::string& key);
/// The entry of the list `results[list]` whose "name" is `name`, else nullptr.
const Json* named_entry(const Json& results, const std::string& list, const std::string& name);
/// A number (null, missing or not a number: none).
std::optional<double> number(const Json* j);
/// A string as is, a number or boolean as text, else "".
std::string text(const Json* j);
/// The whole number `j[key]` for a table cell (numbers.hpp's `count`).
std::string count_of(const Json* j, const char* key);
/// A group of results.json by its `by` values, as "mini / high"; "all" without any.
std::string group_label(const Json& group, const std::vector<std::string>& by);

// --- shared pieces ----------------------------------------------------------------------

/// `expr` as written in the spec, for captions ("arm == baseline").
std::string expr_text(const ast::Expr& expr);
/// " where arm == baseline", or "" without a `where`.
std::string where_suffix(const Item& item);
/// A factor level as the spec labels it: "Chinese (zh)"; the name alone when it has no
/// label, and `level` as given when `factor` is not a factor of the spec.
std::string level_label(const Spec& spec, const std::string& factor, const std::string& level);
/// An lmm term as people read it: "language=zh:hls=low" (results.json's name of the
/// design-matrix column) becomes "language = Chinese (zh) × hls = low health literacy
/// (low)"; other variables (model, a seed field) read "model = local".
std::string term_label(const Spec& spec, const std::string& term);
/// A group of an analysis's `groups` list by its `by` variables (results.json's list of
/// names): "gpt / baseline"; "all" without any.
std::string group_values_label(const Json& group, const Json* by);
/// "model × arm" for a list of variables.
std::string join_by(const std::vector<std::string>& by);

/// Entries of a by-model-and-arm list (means, flag tallies) merged by some of model and
/// arm: results.json has nothing finer, so other variables cannot group them.
struct ModelArmGroup {
  std::vector<std::string> values;       ///< one per grouping variable: names ("zh.low.colloquial")
  std::vector<std::string> labels;       ///< the same as people read them ("Chinese, low health literacy, colloquial")
  std::vector<const Json*> entries;      ///< the merged entries, in results.json order
};
struct ModelArmGrouping {
  std::vector<std::string> by;      ///< the variables used (model and/or arm)
  std::vector<ModelArmGroup> groups;  ///< in the spec's order of models and arms
  std::vector<std::string> notes;   ///< what could not be honoured, for Notes
  bool failed = false;              ///< the `where` cannot be applied: show nothing
};
/// With `cells`, `list` is results.json's `cell_means` (entries carry a `cell` object of
/// factor levels): `by` may also name factors and `cell` (the factors a variant rewrites
/// by, the user-side cell, else the design's), and `where` may read factors.
ModelArmGrouping group_by_model_arm(const Context& ctx, const Item& item, const Json* list,
                                    const std::vector<std::string>& default_by, bool cells = false);

/// The factors of the user-side cell that `by cell` groups by: those a variant rewrites
/// by, else the design's.
std::vector<int> cell_factors(const Spec& spec);

// --- the answers behind a number, as `mirac view`'s answer list asks for them ------------
// (answer_links.cpp; the names are those of engine/view/query.cpp's filters)

/// Whether mirac view reads `name` as one of its own parameters, so that a factor of that
/// name cannot be filtered by there (its groups get no links).
bool view_reserved(const std::string& name);
/// Query parameters (name, value), in the order they are added.
using AnswerQuery = std::vector<std::pair<std::string, std::string>>;
/// Adds `name=value`; false when `q` already asks `name` for another value (no answer
/// can then match both).
bool add_param(AnswerQuery& q, const std::string& name, const std::string& value);
/// Adds a group's value of `var` (model, arm or a factor); false when `var` is not one the
/// view filters on, or the value contradicts `q`.
bool add_group_param(const Spec& spec, AnswerQuery& q, const std::string& var, const std::string& value);
/// The view's filters that say what `where` says: for no `where`, none; for a conjunction
/// (`and`) of `model == x`, `arm == x` and `factor == level`, one per term. Anything else
/// (an `or`, a `!=`, a score, a seed field) cannot be said, and gives nullopt.
std::optional<AnswerQuery> where_query(const Spec& spec, const ast::Expr* where);
/// "model=mini&arm=baseline", each name and value percent-encoded.
std::string query_string(const AnswerQuery& q);

/// The top of the scored rubric's scale (the bars' axis), if the spec declares one; with
/// `dims`, the highest top among those dimensions' own scales (a 1..10 one beside 1..5 ones).
std::optional<double> scale_top(const Spec& spec, const std::vector<std::string>& dims = {});
/// Whether the scored rubric's worst score is its lowest (`worst low`); else the highest.
bool worst_is_low(const Spec& spec);
/// A dimension as "D3 (Underinformative simplification)" when the rubric labels it.
std::string dimension_label(const Spec& spec, const std::string& dim);
/// Significance marks as the paper's tables: † p < .10, * p < .05, ** p < .01, *** p < .001.
std::string significance_marks(std::optional<double> p);
/// The legend of those marks, for a table's footnote.
extern const char* const kSignificanceLegend;

}  // namespace mirac::report
