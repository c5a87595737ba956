// source.hpp: source files, positions and ranges. Spec files and data files alike are
// registered here, so that a diagnostic can show the offending line of either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mirac {

using FileId = int;

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

 private:
  struct File {
    std::string path;
    std::string text;
    std::vector<std::size_t> line_starts;
  };
  std::vector<File> files_;
};

/// Number of code points in a UTF-8 string (invalid bytes count one each).
std::size_t utf8_length(std::string_view text);
/// Terminal columns a UTF-8 string occupies (East Asian wide characters count two).
std::size_t display_width(std::string_view text);

}  // namespace mirac
