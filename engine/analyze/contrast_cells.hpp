// contrast_cells.hpp: a declared contrast as the cell means it reads (`D3[zh, low]`) and
// the arithmetic joining them, for the analyses that recompute a contrast from their own
// cell means (corrected, invariance). Internal to engine/analyze.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/analyze/context.hpp"

namespace mirac::analyze {

// A cell mean the contrast reads: `D3[zh, low]` is dimension D3 over the answers at those levels.
struct Cell {
  int dim = -1;
  std::vector<std::pair<int, int>> levels;  ///< (factor, level)
  std::string label;                        ///< "D3[zh, low]"
};

struct ContrastCells {
  std::vector<Cell> cells;
  std::map<const ast::CellSelect*, std::size_t> of;  ///< the expression's node -> its cell
};

/// Finds the cells of a contrast's expression; a contrast is numbers and cell means joined
/// by + - * / (mirac check holds it to that). Throws EvalError at a level of no factor.
void find_cells(const Spec& spec, const ScoreTable& table, const ast::Expr& e, ContrastCells& out);
/// The contrast's value from its cells' means (`means[k]` of `cells.cells[k]`).
double contrast_value(const ast::Expr& e, const ContrastCells& cells, const std::vector<double>& means);
/// Whether `row` is at every level the cell fixes.
bool at_levels(const Cell& cell, const ScoreRow& row);
/// The declared contrasts an option names: a contrast by its name, or all those a ranging
/// one (`each`) stands for by the name it was declared with.
std::vector<const ast::ContrastDecl*> named_contrasts(const Spec& spec, const ast::AnalysisOption& option);

}  // namespace mirac::analyze
