// html_escape.hpp: untrusted text made safe for the places mirac's pages put it. Model
// answers, prompts, rationales and seed fields may hold anything, markup included; every
// page (report.html, the power report, the annotation page, `mirac view`) passes them
// through these two functions, one per context, and shows them as text.
#pragma once

#include <string>
#include <string_view>

namespace mirac {

/// `text` for HTML text or a quoted attribute value: &, <, >, " and ' as character
/// references, so nothing in it can open a tag, end an attribute or start an entity.
std::string html_escape(std::string_view text);

/// JSON text for inside a <script> element (a data block, or a literal the page's script
/// reads): <, > and & as \u003c, \u003e and \u0026, and U+2028, U+2029 as \u2028, \u2029.
/// No `</script`, `<!--` or `-->` can then end the element early or send the HTML parser
/// into its escaped-script states, and no line separator can end a string literal in an
/// older JavaScript engine. `json` must be valid JSON, where those characters can only
/// stand inside strings: there each escape means the same character.
std::string script_json(std::string_view json);

}  // namespace mirac
