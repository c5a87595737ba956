// report_items.cpp: the names of a report's items. A name is how a variant's `extend
// report` picks out an item to replace or remove, so two items of one report may not share
// one; and an `override` or `remove` item still in a report after the merge of a variant was
// written where there is no base's report to change.
#include <map>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

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
