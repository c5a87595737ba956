#include "interpreter/model/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include "runtime/providers/secrets.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace mirac {

void Diagnostics::error(SourceRange range, std::string message) {
  list_.push_back({Severity::error, range, "", std::move(message), {}});
}

void Diagnostics::error_at(std::string where, std::string message) {
  list_.push_back({Severity::error, {}, std::move(where), std::move(message), {}});
}

void Diagnostics::warning(SourceRange range, std::string message) {
  list_.push_back({Severity::warning, range, "", std::move(message), {}});
}

void Diagnostics::remark(SourceRange range, std::string message) {
  list_.push_back({Severity::note, range, "", std::move(message), {}});
}

void Diagnostics::append(const Diagnostics& other) {
  list_.insert(list_.end(), other.list_.begin(), other.list_.end());
}

void Diagnostics::note(std::string text) {
  if (!list_.empty()) list_.back().notes.push_back(std::move(text));
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const {
  return static_cast<std::size_t>(std::count_if(
      list_.begin(), list_.end(), [](const Diagnostic& d) { return d.severity == Severity::error; }));
}

namespace {

const char* severity_word(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

std::string location(const Diagnostic& d, const SourceManager& sources) {
  if (!d.range.valid()) return d.where;
  return fmt::format("{}:{}:{}", sources.path(d.range.file), d.range.begin.line, d.range.begin.column);
}

// The caret line: spaces up to the start column (keeping tabs so they line up), then '^'
// and '~' under the rest of the range when it stays on the same line.
std::string caret_line(std::string_view line, const SourceRange& r) {
  std::string out;
  std::size_t byte = 0;
  std::uint32_t col = 1;
  auto advance = [&](std::uint32_t until, bool marks) {
    while (col < until && byte < line.size()) {
      std::size_t len = 1;
      auto b = static_cast<unsigned char>(line[byte]);
      if (b >= 0xF0) len = 4; else if (b >= 0xE0) len = 3; else if (b >= 0xC0) len = 2;
      len = std::min(len, line.size() - byte);
      std::string_view ch = line.substr(byte, len);
      std::size_t width = ch == "\t" ? 1 : display_width(ch);
      char fill = ch == "\t" && !marks ? '\t' : (marks ? '~' : ' ');
      out.append(width, fill);
      byte += len;
      ++col;
    }
  };
  advance(r.begin.column, false);
  out += '^';
  if (byte < line.size()) {
    std::size_t len = 1;
    auto b = static_cast<unsigned char>(line[byte]);
    if (b >= 0xF0) len = 4; else if (b >= 0xE0) len = 3; else if (b >= 0xC0) len = 2;
    std::size_t width = display_width(line.substr(byte, len));
    if (width > 1) out += '~';
    byte += len;
    ++col;
  }
  if (r.end.line == r.begin.line && r.end.column > col) advance(r.end.column, true);
  return out;
}

// The source line as printed: keys masked, and each byte that is not UTF-8 as '?', one
// column like the byte it replaces, so that the terminal shows no mojibake.
std::string printable(std::string_view line) {
  std::string out(line);
  for (std::size_t at; (at = invalid_utf8_at(out)) != std::string::npos;) out[at] = '?';
  return mask_key_shapes(std::move(out));
}

// The diagnostics in the order they are shown: by file, line and column, ties as found.
std::vector<const Diagnostic*> by_place(const std::vector<Diagnostic>& list, const SourceManager& sources) {
  std::vector<const Diagnostic*> sorted;
  for (const auto& d : list) sorted.push_back(&d);
  auto key = [&](const Diagnostic* d) {
    std::string file = d->range.valid() ? sources.path(d->range.file) : d->where;
    return std::tuple(file, d->range.begin.line, d->range.begin.column);
  };
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const Diagnostic* a, const Diagnostic* b) { return key(a) < key(b); });
  return sorted;
}

}  // namespace

void Diagnostics::print(std::ostream& out, const SourceManager& sources) const {
  const std::vector<const Diagnostic*> sorted = by_place(list_, sources);
  for (const Diagnostic* d : sorted) {
    // A spec line or a message may quote a key (the refusal of `api_key "sk-..."` quotes
    // the line that holds it): what is printed shows no key.
    out << location(*d, sources) << ": "
        << severity_word(d->severity) << ": " << mask_key_shapes(d->message) << '\n';
    if (d->range.valid()) {
      const std::string line = printable(sources.line(d->range.file, d->range.begin.line));
      out << line << '\n' << caret_line(line, d->range) << '\n';
    }
    for (const auto& n : d->notes) out << "note: " << mask_key_shapes(n) << '\n';
  }
  std::size_t errors = error_count();
  const auto warnings = static_cast<std::size_t>(std::count_if(
      list_.begin(), list_.end(), [](const Diagnostic& d) { return d.severity == Severity::warning; }));
  if (errors > 0) out << errors << (errors == 1 ? " error" : " errors") << " generated.\n";
  if (warnings > 0) out << warnings << (warnings == 1 ? " warning" : " warnings") << " generated.\n";
}

std::string Diagnostics::json(const SourceManager& sources) const {
  const std::vector<const Diagnostic*> sorted = by_place(list_, sources);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Diagnostic* d : sorted) {
    nlohmann::ordered_json j;
    const bool placed = d->range.valid();
    j["file"] = placed ? sources.path(d->range.file) : d->where;
    j["line"] = placed ? nlohmann::ordered_json(d->range.begin.line) : nlohmann::ordered_json();
    j["column"] = placed ? nlohmann::ordered_json(d->range.begin.column) : nlohmann::ordered_json();
    j["end_line"] = placed ? nlohmann::ordered_json(d->range.end.line) : nlohmann::ordered_json();
    j["end_column"] = placed ? nlohmann::ordered_json(d->range.end.column) : nlohmann::ordered_json();
    j["severity"] = severity_word(d->severity);
    j["message"] = mask_key_shapes(d->message);
    j["notes"] = nlohmann::ordered_json::array();
    for (const auto& n : d->notes) j["notes"].push_back(mask_key_shapes(n));
    list.push_back(std::move(j));
  }
  return list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

bool require_utf8(const SourceManager& sources, FileId file, const std::string& what, Diagnostics& diags) {
  const std::string& text = sources.text(file);
  std::size_t at = invalid_utf8_at(text);
  if (at == std::string::npos) return true;
  diags.error(sources.range(file, at, at + 1), invalid_utf8_message(text, at, what));
  return false;
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  // Levenshtein distance, case-insensitive; a suggestion must be within a third of the length.
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string a = lower(name);
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, (a.size() + 2) / 3) + 1;
  for (const auto& candidate : candidates) {
    std::string b = lower(candidate);
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    if (row[b.size()] < best_distance) {
      best_distance = row[b.size()];
      best = candidate;
    }
  }
  return best;
}

std::string with_suggestion(std::string message, const std::string& name,
                            const std::vector<std::string>& candidates) {
  std::string best = closest_name(name, candidates);
  if (!best.empty()) message += fmt::format("; did you mean '{}'?", best);
  return message;
}

}  // namespace mirac
