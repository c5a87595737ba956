// contrast_cells.cpp: a contrast's cells and its value from their means (contrast_cells.hpp).
#include "engine/analyze/contrast_cells.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/eval/eval.hpp"

namespace mirac::analyze {

// Finds the cells of a contrast's expression; a contrast is numbers and cell means joined
// by + - * / (mirac check holds it to that).
void find_cells(const Spec& spec, const ScoreTable& table, const ast::Expr& e, ContrastCells& out) {
  if (const auto* select = std::get_if<ast::CellSelect>(&e.node)) {
    Cell cell;
    const std::string dim = name_of(*select->base);
    cell.dim = table.dim_index(dim);
    std::vector<std::string> names;
    for (const ast::CellItem& item : select->items) {
      int factor = item.factor ? spec.factor_index(item.factor->name) : -1;
      for (std::size_t f = 0; factor < 0 && f < spec.factors.size(); ++f)
        if (spec.factors[f].level_index(item.level.name) >= 0) factor = static_cast<int>(f);
      if (factor < 0) throw EvalError(e.range, fmt::format("'{}' is not a level of any factor", item.level.name));
      cell.levels.emplace_back(factor, spec.factors[static_cast<std::size_t>(factor)].level_index(item.level.name));
      names.push_back(item.level.name);
    }
    cell.label = fmt::format("{}[{}]", dim, fmt::join(names, ", "));
    out.of[select] = out.cells.size();
    out.cells.push_back(std::move(cell));
  } else if (const auto* unary = std::get_if<ast::Unary>(&e.node)) {
    find_cells(spec, table, *unary->operand, out);
  } else if (const auto* binary = std::get_if<ast::Binary>(&e.node)) {
    find_cells(spec, table, *binary->lhs, out);
    find_cells(spec, table, *binary->rhs, out);
  } else if (!std::holds_alternative<ast::NumberLit>(e.node)) {
    throw EvalError(e.range, "a contrast is built from cell means like D3[zh, low], numbers and + - * /");
  }
}

// The contrast's value from its cells' means.
double contrast_value(const ast::Expr& e, const ContrastCells& cells, const std::vector<double>& means) {
  if (const auto* number = std::get_if<ast::NumberLit>(&e.node)) return number->value;
  if (const auto* select = std::get_if<ast::CellSelect>(&e.node)) return means[cells.of.at(select)];
  if (const auto* unary = std::get_if<ast::Unary>(&e.node)) return -contrast_value(*unary->operand, cells, means);
  const auto& binary = std::get<ast::Binary>(e.node);
  const double lhs = contrast_value(*binary.lhs, cells, means), rhs = contrast_value(*binary.rhs, cells, means);
  switch (binary.op.front()) {
    case '+': return lhs + rhs;
    case '-': return lhs - rhs;
    case '*': return lhs * rhs;
    default: return lhs / rhs;
  }
}

bool at_levels(const Cell& cell, const ScoreRow& row) {
  return std::all_of(cell.levels.begin(), cell.levels.end(), [&](const auto& fl) { return row.levels[fl.first] == fl.second; });
}

// The declared contrasts an option names: a contrast by its name, or all those a ranging
// one (`each`) stands for by the name it was declared with.
std::vector<const ast::ContrastDecl*> named_contrasts(const Spec& spec, const ast::AnalysisOption& option) {
  std::vector<const ast::ContrastDecl*> out;
  for (const auto& v : option.values) {
    const std::string name = name_of(v.value);
    for (const auto& c : spec.contrasts)
      if ((c.name.name == name || c.family == name) && std::find(out.begin(), out.end(), &c) == out.end()) out.push_back(&c);
  }
  return out;
}

}  // namespace mirac::analyze
