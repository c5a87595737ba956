// ast.hpp: the syntax tree of an .audit file. Plain structs and std::variant; every node
// carries the source range it came from so that every later phase can point at it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "interpreter/model/source.hpp"

namespace mirac::ast {

/// Owning pointer with value semantics, so that nodes holding sub-expressions stay copyable.
template <typename T>
class Box {
 public:
  Box() = default;
  Box(T value) : ptr_(std::make_unique<T>(std::move(value))) {}
  Box(const Box& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  T& operator*() const { return *ptr_; }
  T* operator->() const { return ptr_.get(); }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  std::unique_ptr<T> ptr_;
};

struct Ident {
  std::string name;
  SourceRange range;
};

// ---------------------------------------------------------------------------------------
// Expressions

struct Expr;

struct NumberLit {
  double value = 0;
  std::string text;  ///< as written, so that fmt prints it back unchanged
};
struct StringLit {
  std::string value;  ///< escapes decoded; placeholders `{...}` are kept verbatim
  bool multiline = false;
  bool bare = false;  ///< a seed id written as a bare word (`seed s1`), printed back so by fmt
};
struct BoolLit {
  bool value = false;
};
struct NoneLit {};
struct Name {
  std::string name;
};
/// `base.field`
struct Field {
  Box<Expr> base;
  Ident field;
};
/// One item of a cell selection: `zh`, `language=zh`, or `each language` (every level of
/// the factor that the declaration names nowhere else; `level` is then the word `each`).
struct CellItem {
  std::optional<Ident> factor;
  Ident level;
  bool each = false;
};
/// `D3[zh, colloquial, low]`: a dimension's mean over the cells matching the levels.
struct CellSelect {
  Box<Expr> base;
  std::vector<CellItem> items;
};
/// `f(a, b)`
struct Call {
  Ident callee;
  std::vector<Expr> args;
};
struct Unary {
  std::string op;  ///< "-" or "not"
  Box<Expr> operand;
};
struct Binary {
  std::string op;  ///< + - * / ++ == != < <= > >= and or
  Box<Expr> lhs, rhs;
};
/// `if c then a else b`
struct IfExpr {
  Box<Expr> cond, then_branch, else_branch;
};
/// `[a, b, c]`
struct ListLit {
  std::vector<Expr> items;
};
/// `1..5`
struct RangeLit {
  Box<Expr> lo, hi;
};

struct Expr {
  std::variant<NumberLit, StringLit, BoolLit, NoneLit, Name, Field, CellSelect, Call, Unary,
               Binary, IfExpr, ListLit, RangeLit>
      node;
  SourceRange range;
};

// ---------------------------------------------------------------------------------------
// Shared pieces

/// `key value` or `key { ... }` inside a settings block (models, arms, judges, defaults,
/// providers, the audit header).
struct Property;
struct Block {
  std::vector<Property> props;
  SourceRange range;
};
struct Property {
  Ident key;
  std::optional<Expr> value;
  std::optional<Block> block;
  SourceRange range;
};

/// `csv("seedfinal.csv")`, `jsonl("...")`, `json("...")`
struct DataSource {
  Ident format;
  StringLit path;
  SourceRange range;
};

/// A column name, as an identifier or, for unusual names, a string.
struct Column {
  std::string name;
  SourceRange range;
};

// ---------------------------------------------------------------------------------------
// Declarations

struct AuditDecl {
  Ident name;
  Block settings;
  /// `audit mira_ja extends "../specs/mira.audit" { ... }`: the base spec, relative to this file.
  std::optional<StringLit> extends;
  SourceRange extends_range;
};

struct UseDecl {
  std::string module;  ///< "stdlib.providers" or a relative path "lib/x.audit"
  bool is_path = false;
  SourceRange module_range;
};

struct Level {
  Ident name;
  std::optional<StringLit> label;
  SourceRange range;
};
struct FactorDecl {
  Ident name;
  std::vector<Level> levels;
};

struct DesignDecl {
  std::vector<Ident> factors;
};

/// `question.zh` or `category`
struct FieldPath {
  Ident field;
  std::optional<Ident> level;
  SourceRange range;
};
struct ValueMapEntry {
  StringLit from, to;
  SourceRange range;
};
/// `category = category map { "a": "A" }`
struct FieldMapping {
  FieldPath target;
  Column column;
  std::vector<ValueMapEntry> value_map;
  bool has_map = false;
  SourceRange range;
};
struct FieldValue {
  FieldPath target;
  Expr value;
  SourceRange range;
};
struct InlineSeed {
  Expr id;  ///< a string or number literal
  std::vector<FieldValue> fields;
  SourceRange range;
};
/// `join csv("more.csv") on seed_id`: more columns for the same seeds, matched by id.
struct SeedJoin {
  DataSource source;
  Column key;
  SourceRange range;
};
struct SeedsDecl {
  std::optional<DataSource> source;
  std::vector<SeedJoin> joins;
  std::vector<FieldMapping> mappings;
  std::vector<InlineSeed> inline_seeds;
};

struct InlineChecklist {
  Expr seed;
  std::vector<FieldValue> fields;
  SourceRange range;
};
struct ChecklistsDecl {
  std::optional<DataSource> source;
  std::optional<Column> key;
  std::vector<InlineChecklist> inline_checklists;
};

/// `high.formal` (levels joined by dots, one per factor of the variant's `by`).
struct CellPath {
  std::vector<Ident> levels;
  SourceRange range;
};
/// Per-language texts: `{ zh "..." en "..." }` or a single expression for every language.
struct LangTexts {
  std::vector<std::pair<Ident, Expr>> by_level;
  std::optional<Expr> all;
  SourceRange range;
};
/// Text loaded from a JSON document: the object at `at`, then the key made from `key`.
struct JsonTable {
  DataSource source;
  StringLit at;
  StringLit key;
  SourceRange range;
};
struct VariantInstruction {
  CellPath cell;
  LangTexts texts;
};
struct VariantSeedTexts {
  Expr seed;
  std::vector<std::pair<CellPath, Expr>> texts;
  SourceRange range;
};
struct LockSpec {
  DataSource source;
  std::vector<std::pair<Ident, Column>> columns;  ///< seed = seed_id, hls = HLS, text = ...
  SourceRange range;
};
struct RewriterSpec {
  Ident preset;
  StringLit model;
  std::optional<Block> settings;
  SourceRange range;
};
struct VariantDecl {
  Ident field;
  std::vector<Ident> by;
  std::optional<JsonTable> instructions_from;
  std::vector<VariantInstruction> instructions;
  std::optional<RewriterSpec> rewriter;
  std::vector<LockSpec> locks;  ///< several lock files add up (e.g. one per added language)
  std::vector<VariantSeedTexts> seed_texts;
};

/// `C from jsonl("f") where cond select expr`: one text per language, derived from rows.
struct DerivedText {
  DataSource source;
  Expr where;
  Expr select;
  SourceRange range;
};
struct TextLevel {
  Ident level;
  std::optional<LangTexts> texts;
  std::optional<DerivedText> derived;
  SourceRange range;
};
/// `female.white "Emily"` in a text keyed by factors: the text of one cell of the `by` factors.
struct TextCell {
  CellPath cell;
  LangTexts texts;
};
struct TextDecl {
  /// The factor whose levels get texts; for a text keyed by factors (`text name by gender *
  /// ethnicity { ... }`), the new name the texts are read by (`name.text`).
  Ident factor;
  std::optional<JsonTable> from;
  std::vector<TextLevel> levels;
  std::vector<Ident> by;        ///< the factors of a keyed text; empty for a factor's texts
  std::vector<TextCell> cells;  ///< a keyed text's entries
  bool keyed() const { return !by.empty(); }
};

struct PromptDecl {
  Expr id;
  Expr text;
};

struct ProviderDecl {
  Ident name;
  Block settings;
};

/// One row of a price table: `"gpt-5.4" { input 2.5 output 15 }` (USD per million tokens).
struct PriceEntry {
  StringLit model;
  SourceRange model_range;
  Block price;
  SourceRange range;
};
/// `prices openai { ... }`: list prices of one provider's models, keyed by model string.
/// A declaration of its own (not a provider setting) so that a spec can add to or correct
/// the table of a provider it takes from a module.
struct PricesDecl {
  Ident provider;
  std::vector<PriceEntry> entries;
};

struct ModelDecl {
  Ident name;
  Ident preset;
  StringLit model;
  std::optional<Block> settings;
};

struct DefaultsDecl {
  Block settings;
};

struct ArmDecl {
  Ident name;
  Block settings;
};

struct JudgeDecl {
  Ident name;
  Ident preset;
  StringLit model;
  std::optional<Block> settings;
};

/// `panel NAME = median(j1, j2, ...)`: the judges' scores combined into one rater.
struct PanelDecl {
  Ident name;
  Ident aggregate;  ///< mean or median
  std::vector<Ident> judges;
};

struct Anchor {
  Expr score;
  StringLit label;
  std::optional<StringLit> text;
  SourceRange range;
};
/// `3 if met >= 0.5` (or `5 otherwise`): the score of a dimension derived from the share of
/// the seed's criteria an answer meets; the first band that holds gives the score.
struct Band {
  Expr score;
  std::optional<Expr> at_least;  ///< empty: `otherwise`
  SourceRange range;
};
struct DimDecl {
  Ident name;
  StringLit title;
  /// `scale 1..10` inside the dimension: its own range (a RangeLit); else the rubric's.
  std::optional<Expr> scale;
  std::optional<StringLit> description;
  std::vector<Anchor> anchors;
  std::optional<Expr> na_when;
  std::optional<Expr> against;
  std::vector<StringLit> notes;
  /// `scored by human`: people score it, the judge is not asked (judge, both: the judge
  /// scores it, people may too; the default).
  std::optional<Ident> scored_by;
  /// `from criteria { 1 if met >= 0.9 ... 5 otherwise }`: derived from the rubric's
  /// criteria, so the judge is not asked for it.
  std::vector<Band> bands;
  SourceRange bands_range;
  SourceRange range;
  bool human_only() const { return scored_by && scored_by->name == "human"; }
  bool derived() const { return !bands.empty(); }
  /// Whether the judge gives this dimension's score in its reply.
  bool asked_of_judge() const { return !human_only() && !derived(); }
};
/// `criteria checklist.required_elements { describe "..." per element }`: the judge grades
/// each element of a seed's checklist list as met or not met, with a short quote.
struct CriteriaDecl {
  Expr source;                           ///< checklist.FIELD, a list of texts per seed
  std::optional<StringLit> description;  ///< what "met" means
  std::optional<Ident> per;              ///< `answer` (the default: one reply grades all) or `element`
  SourceRange range;
  bool per_element() const { return per && per->name == "element"; }
};
struct RubricDecl {
  Ident name;
  std::optional<Expr> scale;  ///< a RangeLit
  std::optional<Ident> worst;  ///< `high` or `low`
  std::vector<StringLit> instructions;
  std::vector<DimDecl> dims;
  std::optional<CriteriaDecl> criteria;
  std::vector<std::vector<Ident>> order;  ///< steps separated by `then`
  SourceRange order_range;
};

struct Pairing {
  Ident factor;
  Ident a, b;
  SourceRange range;
  /// `pair(language: each vs en)`: that side is every level but the other side's (the
  /// side's name is then the word `each`); one pairing per level.
  bool each_a = false, each_b = false;
};
struct FlagDecl {
  Ident name;
  std::vector<Pairing> pairings;  ///< empty: a unit flag on one answer
  Expr when;
};

struct ContrastDecl {
  Ident name;
  Expr value;
  std::vector<Ident> by;
  /// `where arm == baseline`: the answers the cell means are taken over (default: all).
  std::optional<Expr> where;
  /// Set by the checker on each contrast a ranging one (`D3[each language, ...]`) stands
  /// for: the expression as written with its level in place of `each F`, as results show it.
  std::string definition = {};
  /// Set alongside: the ranging contrast's own name (`DTI_lang` for `DTI_lang_ja`), so a
  /// user can ask for the whole family by the name they wrote.
  std::string family = {};
};

/// One term of an lmm formula: `a`, `a:b`, `a*b` or `(1 | g)`.
struct FormulaTerm {
  std::vector<Ident> vars;
  bool crossed = false;         ///< written with `*`
  std::optional<Ident> group;  ///< random intercept `(1 | group)`
  SourceRange range;
};
struct Formula {
  Ident response;
  std::vector<FormulaTerm> terms;
  SourceRange range;
};
struct OptionValue {
  std::optional<Ident> label;  ///< `condition:` in `compare condition: A vs B`
  Expr value;
  std::optional<Expr> versus;  ///< `A vs B`
  SourceRange range;
};
struct AnalysisOption {
  Ident key;
  std::vector<OptionValue> values;
  std::optional<std::vector<std::pair<Ident, Column>>> columns;  ///< `against csv(..) { a = col }`
  SourceRange range;
};
struct AnalysisDecl {
  Ident name;
  Ident kind;  ///< lmm, wilcoxon, paired, spearman
  std::optional<Formula> formula;
  std::vector<Expr> args;
  std::vector<AnalysisOption> options;
};

/// What an item of a report does: it is an item (`table table3 = means(D3)`); or, in a
/// variant's `extend report NAME { ... }`, it replaces the base's item of its name in its
/// place (`override table table3 = ...`), or drops it (`remove table3`: only `name` set).
enum class ItemChange { add, override_, remove };

struct ReportItem {
  Ident kind;  ///< section, table, figure, text; the word `remove` for a removal
  std::optional<Ident> name;  ///< `table3` in `table table3 = means(D3)`; unnamed items are valid
  std::optional<Expr> content;  ///< `means(D3, Q2)` or a string for text
  std::vector<AnalysisOption> options;
  SourceRange range;
  ItemChange change = ItemChange::add;
};
struct ReportDecl {
  Ident name;
  std::vector<ReportItem> items;
};

/// `effect hls == low: 0.117`: added to a dimension's mean where the condition holds.
struct SimEffect {
  Expr when;
  Expr value;
  SourceRange range;
  /// A bias's `under RUBRIC`: it applies only when the judge scores with that rubric
  /// (an invariance check's `rubric`); without it, whatever rubric the judge applies.
  std::optional<Ident> rubric = std::nullopt;
};
/// `random seed 0.64` or `random seed.category 0.2`: a normal random intercept with this
/// SD, one draw per seed (or per value of the seed field).
struct SimRandom {
  FieldPath group;
  Expr sd;
  SourceRange range;
};
/// The declared truth of one rubric dimension.
struct SimDim {
  Ident dim;
  std::optional<Expr> intercept;
  std::vector<SimEffect> effects;
  /// `bias language == zh: -0.3`: what a judge adds to the score of text where the condition
  /// holds, read against the cell of the text it is shown (an answer translated into en is
  /// judged as en text): the judge's own part of a factor's effect (docs/simulation.md).
  std::vector<SimEffect> biases;
  std::vector<SimRandom> randoms;
  /// SD of the noise beyond the effects and random intercepts: per answer, or with `answer`
  /// declared, the part a prompt's answers share.
  std::optional<Expr> residual;
  /// SD of the noise between answers to the very same prompt (`answer 0.3`; issue 28).
  std::optional<Expr> answer;
  std::optional<Expr> na_rate;   ///< share of answers drawn N/A, besides `na when`
  std::optional<Expr> na_when;   ///< answers N/A where this holds (the rubric's own rule applies too)
  std::optional<Expr> round;     ///< round to whole scores (default true)
  std::optional<Expr> clip;      ///< clip to the rubric's scale (default true)
  SourceRange range;
};
/// `simulate { seed 7 dim D3 { ... } }`: the scores a simulated audit draws (docs/simulation.md).
struct SimulateDecl {
  std::optional<Expr> seed;
  std::vector<SimDim> dims;
};

/// `remove model llama`, `remove simulate`: drops a declaration of the base spec.
struct RemoveDecl {
  Ident kind;  ///< a declaration keyword: model, flag, contrast, ...
  std::optional<Ident> name;
};

/// What a declaration does in a spec that extends another (docs/language.md, "Variants").
/// `extend` declarations hold only what they add: a SeedsDecl without a source, a
/// VariantDecl without `by`, a ModelDecl or JudgeDecl without a preset and model string, an
/// AnalysisDecl without a kind.
enum class Change { declare, extend, override_ };

struct Decl {
  std::variant<AuditDecl, UseDecl, FactorDecl, DesignDecl, SeedsDecl, ChecklistsDecl,
               VariantDecl, TextDecl, PromptDecl, ProviderDecl, ModelDecl, DefaultsDecl,
               ArmDecl, JudgeDecl, RubricDecl, FlagDecl, ContrastDecl, AnalysisDecl, ReportDecl, PricesDecl,
               PanelDecl, SimulateDecl, RemoveDecl>
      node;
  SourceRange range;
  FileId file = 0;
  Change change = Change::declare;
  /// Set by the merge of an extending spec on a declaration that an `extend` or `override`
  /// made what it is: which of the two, and where that change is written.
  Change changed_by = Change::declare;
  SourceRange change_range;
};

/// One parsed file: its declarations in source order and its comments (kept for fmt).
struct Comment {
  std::string text;  ///< including `//` or `/* */`
  SourceRange range;
};
struct Module {
  FileId file = 0;
  std::vector<Decl> decls;
  std::vector<Comment> comments;
};

}  // namespace mirac::ast
