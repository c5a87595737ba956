// analysis_option.hpp: an analysis's option by its key, for the phases that read one
// option of a declaration (the checks of its files, the invariance analysis's requests).
#pragma once

#include <string_view>

#include "interpreter/model/ast.hpp"

namespace mirac {

/// The option `key` of `a` (the first, should the key repeat), or nullptr without one.
inline const ast::AnalysisOption* analysis_option(const ast::AnalysisDecl& a, std::string_view key) {
  for (const auto& o : a.options)
    if (o.key.name == key) return &o;
  return nullptr;
}

}  // namespace mirac
