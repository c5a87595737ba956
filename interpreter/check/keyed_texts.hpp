// keyed_texts.hpp: texts keyed by several factors (`text NAME by f1 * f2 { ... }`), bound by
// bind_texts (texts.cpp) beside the texts of one factor's levels.
#pragma once

#include "interpreter/model/diagnostics.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac {

/// Checks `t` and adds its table to `spec.texts` (a TextTable with `name` and `by`).
void bind_keyed_text(Spec& spec, const ast::TextDecl& t, Diagnostics& diags);

}  // namespace mirac
