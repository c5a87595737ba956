// markdown.cpp: the report as GitHub-flavoured Markdown. Markdown runs no scripts, so a
// figure is its title, links to where it is drawn (report.html) and to its files (the
// data as CSV, the Vega-Lite spec), and its data as a table.
#include <fmt/format.h>

#include "runtime/report/document.hpp"
#include "runtime/report/figure_data.hpp"

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

void markdown_table(std::string& out, const Table& t) {
  if (!t.caption.empty()) out += fmt::format("**{}**\n\n", t.caption);
  if (t.rows.empty() && !t.empty_because.empty()) {  // the reason in place of an empty grid
    out += fmt::format("> {}\n\n", t.empty_because);
    return;
  }
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

// Link text ends at the first `]`.
std::string link_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

void figure(std::string& out, const Figure& f, const std::string& html_file, std::size_t index) {
  out += fmt::format("**Figure: {}** ([drawn in {}]({}#{})", link_text(f.title), html_file, html_file, figure_id(f, index));
  if (!f.file.empty()) out += fmt::format("; data [{0}.csv]({0}.csv), spec [{0}.vl.json]({0}.vl.json)", f.file);
  out += ")\n\n";
  markdown_table(out, figure_table(f));
}

}  // namespace

std::string to_markdown(const Document& doc) {
  std::string out = fmt::format("# {}\n\n", doc.title);
  if (!doc.banner.empty()) out += fmt::format("> **{}**\n\n", doc.banner);
  if (!doc.provenance.empty()) out += doc.provenance + "\n\n";
  std::size_t index = 0;
  for (const auto& block : doc.blocks) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      out += fmt::format("{} {}\n\n", std::string(static_cast<std::size_t>(h->level), '#'), h->text);
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += p->text + "\n\n";
    } else if (const auto* n = std::get_if<Note>(&block)) {
      out += fmt::format("> **Note:** {}\n\n", n->text);
    } else if (const auto* t = std::get_if<Table>(&block)) {
      markdown_table(out, *t);
    } else if (const auto* f = std::get_if<Figure>(&block)) {
      figure(out, *f, doc.html_file, index++);
    }
  }
  // One trailing newline, not a blank line, at the end of the file.
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace mirac::report
