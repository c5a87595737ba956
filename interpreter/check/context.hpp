// context.hpp: what every part of the checker shares while `check()` runs (the spec being
// built, the diagnostics, the options, the sources and the declarations), passed by reference
// so that no part keeps state of its own between specs. Internal to interpreter/check/.
#pragma once

#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/check/check.hpp"

namespace mirac {

struct CheckContext {
  Spec& spec;
  Diagnostics& diags;
  const CheckOptions& options;
  SourceManager& sources;
  const std::vector<ast::Module>& modules;
  const std::vector<const ast::Decl*>& decls;  ///< every module's, in reading order
  FileId main_file;
  /// The header's `scores` setting, if any: checked with the judges and panels.
  const ast::Property* scores_setting = nullptr;
  /// The `defaults { ... }` settings, which every model starts from (never `price`).
  nlohmann::json defaults = nlohmann::json::object();
};

/// Which seeds the data of the seeds' joins and variants' texts covers, while they are bound
/// (seeds.cpp, variants.cpp). A language piloted on a few seeds has data for those alone:
/// with `--only seed=...` (options.seeds) the others are not checked; without it, a source
/// that lacks whole seeds for most of them is one gap, said once as a pilot, not an error a seed.
struct SeedCoverage {
  const std::optional<std::set<std::string>>& selected;
  struct Gap {
    std::string source;  ///< "'seeds_ja.csv'", "lock file 'rewrites_ja.jsonl'"
    SourceRange range;
    std::set<std::string> missing;  ///< seeds with none of the source's data
  };
  std::vector<Gap> gaps;
  /// Seeds the selection leaves out that lack data: they cannot be planned, so they are dropped.
  std::set<std::string> left_out;
  bool checks(const std::string& seed) const { return !selected || selected->count(seed) > 0; }
  bool lacks(const std::string& seed) const {
    return std::any_of(gaps.begin(), gaps.end(), [&](const Gap& g) { return g.missing.count(seed) > 0; });
  }
  /// Whether gaps are a pilot's rather than mistakes: no selection, some seeds complete, and
  /// more seeds without the data (all of it, or all of one slice, as a new language's cells)
  /// than with it.
  bool pilot_shaped(std::size_t complete, std::size_t missing) const {
    return !selected && complete > 0 && missing > complete;
  }
};
void bind_variants(Spec& spec, const std::vector<const ast::Decl*>& decls, SeedCoverage& coverage, SourceManager& sources,
                   Diagnostics& diags);

/// Every declaration of kind T, with the declaration around it.
template <typename T>
std::vector<std::pair<const ast::Decl*, const T*>> all_of(const std::vector<const ast::Decl*>& decls) {
  std::vector<std::pair<const ast::Decl*, const T*>> out;
  for (const auto* d : decls)
    if (const auto* n = std::get_if<T>(&d->node)) out.emplace_back(d, n);
  return out;
}

/// Reports a second declaration of the same name in one namespace.
class NameTable {
 public:
  NameTable(std::string what, Diagnostics& diags) : what_(std::move(what)), diags_(diags) {}
  bool add(const ast::Ident& id);
  std::vector<std::string> names() const;
  bool has(const std::string& n) const { return seen_.count(n) > 0; }

 private:
  std::string what_;
  Diagnostics& diags_;
  std::map<std::string, SourceRange> seen_;
};

// One function per kind of declaration, each in the file of its kind, called in this order
// by check() (check.cpp): a later kind reads what an earlier one put in the spec.
void check_header(CheckContext& cx);     // header.cpp: `audit NAME { ... }` and the data root
void check_factors(CheckContext& cx);    // factors.cpp: factors and the design
void check_providers(CheckContext& cx);  // providers.cpp
void check_prices(CheckContext& cx);     // prices.cpp: `prices NAME { ... }` tables
void check_defaults(CheckContext& cx);   // models.cpp: `defaults { ... }`
void check_models(CheckContext& cx);     // models.cpp
void check_arms(CheckContext& cx);       // arms.cpp
void check_rubrics(CheckContext& cx);    // rubrics.cpp
void check_judges(CheckContext& cx);     // judges.cpp
void check_panels(CheckContext& cx);     // raters.cpp: panels and the rater analyses use
void warn_prices_by_model_string(CheckContext& cx);  // prices.cpp
void check_flags(CheckContext& cx);      // analysis.cpp
void check_contrasts(CheckContext& cx);  // analysis.cpp
void check_analyses(CheckContext& cx);   // analysis.cpp
void check_reports(CheckContext& cx);    // report_items.cpp
void check_simulate_block(CheckContext& cx);  // simulate.cpp

// Shared by the kinds that take settings blocks (providers, defaults, models, judges).

/// A settings block as JSON: numbers, strings, booleans, lists and nested blocks; a
/// credential is reported and left out (settings.cpp).
nlohmann::json block_json(const ast::Block& block, Diagnostics& diags);
/// The provider `preset` of a model or judge exists; reported when not.
bool check_preset(const CheckContext& cx, const ast::Ident& preset);
/// `batch true|false` taken out of `params`: how the requests travel, not what they ask, so
/// not a parameter (settings.cpp). `who` is "model gpt" or "judge grader".
bool take_batch(CheckContext& cx, nlohmann::json& params, const std::optional<ast::Block>& settings,
                SourceRange fallback, const std::string& who);
/// Only a provider whose batches have a price (`batch_price`) has a batch API to send to.
void check_batch_api(CheckContext& cx, bool batch, const std::string& provider, SourceRange at,
                     const std::string& who);
/// A model's or judge's own price, else its provider's table price for the model string (prices.cpp).
std::optional<Price> resolve_price(const CheckContext& cx, const std::string& owner, const std::string& provider,
                                   const std::string& model, const std::optional<ast::Block>& settings);
/// The settings a request carries (temperature, max_tokens, top_p, seed, extra), each of
/// its type and range (generation.cpp); `owner` is "model gpt", "judge grader" or "defaults".
/// With the block's `provider`, temperature is held to what its protocol accepts (0 to 1 on
/// anthropic_messages); without one (defaults), to the widest range, 0 to 2.
void check_generation_settings(const ast::Block& block, const std::string& owner, Diagnostics& diags,
                               const Provider* provider = nullptr);
/// The defaults' temperature, for a model without its own, against the range of the model's
/// provider (generation.cpp).
void check_default_temperature(const CheckContext& cx, const ast::ModelDecl& m);

}  // namespace mirac
