// data.hpp: reading CSV, JSONL and JSON data files. Every cell remembers where it came
// from, so data errors can name the file, row and column and show the line.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/model/diagnostics.hpp"

namespace mirac {

/// One record of a data file: its fields as JSON values (CSV cells are strings).
struct DataRow {
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  FileId file = -1;
  std::uint32_t line = 0;        ///< 1-based line of the record in the file
  std::size_t row = 0;           ///< 1-based data row (header excluded)
  std::size_t line_begin = 0;    ///< byte offset where the record starts
  std::size_t line_end = 0;      ///< byte offset where the record ends
};

struct DataTable {
  FileId file = -1;
  std::string path;  ///< as shown in messages
  std::vector<std::string> columns;  ///< in file order (CSV header, or keys of the first JSON record)
  std::vector<DataRow> rows;
  bool has_column(const std::string& name) const;
};

/// Where a CSV text's header row begins: past a byte order mark and the `# ` comment lines
/// before the header (the provenance mirac's own CSV files open with).
std::size_t csv_header_begin(const std::string& text);

/// The value of `column` in `row`, or a diagnostic naming the row and nullptr when the
/// row lacks it (JSONL rows need not all have the same keys).
const nlohmann::ordered_json* row_value(const SourceManager& sources, const DataTable& table, const DataRow& row,
                                        const std::string& column, Diagnostics& diags);

/// Where a field of a row is, for diagnostics: the field's text when it can be found on
/// the record's line, else the start of the record.
SourceRange field_range(const SourceManager& sources, const DataRow& row, const std::string& column);

/// Reads `path` as `format` ("csv", "jsonl" or "json"). Problems go to `diags`, located at
/// `use_site` when the file cannot be read. Returns nullopt when the file is unusable.
/// A JSON document is returned as one row holding the whole document under key "".
/// Null when the file is unusable. A file read again during the same compilation (the same
/// `sources`) with the same bytes is not parsed again: both readers share the table.
std::shared_ptr<const DataTable> read_table(const std::filesystem::path& path, const std::string& shown_path,
                                            const std::string& format, SourceRange use_site,
                                            SourceManager& sources, Diagnostics& diags);

/// A JSON value as text: strings without quotes, others as compact JSON.
std::string json_text(const nlohmann::ordered_json& value);

}  // namespace mirac
