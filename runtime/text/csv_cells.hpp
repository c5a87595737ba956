// csv_cells.hpp: the cells of the CSV files mirac writes for people (`mirac export`, the
// results tables, scores.csv, the annotation sheets): RFC 4180 quoting, and text that a
// spreadsheet would run as a formula made inert. Answers, rationales and seed fields are
// untrusted: `=HYPERLINK(...)` or `=cmd|' /C calc'!A0` in an answer must reach a person's
// spreadsheet as text, not as a formula (docs/cli.md, "CSV files and spreadsheets").
#pragma once

#include <string>
#include <string_view>

namespace mirac {

/// What a text cell a spreadsheet would read as a formula becomes.
enum class CsvFormulas {
  neutralise,  ///< one ' in front, quoted (OWASP's advice): shown as text, never run
  keep,        ///< as is, for programs that read the file (`mirac export --csv-formulas keep`)
};

/// `text` as one RFC 4180 field: quoted, its quotes doubled, when it holds a comma, a quote
/// or a line break; as is otherwise.
std::string csv_field(std::string_view text);

/// Whether a spreadsheet would run text cell `text`: it begins with =, +, -, @, a tab or a
/// carriage return, or with ' and then, after any more ', one of those (such a cell is
/// neutralised too, so that taking one ' off, as csv_text_read() does, gives back every
/// text exactly).
bool csv_formula_like(std::string_view text);

/// A text value (a string in the data: an answer, a rationale, a seed id, a name) as a
/// field. Formula-like text gets one ' in front and is quoted, unless `formulas` is keep.
std::string csv_text(std::string_view text, CsvFormulas formulas = CsvFormulas::neutralise);

/// A cell of a table whose numbers are already text (the results tables, scores): a plain
/// number (`-0.25`, `+3`, `1e-05`) as is, since a spreadsheet reads it as the number it
/// is; anything else as csv_text().
std::string csv_number_or_text(std::string_view cell, CsvFormulas formulas = CsvFormulas::neutralise);

/// The text a cell of a CSV file mirac wrote stands for: csv_text() undone (one leading '
/// taken off a formula-like cell that begins with '); any other cell as it is. mirac's own
/// readers of its files (`mirac analyze --scores`, `mirac annotate import`) read cells so.
std::string csv_text_read(std::string_view cell);

}  // namespace mirac
