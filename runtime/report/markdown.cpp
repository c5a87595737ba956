// markdown.cpp: the report as GitHub-flavoured Markdown; figures are image links to the
// SVG files written next to it.
#include <fmt/format.h>

#include "runtime/report/document.hpp"

namespace mirac::report {

namespace {

// A table cell: a `|` would end the cell and a line break the row.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

void table(std::string& out, const Table& t) {
  if (!t.caption.empty()) out += fmt::format("**{}**\n\n", t.caption);
  out += "|";
  for (const auto& h : t.header) out += " " + cell(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += i < t.numeric.size() && t.numeric[i] ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (std::size_t i = 0; i < t.header.size(); ++i) out += " " + cell(i < row.size() ? row[i] : "") + " |";
    out += "\n";
  }
  out += "\n";
}

// Image alt text ends at the first `]`.
std::string alt(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string to_markdown(const Document& doc) {
  std::string out = fmt::format("# {}\n\n", doc.title);
  if (!doc.banner.empty()) out += fmt::format("> **{}**\n\n", doc.banner);
  if (!doc.provenance.empty()) out += doc.provenance + "\n\n";
  for (const auto& block : doc.blocks) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += fmt::format("{} {}\n\n", std::string(static_cast<std::size_t>(h->level), '#'), h->text);
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += p->text + "\n\n";
    } else if (const auto* n = std::get_if<Note>(&block)) {
      out += fmt::format("> **Note:** {}\n\n", n->text);
    } else if (const auto* t = std::get_if<Table>(&block)) {
      table(out, *t);
    } else if (const auto* f = std::get_if<Figure>(&block)) {
      out += fmt::format("![{}]({})\n\n", alt(f->title), f->file);
    }
  }
  // One trailing newline, not a blank line, at the end of the file.
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace mirac::report
