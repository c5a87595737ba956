// html.cpp: the report as one self-contained HTML page. Everything it needs is inside it
// (CSS in <style>; with figures, the chart libraries and each figure's Vega-Lite spec in
// <script>), so it can be mailed or archived as one file and opened offline: the page
// loads nothing from anywhere.
#include <fmt/format.h>

#include "runtime/report/document.hpp"
#include "runtime/report/figure_data.hpp"
#include "runtime/report/libraries.hpp"
#include "runtime/text/html_escape.hpp"

namespace mirac::report {

namespace {

constexpr const char* kStyle = R"(body { font-family: Helvetica, Arial, sans-serif; color: #222; margin: 0; }
main { max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; }
h2 { font-size: 1.3rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; }
p.provenance { color: #555; font-size: 0.9rem; }
p.provenance, p.note, div.empty-table { overflow-wrap: anywhere; }
div.table-wrap { max-width: 100%; overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; font-size: 0.9rem; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #999; vertical-align: bottom; min-width: 4rem; overflow-wrap: break-word; }
td { overflow-wrap: break-word; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
div.empty-table { margin: 1rem 0; padding: 0.5rem 0.8rem; border: 1px dashed #999; background: #f7f7f7; }
div.empty-table p { margin: 0.3rem 0; }
figure { margin: 1rem 0; }
figure .chart { width: 100%; }
figcaption { font-size: 0.9rem; color: #555; }
p.note { background: #fff6e0; border-left: 4px solid #e69f00; padding: 0.4rem 0.6rem; }
div.banner { position: sticky; top: 0; z-index: 10; background: #b00020; color: #fff; padding: 0.6rem 1rem;
  font-weight: bold; text-align: center; }
)";

// Draws every figure into its container. SVG rather than canvas, so that what the reader
// exports is as sharp as the page; the export actions only (no links to the online editor,
// which would send the data elsewhere). A figure that fails says so in its place and on
// the console, where the tests look. A mirac built without its chart libraries
// (MIRAC_CHARTS=OFF) says so in each figure's place instead.
constexpr const char* kDrawFigures = R"(for (const [id, spec] of figures) {
  if (typeof vegaEmbed === "undefined") {
    document.getElementById(id).textContent = "This mirac was built without its chart libraries (MIRAC_CHARTS=OFF), " +
      "so the figure is not drawn; its data is beside this page, in figures/.";
    continue;
  }
  vegaEmbed("#" + id, spec, {mode: "vega-lite", renderer: "svg", downloadFileName: id,
                             actions: {export: true, source: false, compiled: false, editor: false}})
    .catch(error => {
      document.getElementById(id).textContent = "This figure could not be drawn: " + error;
      console.error(error);
    });
}
)";

// A figure's id or Vega-Lite spec as a literal of the page's script. Specs carry data
// (seed fields, level labels) that may hold `</script>` or `<!--`: script_json keeps them
// inside the element. Bytes that are not UTF-8 become U+FFFD rather than failing the page.
std::string script_literal(const nlohmann::ordered_json& j) {
  return script_json(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

// `a` -> <code>a</code>, the rest escaped.
std::string code_spans(const std::string& text) {
  std::string out;
  bool code = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    std::string part = html_escape(text.substr(start, i - start));
    out += code ? "<code>" + part + "</code>" : part;
    code = !code;
    start = i + 1;
  }
  return out;
}

// The answers of row `r`, column `c` ("" when the table names none there).
const std::string& answers_of(const Table& t, std::size_t r, std::size_t c) {
  static const std::string none;
  return r < t.answers.size() && c < t.answers[r].size() ? t.answers[r][c] : none;
}

// Each table in a box of its own that scrolls sideways when the table is wider than the
// page, so that a wide table (one column per flag) never makes the page itself wider than
// the window. An empty table with a reason shows the reason in its place.
void html_table(std::string& out, const Table& t) {
  const std::string id = t.id.empty() ? "" : fmt::format(" id=\"{}\"", html_escape(t.id));
  if (t.rows.empty() && !t.empty_because.empty()) {
    out += fmt::format("<div class=\"empty-table\"{}>\n", id);
    if (!t.caption.empty()) out += fmt::format("<p><strong>{}</strong></p>\n", html_escape(t.caption));
    out += fmt::format("<p>{}</p>\n</div>\n", code_spans(t.empty_because));
    return;
  }
  auto cls = [&](std::size_t i) { return i < t.numeric.size() && t.numeric[i] ? " class=\"num\"" : ""; };
  out += fmt::format("<div class=\"table-wrap\">\n<table{}>\n", id);
  if (!t.caption.empty()) out += fmt::format("<caption>{}</caption>\n", html_escape(t.caption));
  out += "<thead><tr>";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += fmt::format("<th{}>{}</th>", cls(i), html_escape(t.header[i]));
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    out += "<tr>";
    for (std::size_t i = 0; i < t.header.size(); ++i) {
      // Inert in the file: mirac view, serving the page, makes such cells links.
      const std::string& answers = answers_of(t, r, i);
      const std::string data = answers.empty() ? "" : fmt::format(" data-answers=\"{}\"", html_escape(answers));
      out += fmt::format("<td{}{}>{}</td>", cls(i), data, html_escape(i < row.size() ? row[i] : ""));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n</div>\n";
}

}  // namespace

std::string to_html(const Document& doc) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n", html_escape(doc.title), kStyle);
  if (!doc.banner.empty()) out += fmt::format("<div class=\"banner\" id=\"simulated-banner\" role=\"alert\">{}</div>\n", code_spans(doc.banner));
  out += "<main>\n";
  out += fmt::format("<h1>{}</h1>\n", html_escape(doc.title));
  if (!doc.provenance.empty()) out += fmt::format("<p class=\"provenance\">{}</p>\n", code_spans(doc.provenance));
  std::string figures;
  std::size_t index = 0;
  for (const auto& block : doc.blocks) {
    if (const auto* h = std::get_if<Heading>(&block)) {
      const std::string id = h->id.empty() ? "" : fmt::format(" id=\"{}\"", html_escape(h->id));
      out += fmt::format("<h{0}{1}>{2}</h{0}>\n", h->level, id, html_escape(h->text));
    } else if (const auto* p = std::get_if<Paragraph>(&block)) {
      out += fmt::format("<p>{}</p>\n", code_spans(p->text));
    } else if (const auto* n = std::get_if<Note>(&block)) {
      out += fmt::format("<p class=\"note\"><strong>Note:</strong> {}</p>\n", html_escape(n->text));
    } else if (const auto* t = std::get_if<Table>(&block)) {
      html_table(out, *t);
    } else if (const auto* f = std::get_if<Figure>(&block)) {
      const std::string id = figure_id(*f, index++);
      out += fmt::format("<figure>\n<div class=\"chart\" id=\"{}\" role=\"img\" aria-label=\"{}\"></div>\n"
                         "<figcaption>{}</figcaption>\n</figure>\n",
                         html_escape(id), html_escape(f->title), html_escape(f->title));
      figures += fmt::format("{}[{}, {}]", figures.empty() ? "" : ",\n  ", script_literal(id), script_literal(f->spec));
    }
  }
  out += "</main>\n";
  // The libraries only when there is something to draw: they are most of the page's size.
  if (!figures.empty())
    out += fmt::format("<script>\n{}</script>\n<script>\nconst figures = [\n  {}\n];\n{}</script>\n",
                       chart_libraries(), figures, kDrawFigures);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace mirac::report
