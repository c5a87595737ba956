// rubrics.cpp: `rubric NAME { ... }` declarations, one per name. Their scales, dimensions
// and anchors are checked with the analyses (analysis.cpp), their criteria in criteria.cpp;
// a scale written as a string is reported here, before them.
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// The two whole numbers of a scale written as a string: "1-10", "1..10", "1 to 10", "1 - 10".
std::optional<std::pair<std::string, std::string>> range_in(std::string_view text) {
  auto digits = [&](std::size_t& at) {
    std::size_t from = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    return std::string(text.substr(from, at - from));
  };
  auto blanks = [&](std::size_t& at) {
    while (at < text.size() && text[at] == ' ') ++at;
  };
  std::size_t at = 0;
  blanks(at);
  std::string lo = digits(at);
  blanks(at);
  bool separated = false;
  for (std::string_view sep : {"..", "-", "to"}) {
    if (separated || text.substr(at, sep.size()) != sep) continue;
    at += sep.size();
    separated = true;
  }
  blanks(at);
  std::string hi = digits(at);
  blanks(at);
  // Nine digits at most, so that std::stod holds them (and no scale is longer).
  if (lo.empty() || hi.empty() || lo.size() > 9 || hi.size() > 9 || !separated || at != text.size()) return std::nullopt;
  if (std::stod(lo) >= std::stod(hi)) return std::nullopt;
  return std::pair{lo, hi};
}

ast::Expr number(const std::string& text, SourceRange range) {
  ast::Expr e;
  e.range = range;
  e.node = ast::NumberLit{std::stod(text), text};
  return e;
}

// `scale "1-10"`: one error with the fix, and the rubric keeps the range the string means,
// so that its anchors (6 to 10) are checked against 1..10 and not against the default 1..5,
// which would add an error for each of them that says nothing new. A string that holds no
// range (or a range that runs down) is left to the rubric's checks (analysis.cpp), which
// say what a scale is.
void take_string_scale(CheckContext& cx, ast::RubricDecl& r) {
  const auto* s = r.scale ? std::get_if<ast::StringLit>(&r.scale->node) : nullptr;
  auto range = s ? range_in(s->value) : std::nullopt;
  if (!range) return;
  cx.diags.error(r.scale->range, fmt::format("rubric '{}': scale is a range of whole numbers, not the string \"{}\"",
                                             r.name.name, s->value));
  cx.diags.note(fmt::format("write it as a range: scale {}..{}", range->first, range->second));
  SourceRange at = r.scale->range;
  ast::Expr fixed;
  fixed.range = at;
  fixed.node = ast::RangeLit{number(range->first, at), number(range->second, at)};
  r.scale = std::move(fixed);
}

}  // namespace

void check_rubrics(CheckContext& cx) {
  NameTable rubric_names("rubric", cx.diags);
  for (auto [d, r] : all_of<ast::RubricDecl>(cx.decls)) {
    if (!rubric_names.add(r->name)) continue;
    cx.spec.rubrics.push_back(*r);
    take_string_scale(cx, cx.spec.rubrics.back());
  }
}

}  // namespace mirac
