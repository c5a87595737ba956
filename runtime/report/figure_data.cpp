#include "runtime/report/figure_data.hpp"

#include <algorithm>
#include <vector>

#include "runtime/report/numbers.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac::report {

namespace {

using Json = nlohmann::ordered_json;

const Json* values_of(const Figure& f) {
  const auto data = f.spec.find("data");
  if (data == f.spec.end() || !data->is_object()) return nullptr;
  const auto values = data->find("values");
  return values != data->end() && values->is_array() ? &*values : nullptr;
}

// Columns in the order of the first row, then any a later row adds.
std::vector<std::string> columns(const Json& values) {
  std::vector<std::string> out;
  for (const auto& row : values)
    if (row.is_object())
      for (const auto& [key, v] : row.items())
        if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  return out;
}

std::string cell_text(const Json& row, const std::string& column, const char* null_text) {
  const auto it = row.find(column);
  if (it == row.end() || it->is_null()) return null_text;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// A value of the figure's data as a CSV field: a string (a seed field, a label) as text a
// spreadsheet will not run, anything else (numbers) as JSON; a missing one empty.
std::string csv_value(const Json& row, const std::string& column) {
  const auto it = row.find(column);
  if (it == row.end() || it->is_null()) return "";
  return it->is_string() ? csv_text(it->get_ref<const std::string&>()) : csv_field(it->dump());
}

}  // namespace

std::string figure_csv(const Figure& f) {
  const Json* values = values_of(f);
  if (!values) return "";
  const std::vector<std::string> cols = columns(*values);
  std::string out;
  // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict, its bug 105329)
  // about `const char* + std::string&&`.
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (i) out += ',';
    out += csv_text(cols[i]);
  }
  out += "\n";
  for (const auto& row : *values) {
    if (!row.is_object()) continue;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (i) out += ',';
      out += csv_value(row, cols[i]);
    }
    out += "\n";
  }
  return out;
}

Table figure_table(const Figure& f) {
  Table t;
  const Json* values = values_of(f);
  if (!values) return t;
  t.header = columns(*values);
  for (const auto& col : t.header) {
    bool numeric = false;
    for (const auto& row : *values)
      if (auto it = row.find(col); it != row.end() && it->is_number()) numeric = true;
    t.numeric.push_back(numeric);
  }
  for (const auto& row : *values) {
    if (!row.is_object()) continue;
    std::vector<std::string> cells;
    for (const auto& col : t.header) cells.push_back(cell_text(row, col, kMissing));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::string figure_id(const Figure& f, std::size_t index) {
  if (f.file.empty()) return "figure-" + std::to_string(index + 1);
  const auto slash = f.file.rfind('/');
  return slash == std::string::npos ? f.file : f.file.substr(slash + 1);
}

}  // namespace mirac::report
