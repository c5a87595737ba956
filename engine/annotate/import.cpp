#include "engine/annotate/import.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/selection.hpp"
#include "runtime/store/annotations.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac {

namespace {

std::pair<double, double> scale_of(const Spec& spec) {
  if (const ast::RubricDecl* r = spec.scored_rubric(); r && r->scale) {
    const auto& range = std::get<ast::RangeLit>(r->scale->node);
    return {std::get<ast::NumberLit>(range.lo->node).value, std::get<ast::NumberLit>(range.hi->node).value};
  }
  return {1, 5};
}

// A cell of the sheet as text ("" when the row lacks the column), with the ' that the
// sheet's writers put before text a spreadsheet would run taken off (csv_text_read), so a
// comment saved by the page reads back as typed.
std::string cell(const DataRow& row, const std::string& column) {
  auto it = row.fields.find(column);
  return it == row.fields.end() ? std::string() : csv_text_read(json_text(*it));
}

}  // namespace

Outcome import_annotations(Audit& audit, const std::string& file, const std::string& annotator, AnnotationImport& out) {
  const Spec& spec = audit.spec();
  SourceManager& sources = audit.compilation->sources;
  Diagnostics& diags = out.diagnostics;
  if (annotator.empty() || annotator.find_first_of(" ,.\t\r\n") != std::string::npos)
    return Outcome::fail(kUsageError, "mirac annotate import: --annotator needs a name without spaces, commas or dots");
  if (!audit.has_store())
    return Outcome::fail(kUsageError, "mirac annotate import: " + missing_store_advice(audit));
  if (!std::ifstream(file, std::ios::binary)) {
    diags.error_at(file, "cannot read annotation sheet");
    return Outcome::fail(kSpecError);
  }
  auto table = read_table(file, file, "csv", SourceRange{}, sources, diags);
  if (!table) return Outcome::fail(kSpecError);
  const SourceRange header = sources.range(table->file, 0, sources.text(table->file).find_first_of("\r\n"));
  if (!table->has_column("id")) {
    diags.error(header, "annotation sheet has no column 'id'");
    return Outcome::fail(kSpecError);
  }
  const ast::RubricDecl* rubric = spec.scored_rubric();
  std::vector<const ast::DimDecl*> dims;
  if (rubric)
    for (const auto& d : rubric->dims)
      if (table->has_column(d.name.name)) dims.push_back(&d);
  if (dims.empty()) {
    diags.error(header, "annotation sheet has no column of a rubric dimension");
    return Outcome::fail(kSpecError);
  }
  const auto [lo, hi] = scale_of(spec);

  Outcome opened;
  auto store = open_store(audit, opened);
  if (!store) return opened;
  const HashSet done = store->done_hashes();
  std::unordered_set<std::string> planned;
  for (const auto& r : audit.plan().requests) planned.insert(r.hash());
  const std::string selected = selection_said(audit.options);  // the plan is the selection's
  std::unordered_map<std::string, std::uint32_t> line_of;
  std::vector<Annotation> annotations;
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (const DataRow& row : table->rows) {
    const std::string id = cell(row, "id");
    if (!planned.count(id) || !done.count(id)) {
      diags.error(field_range(sources, row, "id"),
                  planned.count(id)  ? fmt::format("answer '{}' is not in the store", id)
                  : selected.empty() ? fmt::format("'{}' is not the id of an answer of this spec's plan", id)
                                     : fmt::format("'{}' is not the id of an answer selected by {}", id, selected));
      continue;
    }
    if (auto [it, fresh] = line_of.emplace(id, row.line); !fresh) {
      diags.error(field_range(sources, row, "id"), fmt::format("answer '{}' appears twice", id));
      diags.note(fmt::format("first on line {}", it->second));
      continue;
    }
    const std::string comment = cell(row, "comment");
    std::size_t given = 0;
    for (const ast::DimDecl* d : dims) {
      const std::string& name = d->name.name;
      const std::string text = cell(row, name);
      if (text.empty()) continue;
      Annotation a{id, annotator, name, std::nullopt, comment, fmt::format("{} line {}", file, row.line), now};
      if (text == "N/A" || text == "NA" || text == "n/a") {
        if (!d->na_when) {
          diags.error(field_range(sources, row, name), fmt::format("{} is N/A, but the rubric always scores it", name));
          continue;
        }
      } else {
        long long v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        const ScoreScale own = d->scale ? dim_scale(*rubric, name) : ScoreScale{lo, hi};
        if (ec != std::errc() || end != text.data() + text.size() || v < own.lo || v > own.hi) {
          diags.error(field_range(sources, row, name),
                      fmt::format("'{}' for {} is not a score: a whole number from {} to {}{}, or empty", text, name,
                                  own.lo, own.hi, d->na_when ? ", N/A" : ""));
          continue;
        }
        a.value = static_cast<double>(v);
      }
      annotations.push_back(std::move(a));
      ++given;
    }
    out.scores += given;
    out.answers += given > 0;
  }
  if (diags.has_errors()) return Outcome::fail(kSpecError, "nothing imported");
  std::string error;
  auto annotated = AnnotationStore::open(audit.run_dir, error);
  if (!annotated || !annotated->put(annotations, error)) return Outcome::fail(kRunError, "mirac: " + error);
  return {};
}

}  // namespace mirac
