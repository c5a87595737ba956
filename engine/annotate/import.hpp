// import.hpp: `mirac annotate import`: a filled annotation sheet into the run store, checked
// row by row. The human raters the agreement analyses read are in engine/judge/raters.hpp.
#pragma once

#include <string>

#include "engine/session.hpp"
#include "interpreter/scores/scores.hpp"

namespace mirac {

struct AnnotationImport {
  std::size_t answers = 0;  ///< rows with at least one score
  std::size_t scores = 0;   ///< values stored (N/A included)
  Diagnostics diagnostics;  ///< every problem, at its row and cell
};

/// Reads the sheet `file` (columns `id`, any of the rubric's dimensions, optional
/// `comment`) as `annotator`'s scores: an id must be a stored answer of the plan and appear
/// once; a value must be a whole number on the scale, or N/A where the rubric allows it
/// (the dimension has `na when`); an empty cell is not scored. Nothing is stored when any
/// row is wrong (kSpecError, the problems in `diagnostics`).
Outcome import_annotations(Audit& audit, const std::string& file, const std::string& annotator, AnnotationImport& out);

}  // namespace mirac
