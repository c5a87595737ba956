// plan_rows.hpp: the planned requests as the score rows their answers will be, read column
// by column for the plan's analysis checks (plan_analyses.cpp). Each variable's value on
// every row is computed once and coded as a small integer, and a `where` is evaluated once
// per distinct combination of what it reads, so the checks cost a pass over integers per
// analysis rather than building strings and scopes per request (issue 29).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "interpreter/model/spec.hpp"
#include "interpreter/plan/plan.hpp"
#include "interpreter/scores/scores.hpp"

namespace mirac {

/// One variable over the rows: its distinct values (in order of first appearance) and, per
/// row, the index of its value.
struct PlanColumn {
  std::vector<std::string> values;
  std::unordered_map<std::string, std::uint32_t> code_of;
  std::vector<std::uint32_t> codes;
};

/// Several columns' codes on one row: a key for counting cells, pairs and groups.
using CodeKey = std::vector<std::uint32_t>;
struct CodeKeyHash {
  std::size_t operator()(const CodeKey& key) const noexcept;
};

class PlanRows {
 public:
  /// The rows of `plan`'s requests (those at `selected`, when given) that belong to a seed.
  PlanRows(const Spec& spec, const Plan& plan, const std::vector<std::size_t>* selected);

  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }

  /// The column of `variable` (as analyze::variable_value reads it), computed on first use.
  const PlanColumn& column(const std::string& variable);

  /// The values of `variable` over `rows`: declared levels in declared order, then the
  /// others sorted.
  std::vector<std::string> present_levels(const std::vector<std::size_t>& rows, const std::string& variable);

  /// `key` set to the codes of `columns` on row `row`.
  static void key_of(const std::vector<const PlanColumn*>& columns, std::size_t row, CodeKey& key);

  /// The rows on which every condition holds; none when a condition reads one of `scores`
  /// (unknowable before the run) or cannot be evaluated (the checker reported that).
  std::optional<std::vector<std::size_t>> kept(const std::vector<const ast::Expr*>& conditions,
                                               const std::set<std::string>& scores) const;

 private:
  // A planned request as a score row reads it: which prompt (its seed and levels), model,
  // arm and answer. Values that depend on the prompt alone are computed once per prompt.
  struct Row {
    std::uint32_t prompt = 0;
    int model = 0, arm = 0, answer = 0;
  };
  analyze::ScoreRow score_row(const Row& row) const;

  const Spec& spec_;
  const Plan& plan_;
  std::vector<int> seed_of_prompt_;  ///< index into spec.seeds, -1 for none
  std::vector<Row> rows_;
  std::map<std::string, PlanColumn> columns_;
};

}  // namespace mirac
