// rubrics.cpp: `rubric NAME { ... }` declarations, one per name. Their scales, dimensions
// and anchors are checked with the analyses (analysis.cpp), their criteria in criteria.cpp.
#include "interpreter/check/context.hpp"

namespace mirac {

void check_rubrics(CheckContext& cx) {
  NameTable rubric_names("rubric", cx.diags);
  for (auto [d, r] : all_of<ast::RubricDecl>(cx.decls))
    if (rubric_names.add(r->name)) cx.spec.rubrics.push_back(*r);
}

}  // namespace mirac
