// source.hpp: source files, positions and ranges. Spec files and data files alike are
// registered here, so that a diagnostic can show the offending line of either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mirac {

using FileId = int;

struct DataTable;  // data.hpp

/// A position: 1-based line, 1-based column counted in code points, byte offset.
struct Position {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::size_t byte = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

struct SourceRange {
  FileId file = -1;
  Position begin, end;
  bool valid() const { return file >= 0 && begin.line > 0; }
};

/// Owns the text of every file read during one compilation.
class SourceManager {
 public:
  FileId add(std::string path, std::string text);
  const std::string& path(FileId id) const { return files_.at(id).path; }
  const std::string& text(FileId id) const { return files_.at(id).text; }
  std::size_t size() const { return files_.size(); }
  /// The text of a 1-based line, without its line terminator.
  std::string_view line(FileId id, std::uint32_t line) const;
  /// The position of a byte offset in a file.
  Position position(FileId id, std::size_t byte) const;
  /// A range covering [begin, end) bytes.
  SourceRange range(FileId id, std::size_t begin, std::size_t end) const;

  /// Data files parsed during this compilation, by what identifies a read (path, format,
  /// name shown): MIRA's 4 MB prompt file is both its lock and a source of texts, and was
  /// parsed twice by every command. read_table() uses an entry only while the file's bytes
  /// are still the ones it was parsed from.
  std::map<std::string, std::shared_ptr<const DataTable>>& parsed_tables() { return parsed_tables_; }

 private:
  struct File {
    std::string path;
    std::string text;
    std::vector<std::size_t> line_starts;
  };
  std::vector<File> files_;
  std::map<std::string, std::shared_ptr<const DataTable>> parsed_tables_;
};

/// The whole text of a regular file (symlinks followed). Anything else is refused with a
/// reason in `why`: reading a directory fails oddly, and a FIFO or a device blocks or never
/// ends. nullopt when refused or unreadable.
std::optional<std::string> read_regular_file(const std::filesystem::path& path, std::string& why);

/// The byte offset of the first byte that is not well-formed UTF-8 (overlong forms,
/// surrogates and code points above U+10FFFF included), or npos when the text is valid.
std::size_t invalid_utf8_at(std::string_view text);

/// "invalid UTF-8 (byte 0xFF) in <what>; ..." for the byte at `at`, shared by every reader.
std::string invalid_utf8_message(std::string_view text, std::size_t at, const std::string& what);

/// Number of code points in a UTF-8 string (invalid bytes count one each).
std::size_t utf8_length(std::string_view text);
/// Terminal columns a UTF-8 string occupies (East Asian wide characters count two).
std::size_t display_width(std::string_view text);

}  // namespace mirac
