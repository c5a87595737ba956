// parse.cpp: runs the grammar one declaration at a time and turns each parse tree into
// AST nodes. Recovery: after a syntax error, skip to the next line that starts with a
// declaration keyword.
#include "interpreter/parse/parse.hpp"
#include "interpreter/parse/nesting.hpp"
#include "interpreter/parse/builder.hpp"

#include <array>
#include <cstdlib>
#include <fmt/format.h>

#include "grammar/errors.hpp"
#include "grammar/selector.hpp"

namespace mirac {

namespace g = grammar;
namespace pegtl = tao::pegtl;
using Node = pegtl::parse_tree::node;
using parse_detail::Builder;

namespace {

template <typename Rule>
using control = pegtl::must_if<g::error_table>::control<Rule>;

// Finds the innermost '{' still open between `from` and `to`, skipping strings and comments.
std::optional<std::size_t> unclosed_brace(std::string_view text, std::size_t from, std::size_t to) {
  std::vector<std::size_t> open;
  for (std::size_t i = from; i < to && i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '"') {
      bool triple = text.substr(i, 3) == "\"\"\"";
      std::size_t end = triple ? text.find("\"\"\"", i + 3) : i + 1;
      if (!triple) {
        while (end < text.size() && text[end] != '"' && text[end] != '\n') end += text[end] == '\\' ? 2 : 1;
      }
      if (end == std::string_view::npos || end >= to) break;
      i = end + (triple ? 2 : 0);
    } else if (ch == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (ch == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      ++i;
    } else if (ch == '{') {
      open.push_back(i);
    } else if (ch == '}' && !open.empty()) {
      open.pop_back();
    }
  }
  if (open.empty()) return std::nullopt;
  return open.back();
}

constexpr std::array<std::string_view, 25> kDeclarationKeywords = {
    "audit", "use", "factor", "design", "seeds", "checklists", "variant", "text", "prompt", "provider",
    "prices", "model", "defaults", "arm", "judge", "panel", "rubric", "flag", "contrast", "analysis", "report",
    "simulate", "extend", "override", "remove"};

// The byte offset of the next line whose first word is a declaration keyword: the line of
// `from` itself when only blanks precede `from` on it, else a later one.
std::size_t next_declaration(std::string_view text, std::size_t from) {
  std::size_t line_start = text.rfind('\n', from == 0 ? 0 : from - 1);
  line_start = line_start == std::string_view::npos || from == 0 ? 0 : line_start + 1;
  bool blanks_before = text.substr(line_start, from - line_start).find_first_not_of(" \t\r") == std::string_view::npos;
  std::size_t pos = blanks_before && line_start > 0 ? line_start - 1 : text.find('\n', from);
  while (pos != std::string_view::npos) {
    std::size_t line = pos + 1;
    for (auto kw : kDeclarationKeywords) {
      if (text.substr(line, kw.size()) == kw) {
        char after = line + kw.size() < text.size() ? text[line + kw.size()] : ' ';
        if (!std::isalnum(static_cast<unsigned char>(after)) && after != '_') return line;
      }
    }
    pos = text.find('\n', line);
  }
  return text.size();
}

// Comments, found by a small scan that skips string literals; fmt puts them back.
std::vector<ast::Comment> scan_comments(FileId file, const SourceManager& sources) {
  std::vector<ast::Comment> out;
  const std::string& text = sources.text(file);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      if (text.compare(i, 3, "\"\"\"") == 0) {
        std::size_t end = text.find("\"\"\"", i + 3);
        i = end == std::string::npos ? text.size() : end + 2;
      } else {
        ++i;
        while (i < text.size() && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
      }
    } else if (text.compare(i, 2, "//") == 0) {
      std::size_t end = text.find('\n', i);
      if (end == std::string::npos) end = text.size();
      std::size_t trimmed = end;
      while (trimmed > i && (text[trimmed - 1] == '\r' || text[trimmed - 1] == ' ')) --trimmed;
      out.push_back({text.substr(i, trimmed - i), sources.range(file, i, trimmed)});
      i = end;
    } else if (text.compare(i, 2, "/*") == 0) {
      std::size_t end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
      out.push_back({text.substr(i, end - i), sources.range(file, i, end)});
      i = end - 1;
    }
  }
  return out;
}

}  // namespace

std::string decode_string_literal(std::string_view w) {
  if (w.substr(0, 3) == "\"\"\"") {
    // """ text """: drop the newline after the opening quotes and the indentation before
    // the closing ones, then remove the indentation common to all non-blank lines.
    std::string_view body = w.substr(3, w.size() >= 6 ? w.size() - 6 : 0);
    if (!body.empty() && body.front() == '\n') body.remove_prefix(1);
    else if (body.substr(0, 2) == "\r\n") body.remove_prefix(2);
    std::size_t last_nl = body.rfind('\n');
    if (last_nl != std::string_view::npos &&
        body.find_first_not_of(" \t\r", last_nl + 1) == std::string_view::npos)
      body = body.substr(0, last_nl);
    std::vector<std::string_view> lines;
    for (std::size_t start = 0;;) {
      std::size_t nl = body.find('\n', start);
      std::string_view line = body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines.push_back(line);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    std::size_t indent = std::string_view::npos;
    for (auto line : lines) {
      std::size_t first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos) indent = std::min(indent, first);
    }
    if (indent == std::string_view::npos) indent = 0;
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) out += '\n';
      if (lines[i].size() > indent) out += lines[i].substr(indent);
    }
    return out;
  }
  std::string out;
  for (std::size_t i = 1; i + 1 < w.size(); ++i) {
    if (w[i] != '\\') {
      out += w[i];
      continue;
    }
    char e = w[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case 'u': {
        std::size_t close = w.find('}', i);
        unsigned long cp = std::strtoul(std::string(w.substr(i + 2, close - i - 2)).c_str(), nullptr, 16);  // overflow: ULONG_MAX, then U+FFFD
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        i = close;
        break;
      }
      default: out += e; break;  // \" and \\ stand for themselves
    }
  }
  return out;
}

ast::Module parse_module(FileId file, const SourceManager& sources, Diagnostics& diags) {
  ast::Module module;
  module.file = file;
  module.comments = scan_comments(file, sources);
  const std::string& text = sources.text(file);
  const std::string& path = sources.path(file);
  Builder builder(file, sources, diags);
  if (std::size_t deep = too_deeply_nested_at(text); deep != std::string::npos) {
    diags.error(sources.range(file, deep, deep + 1),
                fmt::format("nested more than {} levels deep; split the expression", kMaxSpecNesting));
    return module;
  }

  std::size_t offset = 0;
  // Skip leading blanks and comments (an unterminated comment is a syntax error).
  auto skip_blanks = [&](std::size_t from) -> std::size_t {
    Position p = sources.position(file, from);
    pegtl::memory_input in(text.data() + from, text.data() + text.size(), path, from, p.line, p.column);
    try {
      pegtl::parse<g::ws, pegtl::nothing, control>(in);
      return static_cast<std::size_t>(in.current() - text.data());
    } catch (const pegtl::parse_error& e) {
      diags.error(sources.range(file, e.positions().front().byte, e.positions().front().byte), std::string(e.message()));
      return text.size();
    }
  };
  offset = skip_blanks(0);
  while (offset < text.size()) {
    Position p = sources.position(file, offset);
    pegtl::memory_input in(text.data() + offset, text.data() + text.size(), path, offset, p.line, p.column);
    try {
      auto root = pegtl::parse_tree::parse<g::one_declaration, g::selector, pegtl::nothing, control>(in);
      for (const auto& child : root->children) module.decls.push_back(builder.decl(*child));
      offset = static_cast<std::size_t>(in.current() - text.data());
    } catch (const pegtl::parse_error& e) {
      std::size_t at = e.positions().front().byte;
      std::size_t resume = next_declaration(text, at);
      // A declaration cut short (the next line starts another one, or the file ends) is
      // shown where it stops, after its last token, not at the start of what follows.
      bool cut_short = at == text.size() || (resume == at && at > 0 && text[at - 1] == '\n');
      if (std::size_t last = at == 0 ? std::string::npos : text.find_last_not_of(" \t\r\n", at - 1);
          cut_short && last != std::string::npos && text.find('\n', last) < at) {
        at = last + 1;
      }
      std::string message(e.message());
      if (message == "expected '}'") {
        if (auto open = unclosed_brace(text, offset, at)) {
          message += fmt::format(" (to close '{{' at line {})", sources.position(file, *open).line);
        }
      }
      diags.error(sources.range(file, at, at), message);
      offset = std::max(resume, offset + 1);
    }
    offset = skip_blanks(offset);
  }
  return module;
}

}  // namespace mirac
