// report_items.cpp: the names of a report's items. A name is how a variant's `extend
// report` picks out an item to replace or remove, so two items of one report may not share
// one; and an `override` or `remove` item still in a report after the merge of a variant was
// written where there is no base's report to change. Also the placeholders of titles.
#include <map>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"
#include "interpreter/eval/placeholder_range.hpp"

namespace mirac {

namespace {

// A title's `{...}` other than `{cells}`: the report would print it as written.
void check_title_placeholders(const ast::Expr& title, const SourceManager& sources, Diagnostics& diags) {
  const auto* text = std::get_if<ast::StringLit>(&title.node);
  if (!text) return;
  for (std::size_t open = text->value.find('{'); open != std::string::npos; open = text->value.find('{', open + 1)) {
    const std::size_t close = text->value.find('}', open);
    if (close == std::string::npos) return;
    const std::string name = text->value.substr(open + 1, close - open - 1);
    if (name == kCellsPlaceholder) continue;
    const std::string message =
        fmt::format("placeholder '{{{}}}' in a title names nothing a report fills in", name);
    diags.error(placeholder_range(sources, title.range, message), message);
    diags.note(fmt::format("a title may say {{{}}}, the number of user-side cells (the levels of the factors a "
                           "`cell` is made of, multiplied), so that it stays true in a variant with more levels",
                           kCellsPlaceholder));
  }
}

}  // namespace

void check_report_items(const ast::ReportDecl& report, const SourceManager& sources, Diagnostics& diags) {
  std::map<std::string, SourceRange> named;
  for (const auto& item : report.items) {
    if (item.change != ast::ItemChange::add) {
      const bool replace = item.change == ast::ItemChange::override_;
      SourceRange word = item.kind.range;
      if (replace) {  // the word `override` that begins the item
        word = item.range;
        word.end = word.begin;
        word.end.column += 8;
        word.end.byte += 8;
      }
      diags.error(word, fmt::format("'{}' only {} an item of a base's report, inside 'extend report {} {{ ... }}' of a "
                                    "spec that extends another",
                                    replace ? "override" : "remove", replace ? "replaces" : "removes", report.name.name));
      continue;
    }
    if (item.kind.name == "section" && item.content) check_title_placeholders(*item.content, sources, diags);
    for (const auto& option : item.options)
      if (option.key.name == "title" && !option.values.empty())
        check_title_placeholders(option.values.front().value, sources, diags);
    if (!item.name) continue;
    auto [first, fresh] = named.emplace(item.name->name, item.name->range);
    if (fresh) continue;
    diags.error(item.name->range, fmt::format("report '{}' has a second item named '{}'", report.name.name, item.name->name));
    const SourceRange& at = first->second;
    // The first may be in another file: a base's item, the second a variant's.
    diags.note(at.file == item.name->range.file ? fmt::format("the first is at line {}", at.begin.line)
                                                : fmt::format("the first is at {}:{}:{}", sources.path(at.file),
                                                              at.begin.line, at.begin.column));
  }
}

void check_reports(CheckContext& cx) {
  NameTable report_names("report", cx.diags);
  for (auto [d, r] : all_of<ast::ReportDecl>(cx.decls)) {
    if (!report_names.add(r->name)) continue;
    check_report_items(*r, cx.sources, cx.diags);
    cx.spec.reports.push_back(*r);
  }
}

}  // namespace mirac
