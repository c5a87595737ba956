#include "interpreter/model/source.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

namespace mirac {

FileId SourceManager::add(std::string path, std::string text) {
  File file{std::move(path), std::move(text), {0}};
  for (std::size_t i = 0; i < file.text.size(); ++i) {
    if (file.text[i] == '\n') file.line_starts.push_back(i + 1);
  }
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size() - 1);
}

std::string_view SourceManager::line(FileId id, std::uint32_t line) const {
  const File& f = files_.at(id);
  if (line == 0 || line > f.line_starts.size()) return {};
  std::size_t begin = f.line_starts[line - 1];
  std::size_t end = line < f.line_starts.size() ? f.line_starts[line] : f.text.size();
  std::string_view text(f.text.data() + begin, end - begin);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

Position SourceManager::position(FileId id, std::size_t byte) const {
  const File& f = files_.at(id);
  byte = std::min(byte, f.text.size());
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), byte);
  auto line = static_cast<std::uint32_t>(it - f.line_starts.begin());
  std::size_t start = f.line_starts[line - 1];
  auto column = static_cast<std::uint32_t>(
      utf8_length(std::string_view(f.text.data() + start, byte - start)) + 1);
  return {line, column, byte};
}

SourceRange SourceManager::range(FileId id, std::size_t begin, std::size_t end) const {
  return {id, position(id, begin), position(id, end)};
}

namespace {

// Decodes one code point; returns its length in bytes (1 for an invalid byte).
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) {
  auto b = static_cast<unsigned char>(s[i]);
  std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    cp = b;
    return 1;
  }
  cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) {
      cp = b;
      return 1;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  return len;
}

bool is_wide(char32_t cp) {
  // East Asian Wide and Fullwidth ranges (Unicode 15, EastAsianWidth.txt W/F), coarse.
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) ||
         (cp >= 0x3041 && cp <= 0x33FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
         (cp >= 0x20000 && cp <= 0x3FFFD);
}

}  // namespace

std::optional<std::string> read_regular_file(const std::filesystem::path& path, std::string& why) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);  // stat, not open: a FIFO must not block us
  if (ec || status.type() == std::filesystem::file_type::not_found) {
    why = "no such file";
    return std::nullopt;
  }
  if (status.type() == std::filesystem::file_type::directory) {
    why = "it is a directory";
    return std::nullopt;
  }
  if (status.type() != std::filesystem::file_type::regular) {
    why = "it is not a regular file (a FIFO, socket or device)";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = "permission denied or unreadable";
    return std::nullopt;
  }
  // Read straight into a string of the file's size (a stringstream would grow and copy a
  // 4 MB prompt file several times); then whatever a writer appended meanwhile.
  std::string bytes;
  const auto size = std::filesystem::file_size(path, ec);
  bytes.resize(ec ? 0 : static_cast<std::size_t>(size));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  char more[1 << 14];
  while (in) {
    in.read(more, sizeof more);
    bytes.append(more, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    why = "read error";
    return std::nullopt;
  }
  return bytes;
}

std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = (b >= 0xC2 && b <= 0xDF) ? 2 : (b >= 0xE0 && b <= 0xEF) ? 3 : (b >= 0xF0 && b <= 0xF4) ? 4 : 0;
    if (len == 0 || i + len > text.size()) return i;
    auto second = static_cast<unsigned char>(text[i + 1]);
    // The second byte's range excludes overlong forms, surrogates and code points > U+10FFFF.
    unsigned char lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
    if (second < lo || second > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string invalid_utf8_message(std::string_view text, std::size_t at, const std::string& what) {
  return fmt::format("invalid UTF-8 (byte 0x{:02X}) in {}; save it as UTF-8", static_cast<unsigned char>(text[at]),
                     what);
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  char32_t cp;
  for (std::size_t i = 0; i < text.size(); i += decode(text, i, cp)) ++n;
  return n;
}

std::size_t display_width(std::string_view text) {
  std::size_t w = 0;
  char32_t cp;
  for (std::size_t i = 0; i < text.size();) {
    i += decode(text, i, cp);  // decode first: the body reads the code point just decoded
    w += is_wide(cp) ? 2 : 1;
  }
  return w;
}

}  // namespace mirac
