// check_analysis_files.cpp: the data files of analyses (check.hpp), read at check time as
// the seeds' files are, so that `mirac check` and the start of `mirac run` find a missing
// file or column, not the analysis after the answers and judgments are paid for.
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/check/check.hpp"
#include "interpreter/model/analysis_option.hpp"
#include "interpreter/model/data.hpp"

namespace mirac {

void check_analysis_files(const Spec& spec, SourceManager& sources, Diagnostics& diags) {
  for (const auto& a : spec.analyses) {
    if (a.kind.name != "spearman") continue;
    const ast::AnalysisOption* against = analysis_option(a, "against");
    if (!against || against->values.empty()) continue;
    const auto* call = std::get_if<ast::Call>(&against->values[0].value.node);
    if (!call || call->args.size() != 1) continue;  // reported by check_analysis_blocks
    const auto* file = std::get_if<ast::StringLit>(&call->args[0].node);
    if (!file) continue;
    auto table = read_table(spec.data_path(call->args[0].range, file->value), file->value, call->callee.name,
                                                call->args[0].range, sources, diags);
    if (!table) continue;
    // The columns it will read: one per `by` variable and one per dimension, each under its
    // own name unless the block maps it to another.
    std::map<std::string, std::string> column;
    if (against->columns)
      for (const auto& [name, col] : *against->columns) column[name.name] = col.name;
    std::vector<std::string> needed;
    if (const ast::AnalysisOption* by = analysis_option(a, "by"))
      for (const auto& v : by->values) {
        std::vector<std::pair<std::string, SourceRange>> names;
        names_read(v.value, names);
        for (const auto& [n, at] : names) needed.push_back(n);
      }
    for (const auto& arg : a.args)
      if (const auto* n = std::get_if<ast::Name>(&arg.node)) needed.push_back(n->name);
    for (const auto& n : needed) {
      const std::string col = column.count(n) ? column[n] : n;
      if (!table->has_column(col))
        diags.error(call->args[0].range, fmt::format("'{}' has no column '{}' for '{}' of analysis {}; its columns: {}",
                                                     file->value, col, n, a.name.name, fmt::join(table->columns, ", ")));
    }
  }
}

}  // namespace mirac
