// spec.hpp: a checked spec. Names are resolved, data files are loaded and mapped, and
// every piece the plan needs is indexed. Built by check() from the parsed modules.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/model/ast.hpp"
#include "interpreter/model/data.hpp"

namespace mirac {

struct Factor {
  std::string name;
  std::vector<ast::Level> levels;
  SourceRange range;
  /// Index of a level by name, or -1.
  int level_index(const std::string& level) const;
  std::vector<std::string> level_names() const;
};

/// A seed field is plain (`category`) or indexed by the levels of one factor (`question.zh`).
struct SeedFieldInfo {
  std::string name;
  int index_factor = -1;
  SourceRange range;
};

struct Seed {
  std::string id;
  /// Field values; an indexed field `question` is stored per level as "question.zh".
  std::map<std::string, std::string> fields;
  /// Every column of the seed's data row, unmapped (placeholders may name them).
  nlohmann::ordered_json raw = nlohmann::ordered_json::object();
  SourceRange range;
};

/// The texts of one factor's levels, per level of an indexing factor (usually language).
struct TextTable {
  int factor = -1;        ///< -1 for a text keyed by factors (`name`, `by`)
  int index_factor = -1;  ///< -1: one text for every cell
  /// texts[level][index_level]; an expression (a string template, usually). For a keyed
  /// text, `level` is the cell of the `by` factors, the last factor varying fastest.
  std::vector<std::vector<std::optional<ast::Expr>>> texts;
  std::string name;     ///< a keyed text's name (`text name by gender * ethnicity`)
  std::vector<int> by;  ///< a keyed text's factors
};

/// The whole-number range a rubric dimension is scored on.
struct ScoreScale {
  double lo = 1, hi = 5;
  bool operator==(const ScoreScale&) const = default;
};
/// The scale of `rubric`'s dimension `dim`: the dimension's own `scale`, else the rubric's,
/// else 1..5 (also for a dimension the rubric does not have).
ScoreScale dim_scale(const ast::RubricDecl& rubric, const std::string& dim);
/// Whether some dimension of `rubric` declares a scale of its own that differs from the rubric's.
bool has_dim_scales(const ast::RubricDecl& rubric);

/// The rewrites of one seed field over the cells of some factors.
struct Variant {
  std::string field;
  std::vector<int> by;  ///< factor indices
  /// (seed id, cell key "zh.high.formal") -> text
  std::map<std::pair<std::string, std::string>, std::string> texts;
  /// cell key -> instruction per level of the seed field's index factor (or one for all)
  std::map<std::string, std::vector<std::string>> instructions;
  std::optional<ast::RewriterSpec> rewriter;
  SourceRange range;
};

/// What a model's calls cost: USD per million input and output tokens.
struct Price {
  double input = 0;
  double output = 0;
  std::string from;  ///< where it was declared, for people: "prices openai in stdlib/providers.audit", "model gpt"
};

struct Provider {
  std::string name;
  std::string protocol = "openai_chat";
  std::string base_url;
  std::string key_env;
  nlohmann::json settings = nlohmann::json::object();  ///< rpm, tpm, concurrency...
  /// List prices by model string, from every `prices NAME { ... }` (the spec's own win
  /// over those of its modules, which win over the stdlib's).
  std::map<std::string, Price> prices;
  SourceRange range;
  /// `base_url ["http://a:8080/v1", "http://b:8080/v1"]`: several endpoints serving the same
  /// models, requests spread between them (docs/providers.md); `base_url` is the first.
  std::vector<std::string> endpoints = {};
};

struct Model {
  std::string name;
  std::string provider;
  std::string model;  ///< model string sent to the API
  nlohmann::json params = nlohmann::json::object();  ///< generation settings; never `price`
  /// The model's own `price { ... }`, else its provider's table entry for the model
  /// string; none when neither has one.
  std::optional<Price> price;
  SourceRange range;
  /// The model's `groups { family "GPT" }`: a value per grouping name, which `by family`
  /// reads like a factor (the paper's GPT-family vs non-GPT); not part of any request.
  std::map<std::string, std::string> groups;
  /// `batch true`: its requests go through the provider's batch API (half the price, within 24 h).
  bool batch = false;
};

struct Arm {
  std::string name;
  std::optional<std::string> system;  ///< none, or the system prompt text
  std::string system_source;          ///< "none", "inline" or the file path
  SourceRange range;
};

struct Judge {
  std::string name;
  std::string provider;
  std::string model;
  std::string rubric;
  nlohmann::json params = nlohmann::json::object();  ///< never `rubric` or `price`
  std::optional<Price> price;  ///< resolved as for Model: judge calls are paid calls too
  SourceRange range;
  bool batch = false;  ///< `batch true`, as for Model
};

/// Several judges' scores as one rater: `panel NAME = median(j1, j2, ...)`.
struct Panel {
  std::string name;
  std::string aggregate;    ///< mean or median
  std::vector<int> judges;  ///< indices into Spec::judges
  std::string rubric;       ///< the rubric every member applies
  SourceRange range;
};

struct Spec {
  std::string name;
  std::string title;
  std::filesystem::path spec_path;
  std::filesystem::path data_root;
  /// The data roots of the files of extending specs (MergedSpec::data_roots): the data a
  /// declaration of such a file names is found there, not under `data_root`.
  std::map<FileId, std::filesystem::path> data_roots;
  std::vector<Factor> factors;
  std::vector<int> design;  ///< factor indices, crossed in this order (first varies slowest)
  /// Answers asked for each prompt, model and arm (the header's `answers`, or `--answers`):
  /// that many distinct requests, each stored, judged and analysed (issue 28).
  int answers = 1;
  std::vector<SeedFieldInfo> seed_fields;
  std::vector<Seed> seeds;
  /// The seed table (or a file joined to it) could not be read: its fields are declared
  /// from the mappings, and checks that need its rows (a checklist's or a lock's seed) stay
  /// quiet, so that one missing file is one error, not one per seed.
  bool seeds_unread = false;
  std::map<std::string, nlohmann::ordered_json> checklists;  ///< seed id -> fields
  std::vector<std::string> checklist_fields;
  std::vector<Variant> variants;
  std::vector<TextTable> texts;
  std::optional<ast::PromptDecl> prompt;
  std::map<std::string, Provider> providers;
  std::vector<Model> models;
  std::vector<Arm> arms;
  std::vector<Judge> judges;
  std::vector<Panel> panels;
  /// The rater whose scores the analyses use (the header's `scores`, else the first
  /// judge): a judge's or a panel's name; empty without judges.
  std::string scores_rater;
  std::vector<ast::RubricDecl> rubrics;
  std::vector<ast::FlagDecl> flags;
  std::vector<ast::ContrastDecl> contrasts;
  std::vector<ast::AnalysisDecl> analyses;
  std::vector<ast::ReportDecl> reports;
  /// The declared truth simulated audits draw scores from (`simulate { ... }`), if any.
  std::optional<ast::SimulateDecl> simulate;
  /// (path, sha256) of every file read: spec, modules and data, for the reproducibility manifest.
  std::vector<std::pair<std::string, std::string>> inputs;

  /// Where the data file `rel`, named at `where`, is: relative to the data root of the file
  /// that names it (an absolute path as it is).
  std::filesystem::path data_path(const SourceRange& where, const std::string& rel) const;
  int factor_index(const std::string& name) const;
  const Seed* find_seed(const std::string& id) const;
  const ast::RubricDecl* find_rubric(const std::string& name) const;
  int judge_index(const std::string& name) const;  ///< -1 when none
  /// Whether some model declares the grouping `name` (`groups { name "..." }`).
  bool is_model_group(const std::string& name) const;
  const Panel* find_panel(const std::string& name) const;
  /// The rubric the analyses' scores follow: that of `scores_rater`, else the first rubric.
  const ast::RubricDecl* scored_rubric() const;
  const TextTable* text_for(int factor) const;
  /// The text keyed by factors named `name`, or null.
  const TextTable* keyed_text(const std::string& name) const;
  const Variant* variant_for(const std::string& field) const;
};

/// A rater as an option names it: a judge or panel (`gpt_judge`), `human`, or `human.NAME`;
/// "" for any other expression.
std::string rater_name(const ast::Expr& e);
/// Whether `rater` names people: `human` (the adjudicated value where there is one, else the
/// median of the annotators) or `human.NAME` (one annotator).
bool is_human_rater(const std::string& rater);

}  // namespace mirac
