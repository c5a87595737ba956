#include "runtime/text/csv_cells.hpp"

namespace mirac {

namespace {

// The characters OWASP lists as starting a formula in Excel, LibreOffice or Google Sheets.
bool starts_formula(char c) { return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r'; }

// An optional sign, digits with an optional point (or a point and digits), an optional
// exponent: what mirac writes for a number, and nothing a spreadsheet could run.
bool plain_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  std::size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

std::string csv_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  return csv_quoted(text);
}

bool csv_formula_like(std::string_view text) {
  const std::size_t first = text.find_first_not_of('\'');
  return first != std::string_view::npos && starts_formula(text[first]);
}

std::string csv_text(std::string_view text, CsvFormulas formulas) {
  if (formulas == CsvFormulas::keep || !csv_formula_like(text)) return csv_field(text);
  return csv_quoted("'" + std::string(text));
}

std::string csv_number_or_text(std::string_view cell, CsvFormulas formulas) {
  return plain_number(cell) ? std::string(cell) : csv_text(cell, formulas);
}

std::string csv_text_read(std::string_view cell) {
  if (!cell.empty() && cell[0] == '\'' && csv_formula_like(cell)) cell.remove_prefix(1);
  return std::string(cell);
}

}  // namespace mirac
