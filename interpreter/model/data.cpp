#include "interpreter/model/data.hpp"


#include <fmt/format.h>

namespace mirac {

bool DataTable::has_column(const std::string& name) const {
  return std::find(columns.begin(), columns.end(), name) != columns.end();
}

std::string json_text(const nlohmann::ordered_json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

const nlohmann::ordered_json* row_value(const SourceManager& sources, const DataTable& table, const DataRow& row,
                                        const std::string& column, Diagnostics& diags) {
  auto it = row.fields.find(column);
  if (it != row.fields.end()) return &*it;
  diags.error(sources.range(row.file, row.line_begin, row.line_end),
              fmt::format("row {} of '{}' has no column '{}'", row.row, table.path, column));
  return nullptr;
}

SourceRange field_range(const SourceManager& sources, const DataRow& row, const std::string& column) {
  std::string_view record(sources.text(row.file).data() + row.line_begin, row.line_end - row.line_begin);
  std::string needle = "\"" + column + "\"";
  std::size_t at = record.find(needle);
  if (at != std::string_view::npos) {
    // In JSON, point at the value after the key.
    std::size_t colon = record.find(':', at + needle.size());
    std::size_t value = colon == std::string_view::npos ? at : record.find_first_not_of(" \t", colon + 1);
    std::size_t end = value;
    if (value < record.size() && record[value] == '"') {
      end = value + 1;
      while (end < record.size() && record[end] != '"') end += record[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, record.size());
    } else {
      while (end < record.size() && record[end] != ',' && record[end] != '}') ++end;
    }
    return sources.range(row.file, row.line_begin + value, row.line_begin + end);
  }
  auto it = row.fields.find(column);
  if (it != row.fields.end() && it->is_string()) {
    // In CSV, the cell's text is somewhere on the record's line.
    const std::string& cell = it->get_ref<const std::string&>();
    std::size_t pos = cell.empty() ? std::string_view::npos : record.find(cell);
    if (pos != std::string_view::npos)
      return sources.range(row.file, row.line_begin + pos, row.line_begin + pos + cell.size());
  }
  return sources.range(row.file, row.line_begin, row.line_begin);
}

std::size_t csv_header_begin(const std::string& text) {
  std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // byte order mark
  // `# ` lines before the header are comments: the provenance mirac writes at the top of its
  // own CSV files (docs/results.md), so that a scores.csv it wrote reads back as it is.
  while (text.compare(i, 2, "# ") == 0) {
    const std::size_t end = text.find('\n', i);
    i = end == std::string::npos ? text.size() : end + 1;
  }
  return i;
}

namespace {

// nlohmann's message without its exception id and its own (line-relative) position: the
// diagnostic already says where.
std::string json_error_text(const nlohmann::json::parse_error& e) {
  std::string m = e.what();
  std::size_t colon = m.find(": ", m.find("parse error"));
  if (colon != std::string::npos) m = m.substr(colon + 2);
  return m;
}

// Data is shallow; a value nested deeper than this is a broken or hostile file, and walking
// it (parsing, dumping, freeing) recurses once per level until the stack runs out.
constexpr int kMaxJsonDepth = 200;

// The offset of the bracket that opens level kMaxJsonDepth + 1, or npos: a scan that skips
// strings, run before the parser so that the parser never sees such a value.
std::size_t too_deep_at(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

void report_too_deep(const SourceManager& sources, FileId file, std::size_t at, Diagnostics& diags) {
  diags.error(sources.range(file, at, at + 1),
              fmt::format("JSON nested more than {} levels deep; data values must be flatter", kMaxJsonDepth));
}

// RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks; CRLF or LF.
bool parse_csv(DataTable& t, const std::string& text, const SourceManager& sources, Diagnostics& diags) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::vector<std::string> record;
  std::string cell;
  std::size_t i = csv_header_begin(text), start = i;
  bool quoted = false, any = false;
  auto end_record = [&](std::size_t end) {
    record.push_back(std::move(cell));
    cell.clear();
    if (!(record.size() == 1 && record[0].empty() && !any)) {
      records.push_back(std::move(record));
      spans.emplace_back(start, end);
    }
    record.clear();
    any = false;
  };
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.push_back(std::move(cell));
      cell.clear();
      any = true;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      end_record(i);
      ++i;
      start = i + 1;
    } else if (c == '\n') {
      end_record(i);
      start = i + 1;
    } else {
      cell += c;
      any = true;
    }
  }
  if (quoted) {
    diags.error(sources.range(t.file, start, start), "unterminated quoted field in CSV file");
    return false;
  }
  if (any || !cell.empty() || !record.empty()) end_record(text.size());
  if (records.empty()) {
    diags.error(sources.range(t.file, 0, 0), fmt::format("CSV file '{}' has no header row", t.path));
    return false;
  }
  t.columns = records[0];
  bool hinted_more = false, hinted_fewer = false;
  for (std::size_t r = 1; r < records.size(); ++r) {
    DataRow row;
    row.file = t.file;
    row.row = r;
    row.line_begin = spans[r].first;
    row.line_end = spans[r].second;
    row.line = sources.position(t.file, spans[r].first).line;
    if (records[r].size() != t.columns.size()) {
      const bool more = records[r].size() > t.columns.size();
      diags.error(sources.range(t.file, spans[r].first, spans[r].second),
                  fmt::format("row {} has {} fields but the header has {}", r, records[r].size(), t.columns.size()));
      // The usual cause, said once per file and kind: text with a comma, or a line break,
      // outside double quotes.
      if (more && !hinted_more)
        diags.note("a field holding a comma must be in double quotes (\"a, b\"), and a quote inside one is doubled "
                   "(\"say \"\"hi\"\"\")");
      if (!more && !hinted_fewer)
        diags.note("a row ends at the end of its line unless the line break is inside double quotes; a missing "
                   "value is an empty field between two commas");
      (more ? hinted_more : hinted_fewer) = true;
      continue;
    }
    for (std::size_t c = 0; c < t.columns.size(); ++c) row.fields[t.columns[c]] = records[r][c];
    t.rows.push_back(std::move(row));
  }
  return true;
}

bool parse_jsonl(DataTable& t, const std::string& text, const SourceManager& sources, Diagnostics& diags) {
  std::size_t start = 0, row_number = 0;
  bool ok = true;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      ++row_number;
      DataRow row;
      row.file = t.file;
      row.row = row_number;
      row.line_begin = start;
      row.line_end = end;
      row.line = sources.position(t.file, start).line;
      if (std::size_t deep = too_deep_at(line); deep != std::string_view::npos) {
        report_too_deep(sources, t.file, start + deep, diags);
        ok = false;
        start = end + 1;
        continue;
      }
      try {
        row.fields = nlohmann::ordered_json::parse(line);
        if (!row.fields.is_object()) throw std::runtime_error("each line must hold a JSON object");
        if (t.columns.empty()) {
          for (auto it = row.fields.begin(); it != row.fields.end(); ++it) t.columns.push_back(it.key());
        }
        t.rows.push_back(std::move(row));
      } catch (const nlohmann::json::parse_error& e) {
        std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, line.size());
        diags.error(sources.range(t.file, start + at, start + at), "invalid JSON: " + json_error_text(e));
        ok = false;
      } catch (const std::exception& e) {
        diags.error(sources.range(t.file, start, end), e.what());
        ok = false;
      }
    }
    start = end + 1;
  }
  return ok;
}

std::shared_ptr<const DataTable> parse_table(std::string bytes, const std::string& shown_path, const std::string& format,
                                             SourceRange use_site, SourceManager& sources, Diagnostics& diags) {
  DataTable t;
  t.path = shown_path;
  t.file = sources.add(shown_path, std::move(bytes));
  const std::string& text = sources.text(t.file);
  // Cells end up in prompts and JSON: a byte that is not UTF-8 is reported here, where it
  // is, rather than failing later when a request is built.
  if (!require_utf8(sources, t.file, fmt::format("data file '{}'", shown_path), diags)) return nullptr;
  bool ok = false;
  if (format == "csv") {
    ok = parse_csv(t, text, sources, diags);
  } else if (format == "jsonl") {
    ok = parse_jsonl(t, text, sources, diags);
  } else if (format == "json") {
    if (std::size_t deep = too_deep_at(text); deep != std::string_view::npos) {
      report_too_deep(sources, t.file, deep, diags);
      return nullptr;
    }
    try {
      DataRow row;
      row.file = t.file;
      row.row = 1;
      row.line = 1;
      row.line_end = text.size();
      row.fields = nlohmann::ordered_json::object();
      row.fields[""] = nlohmann::ordered_json::parse(text);
      t.rows.push_back(std::move(row));
      ok = true;
    } catch (const nlohmann::json::parse_error& e) {
      std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
      diags.error(sources.range(t.file, at, at), "invalid JSON: " + json_error_text(e));
    }
  } else {
    diags.error(use_site, fmt::format("unknown data format '{}'; expected csv, jsonl or json", format));
  }
  if (!ok) return nullptr;
  return std::make_shared<const DataTable>(std::move(t));
}

}  // namespace

std::shared_ptr<const DataTable> read_table(const std::filesystem::path& path, const std::string& shown_path,
                                            const std::string& format, SourceRange use_site,
                                            SourceManager& sources, Diagnostics& diags) {
  std::string why;
  std::optional<std::string> bytes = read_regular_file(path, why);
  if (!bytes) {
    diags.error(use_site, fmt::format("cannot read data file '{}': {}", path.string(), why));
    return nullptr;
  }
  const std::string cache_key = path.string() + '\n' + format + '\n' + shown_path;
  auto& parsed = sources.parsed_tables();
  if (auto hit = parsed.find(cache_key); hit != parsed.end() && sources.text(hit->second->file) == *bytes)
    return hit->second;
  auto table = parse_table(std::move(*bytes), shown_path, format, use_site, sources, diags);
  if (table) parsed[cache_key] = table;
  return table;
}

}  // namespace mirac
