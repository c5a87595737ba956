// html_escape_test.cpp: runtime/text/html_escape (the escapers every page uses for untrusted
// text), and the pages written with them: report.html and the annotation page keep hostile
// text as text, whatever it holds (tests/browser/hostile_text_test.cpp opens them).
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engine/annotate/sample.hpp"
#include "runtime/report/document.hpp"
#include "runtime/report/libraries.hpp"
#include "runtime/text/html_escape.hpp"

namespace {

using Json = nlohmann::ordered_json;

const std::string kLineSeparator = "\xE2\x80\xA8", kParagraphSeparator = "\xE2\x80\xA9";

// What an answer, a prompt, a rationale or a seed field may hold.
const std::vector<std::string> kPayloads = {
    "<!--<script>",
    "</script><script>window.__pwned=1</script>",
    "<img src=x onerror=\"window.__pwned=1\">",
    "\"><svg onload=window.__pwned=1>",
    "'><svg onload='window.__pwned=1'>",
    "before" + kLineSeparator + "middle" + kParagraphSeparator + "after",
    "{{constructor.constructor('window.__pwned=1')()}}",
    "]]>",
    "--!>",
    "&lt;b&gt; stays an entity's text",
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("html_escape: the five characters of markup as references, everything else as it is") {
  CHECK(mirac::html_escape("a < b > c & \"d\" 'e'") == "a &lt; b &gt; c &amp; &quot;d&quot; &#39;e&#39;");
  CHECK(mirac::html_escape("<img src=x onerror=\"alert(1)\">") == "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  CHECK(mirac::html_escape("&lt;") == "&amp;lt;");  // an entity in the data is text, not a character
  CHECK(mirac::html_escape("caf\xC3\xA9 \xE4\xB8\xAD " + kLineSeparator) == "caf\xC3\xA9 \xE4\xB8\xAD " + kLineSeparator);
  CHECK(mirac::html_escape("") == "");
  for (const auto& p : kPayloads) {
    const std::string e = mirac::html_escape(p);
    CHECK(e.find_first_of("<>\"'") == std::string::npos);
  }
}

TEST_CASE("script_json: no markup, no line separator, and the same JSON value") {
  for (const auto& p : kPayloads) {
    CAPTURE(p);
    const Json value = {{"answer", p}, {"list", {p, 1, -0.5, nullptr}}};
    const std::string text = mirac::script_json(value.dump());
    CHECK(text.find_first_of("<>&") == std::string::npos);
    CHECK(text.find(kLineSeparator) == std::string::npos);
    CHECK(text.find(kParagraphSeparator) == std::string::npos);
    CHECK(Json::parse(text) == value);  // what the page's JSON.parse reads
  }
  CHECK(mirac::script_json(R"({"a":"</script>"})") == R"({"a":"\u003c/script\u003e"})");
  CHECK(mirac::script_json(R"(["<!--","a&b"])") == R"(["\u003c!--","a\u0026b"])");
  CHECK(mirac::script_json("[\"" + kLineSeparator + kParagraphSeparator + "\"]") == R"(["\u2028\u2029"])");
  // Other three-byte characters starting with E2 80 (an em dash, a bullet) are untouched.
  CHECK(mirac::script_json("[\"\xE2\x80\x94\xE2\x80\xA2\"]") == "[\"\xE2\x80\x94\xE2\x80\xA2\"]");
}

TEST_CASE("report.html keeps hostile text out of its markup and its figures' script") {
  mirac::report::Document doc;
  doc.title = kPayloads[1];
  doc.provenance = "spec `" + kPayloads[2] + "`";
  doc.blocks.push_back(mirac::report::Heading{kPayloads[3], 2, "h"});
  doc.blocks.push_back(mirac::report::Paragraph{kPayloads[0] + " `" + kPayloads[1] + "`"});
  doc.blocks.push_back(mirac::report::Note{kPayloads[4]});
  mirac::report::Table table;
  table.caption = kPayloads[2];
  table.header = {"category", "mean"};
  table.numeric = {false, true};
  for (const auto& p : kPayloads) table.rows.push_back({p, "-0.25"});
  table.answers = {{"", "seed=" + kPayloads[3]}};
  doc.blocks.push_back(table);
  Json values = Json::array();
  for (const auto& p : kPayloads) values.push_back({{"category", p}, {"seeds", 1}});
  doc.blocks.push_back(mirac::report::Figure{kPayloads[1], "f", "figures/f",
                                             Json{{"data", {{"values", values}}}, {"mark", "bar"}}});
  std::string html = mirac::report::to_html(doc);
  // The chart libraries are mirac's own code, not data: left out of what is counted.
  const std::string libraries(mirac::report::chart_libraries());
  const auto at = html.find(libraries);
  REQUIRE(at != std::string::npos);
  html.erase(at, libraries.size());
  // The only elements are mirac's own: two scripts (libraries and figures), no img or svg.
  CHECK(count(html, "<script") == 2);
  CHECK(count(html, "</script>") == 2);
  CHECK(count(html, "<img") == 0);
  CHECK(count(html, "<svg") == 0);
  CHECK(count(html, "<!--") == 0);
  CHECK(html.find("&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;") != std::string::npos);
  CHECK(html.find("data-answers=\"seed=&quot;&gt;&lt;svg onload=window.__pwned=1&gt;\"") != std::string::npos);
  // The figures' literal parses back to the data as given.
  const auto open = html.find("const figures = [\n  "), close = html.find("\n];\n", open);
  REQUIRE(open != std::string::npos);
  const std::string literal = html.substr(open + 20, close - open - 20);
  CHECK(literal.find(kLineSeparator) == std::string::npos);  // in HTML text they are fine; in a script, escaped
  CHECK(literal.find(kParagraphSeparator) == std::string::npos);
  const Json figures = Json::parse("[" + literal + "]");
  CHECK(figures[0][1]["data"]["values"] == values);
}

TEST_CASE("the annotation page's data block cannot be closed by what the answers hold") {
  Json items = Json::array();
  for (std::size_t i = 0; i < kPayloads.size(); ++i)
    items.push_back({{"item", i + 1}, {"id", "h" + std::to_string(i)}, {"prompt_id", kPayloads[i]},
                     {"prompt", kPayloads[i]}, {"answer", "<!-- then <script> then " + kPayloads[i]},
                     {"checklist", {{"required_elements", {kPayloads[i]}}}}});
  const Json data = {{"spec", "hostile"}, {"title", ""}, {"simulated", false}, {"scale", {1, 5}},
                     {"dims", Json::array()}, {"items", items}};
  const std::string html = mirac::annotation_page(data);
  CHECK(count(html, "<script") == 2);  // the data block and the page's script
  CHECK(count(html, "</script>") == 2);
  const auto open = html.find("id=\"annotation-data\">") + 21, close = html.find("</script>", open);
  const std::string block = html.substr(open, close - open);
  CHECK(count(block, "<!--") == 0);
  // The page's own comments (web/annotate/page.html) are all it holds: the data adds none.
  Json benign = data;
  benign["items"] = Json::array();
  CHECK(count(html, "<!--") == count(mirac::annotation_page(benign), "<!--"));
  CHECK(Json::parse(block) == data);
}
