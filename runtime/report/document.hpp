// document.hpp: a report as a list of blocks, built once from the spec and results.json
// and then printed as Markdown and as HTML, so that the two always say the same thing.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace mirac::report {

struct Heading {
  std::string text;
  int level = 2;  ///< 2: a `section`; 3: the title of one table or figure
  std::string id = {};  ///< the HTML anchor (a named report item's name); "": none
};
struct Paragraph {
  std::string text;
};
/// Something the reader must know in place: data missing from results.json, an analysis
/// that failed, an option the data cannot honour.
struct Note {
  std::string text;
};
struct Table {
  std::string caption;
  std::vector<std::string> header;
  std::vector<bool> numeric;  ///< per column: right-aligned
  std::vector<std::vector<std::string>> rows;
  /// Per row and column, the answers a cell stands for as a query of `mirac view`'s answer
  /// list ("model=mini&arm=baseline&scored_on=D3"); "" (or a row or column left out): none.
  /// report.html keeps them as `data-answers` attributes, which do nothing in the file;
  /// `mirac view`, serving the page, adds a script that makes those cells links into the
  /// view. report.md, with no view to link to, leaves them out.
  std::vector<std::vector<std::string>> answers;
  std::string id = {};  ///< the HTML anchor (a named report item's name); "": none
  /// With no rows: why the table is empty and how to supply what it needs (people's
  /// scores, a data file), shown in its place under its caption instead of an empty grid.
  /// Text between backticks prints as code.
  std::string empty_because = {};
};
/// A chart as a Vega-Lite spec holding its data (`data.values`: flat rows, the same
/// columns in each). report.html draws it; report.md shows its data as a table and links
/// the spec and the data, written beside the report as files.
struct Figure {
  std::string title;
  std::string stem;  ///< file name without directory and extension, before de-duplication
  std::string file;  ///< "figures/STEM" (".vl.json", ".csv"), set when the report's files are named
  nlohmann::ordered_json spec;
};
using Block = std::variant<Heading, Paragraph, Note, Table, Figure>;

struct Document {
  std::string title;
  /// One line; text between backticks prints as code ("spec `otc` · 48 score rows").
  std::string provenance;
  /// Above everything, where nobody can miss it (simulated answers); empty: none.
  std::string banner;
  std::vector<Block> blocks;
  /// The HTML page of the same report, which report.md links for the drawn figures.
  std::string html_file = "report.html";
};

std::string to_markdown(const Document& doc);
/// One self-contained page: inline CSS; with figures, the chart libraries inline and one
/// script drawing each figure into its container. Nothing is loaded from elsewhere.
std::string to_html(const Document& doc);

}  // namespace mirac::report
