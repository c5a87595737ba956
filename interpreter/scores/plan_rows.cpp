// plan_rows.cpp: see plan_rows.hpp.
#include "interpreter/scores/plan_rows.hpp"

#include <algorithm>
#include <type_traits>

#include "interpreter/scores/row_scope.hpp"
#include "interpreter/scores/row_variables.hpp"

namespace mirac {

namespace {

using analyze::ScoreRow;

// A `where` read on a planned request: a score (or anything else the plan cannot know)
// makes it unknowable before the run.
struct ReadsScores {};

class PlanScope : public Scope {
 public:
  PlanScope(const Spec& spec, const analyze::ScoreTable& table, const ScoreRow& row, const std::set<std::string>& scores)
      : row_(spec, table, row), scores_(scores) {}
  std::optional<Value> name(const std::string& name) const override {
    if (scores_.count(name)) throw ReadsScores{};
    return row_.name(name);
  }
  std::optional<Value> field(const Value& base, const std::string& field) const override { return row_.field(base, field); }

 private:
  analyze::RowScope row_;
  const std::set<std::string>& scores_;
};

// What of a row a condition reads. A name the row scope resolves to a constant (a model's,
// an arm's or a level's own name) reads nothing; anything this does not recognise (a seed
// field, `seed`, a keyed text, a level's `.text`, a cell mean) reads the whole row.
struct RowReads {
  bool model = false, arm = false, whole = false;
  std::vector<bool> factors;
};

void add_reads(const Spec& spec, const ast::Expr& e, RowReads& reads) {
  std::visit(
      [&](const auto& node) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::Name>) {
          const std::string& n = node.name;
          if (int f = spec.factor_index(n); f >= 0) {
            reads.factors[static_cast<std::size_t>(f)] = true;
          } else if (n == "model") {
            reads.model = true;
          } else if (n == "arm") {
            reads.arm = true;
          } else {
            bool constant = false;
            for (const auto& m : spec.models) constant = constant || m.name == n;
            for (const auto& a : spec.arms) constant = constant || a.name == n;
            const bool special = n == "seed" || n == "checklist" || spec.keyed_text(n);
            if (!special)
              for (const auto& factor : spec.factors) constant = constant || factor.level_index(n) >= 0;
            if (!constant || special) reads.whole = true;
          }
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          add_reads(spec, *node.operand, reads);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          add_reads(spec, *node.lhs, reads);
          add_reads(spec, *node.rhs, reads);
        } else if constexpr (std::is_same_v<T, ast::IfExpr>) {
          add_reads(spec, *node.cond, reads);
          add_reads(spec, *node.then_branch, reads);
          add_reads(spec, *node.else_branch, reads);
        } else if constexpr (std::is_same_v<T, ast::ListLit>) {
          for (const auto& item : node.items) add_reads(spec, item, reads);
        } else if constexpr (std::is_same_v<T, ast::NumberLit> || std::is_same_v<T, ast::StringLit> ||
                             std::is_same_v<T, ast::BoolLit> || std::is_same_v<T, ast::NoneLit>) {
          // a literal reads nothing
        } else {
          reads.whole = true;  // fields, cell means, calls, ranges
        }
      },
      e.node);
}

}  // namespace

std::size_t CodeKeyHash::operator()(const CodeKey& key) const noexcept {
  std::size_t h = 1469598103934665603ull;
  for (std::uint32_t c : key) h = (h ^ c) * 1099511628211ull;
  return h;
}

PlanRows::PlanRows(const Spec& spec, const Plan& plan, const std::vector<std::size_t>* selected)
    : spec_(spec), plan_(plan) {
  seed_of_prompt_.reserve(plan.prompts.size());
  for (const auto& p : plan.prompts) {
    const Seed* seed = spec.find_seed(p.seed);
    seed_of_prompt_.push_back(seed ? static_cast<int>(seed - spec.seeds.data()) : -1);
  }
  auto add = [&](const RequestRow& r) {
    if (seed_of_prompt_[r.prompt] < 0) return;
    rows_.push_back(Row{static_cast<std::uint32_t>(r.prompt), r.model, r.arm, r.answer});
  };
  if (selected) {
    rows_.reserve(selected->size());
    for (std::size_t i : *selected) add(plan.requests[i]);
  } else {
    rows_.reserve(plan.requests.size());
    for (const auto& r : plan.requests) add(r);
  }
}

ScoreRow PlanRows::score_row(const Row& row) const {
  ScoreRow out;
  out.seed = seed_of_prompt_[row.prompt];
  out.model = row.model;
  out.arm = row.arm;
  out.levels = plan_.prompts[row.prompt].levels;
  out.answer = row.answer;
  return out;
}

const PlanColumn& PlanRows::column(const std::string& variable) {
  auto [it, inserted] = columns_.try_emplace(variable);
  PlanColumn& c = it->second;
  if (!inserted) return c;
  // What the value depends on, in variable_value's order: a factor (the prompt), the model's
  // name or a grouping every model has (the model), the arm, the answer, or else the prompt
  // (the seed, a seed field, the cell). Each value of that is read once, on its first row.
  const bool factor = spec_.factor_index(variable) >= 0;
  const auto has_group = [&](const Model& m) { return m.groups.count(variable) > 0; };
  const bool by_model = !factor && (variable == "model" || (!spec_.models.empty() && std::all_of(spec_.models.begin(), spec_.models.end(), has_group)));
  const bool some_models = !factor && !by_model && std::any_of(spec_.models.begin(), spec_.models.end(), has_group);
  std::size_t index = 0;
  const auto depends_on = [&](const Row& row) -> std::size_t {
    if (some_models) return index;  // a grouping some models lack: read on every row
    if (by_model) return static_cast<std::size_t>(row.model);
    if (!factor && variable == "arm") return static_cast<std::size_t>(row.arm);
    if (!factor && variable == "answer") return static_cast<std::size_t>(row.answer);
    return row.prompt;
  };
  constexpr std::uint32_t kUnread = ~std::uint32_t{0};
  std::vector<std::uint32_t> code_at;
  c.codes.reserve(rows_.size());
  for (const auto& row : rows_) {
    const std::size_t at = depends_on(row);
    if (at >= code_at.size()) code_at.resize(at + 1, kUnread);
    if (code_at[at] == kUnread) {
      std::string value = analyze::variable_value(spec_, score_row(row), variable);
      auto [known, added] = c.code_of.try_emplace(std::move(value), static_cast<std::uint32_t>(c.values.size()));
      if (added) c.values.push_back(known->first);
      code_at[at] = known->second;
    }
    c.codes.push_back(code_at[at]);
    ++index;
  }
  return c;
}

std::vector<std::string> PlanRows::present_levels(const std::vector<std::size_t>& rows, const std::string& variable) {
  const PlanColumn& c = column(variable);
  std::vector<char> seen_code(c.values.size(), 0);
  for (std::size_t i : rows) seen_code[c.codes[i]] = 1;
  std::set<std::string> seen;
  for (std::size_t k = 0; k < seen_code.size(); ++k)
    if (seen_code[k]) seen.insert(c.values[k]);
  std::vector<std::string> out;
  for (const auto& l : analyze::declared_levels(spec_, variable))
    if (seen.erase(l)) out.push_back(l);
  out.insert(out.end(), seen.begin(), seen.end());
  return out;
}

void PlanRows::key_of(const std::vector<const PlanColumn*>& columns, std::size_t row, CodeKey& key) {
  key.resize(columns.size());
  for (std::size_t k = 0; k < columns.size(); ++k) key[k] = columns[k]->codes[row];
}

std::optional<std::vector<std::size_t>> PlanRows::kept(const std::vector<const ast::Expr*>& conditions,
                                                      const std::set<std::string>& scores) const {
  std::vector<std::size_t> out;
  if (conditions.empty()) {
    out.resize(rows_.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
    return out;
  }
  RowReads reads;
  reads.factors.assign(spec_.factors.size(), false);
  for (const ast::Expr* c : conditions) add_reads(spec_, *c, reads);
  // The conditions' value on a row depends only on what they read of it: evaluate once per
  // distinct combination.
  std::unordered_map<CodeKey, bool, CodeKeyHash> known;
  CodeKey key;
  analyze::ScoreTable table;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& row = rows_[i];
    key.clear();
    if (reads.whole || reads.model) key.push_back(static_cast<std::uint32_t>(row.model));
    if (reads.whole || reads.arm) key.push_back(static_cast<std::uint32_t>(row.arm));
    if (reads.whole) key.push_back(row.prompt);
    const std::vector<int>& levels = plan_.prompts[row.prompt].levels;
    for (std::size_t f = 0; f < reads.factors.size(); ++f)
      if (!reads.whole && reads.factors[f]) key.push_back(static_cast<std::uint32_t>(levels[f]));
    auto hit = known.find(key);
    if (hit == known.end()) {
      bool keep = true;
      const ScoreRow scored = score_row(row);
      for (const ast::Expr* c : conditions) {
        try {
          keep = truthy(evaluate(*c, PlanScope(spec_, table, scored, scores)));
        } catch (const ReadsScores&) {
          return std::nullopt;
        } catch (const EvalError&) {
          return std::nullopt;
        }
        if (!keep) break;
      }
      hit = known.emplace(key, keep).first;
    }
    if (hit->second) out.push_back(i);
  }
  return out;
}

}  // namespace mirac
