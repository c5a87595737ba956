// hostile_text_test.cpp: untrusted text in every page people open, in headless Chromium.
// A real `mirac run` against a loopback model (tests/cli/hostile_provider.hpp) stores
// answers, prompts, rationales, seed ids, seed fields and checklists full of markup,
// script and separators (`<!--<script>`, `</script><script>...`, `<img onerror>`,
// `"><svg onload>`, U+2028, `{{`, `]]>`, `--!>`). Then report.html, every page of
// `mirac view` (the answers, the pairs, the report it serves with links) and the annotation
// page must run none of it (no window.__pwned, no mark on the page, no dialog), turn none
// of it into elements (no <img>, no stray <svg>, no on* attribute), show it as text, and
// still work: no console error, every row and figure there. Saving the annotation sheet with
// formula-like comments and importing it gives the comments back as typed. Screenshots go
// to $MIRAC_ARTIFACT_DIR.
#include <doctest/doctest.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/store/annotations.hpp"
#include "tests/browser/chromium.hpp"
#include "tests/cli/hostile_provider.hpp"
#include "tests/cli/mirac_binary.hpp"
#include "tests/cli/view_server.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// What a payload does if it ever runs: a global for the pages the test instruments, and a
// mark on the page for those it only reads (`mirac view`'s, served).
const std::string kRun = "window.__pwned=1,document.documentElement.dataset.pwned=1";
const std::string kLineSeparator = "\xE2\x80\xA8", kParagraphSeparator = "\xE2\x80\xA9";

// Last, `<!--<script>` with no `-->` after it: in a <script> element whose text is not
// escaped, the HTML parser is then in its double-escaped state at the element's end tag and
// does not end it, and the page goes blank (the bug of issue 26).
const std::vector<std::string> kPayloads = {
    "</script><script>" + kRun + "</script>",
    "<img src=x onerror=\"" + kRun + "\">",
    "\"><svg onload=\"" + kRun + "\">",
    "'><svg onload='" + kRun + "'>",
    "line" + kLineSeparator + "separator" + kParagraphSeparator + "paragraph",
    "{{constructor.constructor('" + kRun + "')()}}",
    "]]>",
    "--!>",
    "<!--<script>" + kRun + "</script>-->",
    "&lt;b&gt; is text",
    "<!--<script>",
};

std::string all_payloads() {
  std::string out;
  for (const auto& p : kPayloads) out += p + " ";
  return out;
}

// Seed fields a report counts must be short (60 bytes at most, engine/analyze/seeds.cpp).
const std::vector<std::string> kCategories = {"</script><script>window.__pwned=1</script>",
                                              "<img src=x onerror=window.__pwned=1>", "\"><svg onload=alert(1)>"};
const std::vector<std::string> kSeedIds = {"<img src=x onerror=\"" + kRun + "\">", "\"><svg onload=\"" + kRun + "\">",
                                           "<!--<script>", "]]>--!>{{x}}" + kLineSeparator};

// The model's answer to a prompt: a payload first (the list's snippet shows it), then the prompt.
std::string answer_to(const std::string& prompt) { return kPayloads[1] + " Answer to: " + prompt; }

// Comments typed on the annotation page, which the saved CSV must carry and import as typed.
const std::vector<std::string> kComments = {"=HYPERLINK(\"http://x\",\"y\")", "=cmd|' /C calc'!A0", "@SUM(A1)", "+1",
                                            "-1+2", "\tleading tab", "'=already quoted", "plain, with a comma"};

void write_fixture(const fs::path& dir, const std::string& base_url) {
  std::ofstream spec(dir / "hostile.audit");
  spec << "audit hostile { title \"Hostile text\" }\n"
          "use stdlib.mira.rubric\n"
          "provider canned { protocol openai_chat base_url \"" << base_url << "\" key_env \"\" }\n"
          "factor tone { calm anxious }\n"
          "seeds from jsonl(\"seeds.jsonl\") { id = seed_id category = category question = question }\n"
          "checklists from jsonl(\"checklists.jsonl\") key seed_id\n"
          "text tone { calm \"\" anxious \"Sorry, I'm worried. \" }\n"
          "prompt { id \"{seed.id}_{tone}\" text tone.text ++ seed.question }\n"
          "model mini = canned(\"mini-1\")\n"
          "judge judge = canned(\"judge-1\") { rubric mira temperature 0 }\n"
          "report hostile {\n  table means(D3, Q2) { by model, tone }\n  table seeds(category)\n  figure seeds(category)\n}\n";
  std::ofstream seeds(dir / "seeds.jsonl"), checklists(dir / "checklists.jsonl");
  for (std::size_t i = 0; i < kSeedIds.size(); ++i) {
    seeds << Json{{"seed_id", kSeedIds[i]}, {"category", kCategories[i % kCategories.size()]},
                  {"question", "Question " + std::to_string(i) + ": " + all_payloads()}}
                 .dump()
          << "\n";
    checklists << Json{{"seed_id", kSeedIds[i]}, {"required_elements", kPayloads}, {"q3_expectations", {kPayloads[0]}},
                       {"pure_knowledge", false}}
                      .dump()
               << "\n";
  }
}

fs::path artifact_dir(const mirac::test::TempDir& tmp) {
  const char* env = std::getenv("MIRAC_ARTIFACT_DIR");
  const fs::path dir = env ? fs::path(env) : fs::path(tmp.path("artifacts"));
  fs::create_directories(dir);
  return dir;
}

// Text as a DOM dump serialises a text node: &, < and > as references.
std::string as_dom_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? std::string("&amp;") : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return out;
}

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) s.replace(at, std::strlen(from), to);
  return s;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A DOM dump without the contents of its <script> elements (the chart libraries are code,
// not data): what is left holds markup only where there are elements.
std::string without_scripts(std::string dom) {
  for (std::size_t at = dom.find("<script"); at != std::string::npos; at = dom.find("<script", at + 1)) {
    const std::size_t end = dom.find("</script>", at);
    if (end == std::string::npos) break;
    dom.erase(at, end - at);
  }
  return dom;
}

// The on* attributes of the elements of a DOM dump, with their element's name. The dump
// writes every attribute value in double quotes, with `"` as &quot;, so a value (an
// aria-label naming a category `<img onerror=...>`, say) is skipped whole.
std::vector<std::string> handler_attributes(const std::string& markup) {
  std::vector<std::string> found;
  for (std::size_t at = markup.find('<'); at != std::string::npos; at = markup.find('<', at + 1)) {
    std::size_t i = at + 1;
    if (i >= markup.size() || !std::isalpha(static_cast<unsigned char>(markup[i]))) continue;
    const std::size_t name_end = markup.find_first_of(" \t\n/>", i);
    const std::string tag = markup.substr(i, name_end - i);
    i = name_end;
    while (i < markup.size() && markup[i] != '>') {
      if (std::isspace(static_cast<unsigned char>(markup[i])) || markup[i] == '/') {
        ++i;
        continue;
      }
      const std::size_t attr_end = markup.find_first_of("= \t\n/>", i);
      const std::string attribute = markup.substr(i, attr_end - i);
      if (attribute.rfind("on", 0) == 0) found.push_back(tag + " " + attribute);
      i = attr_end;
      if (i < markup.size() && markup[i] == '=') {
        const std::size_t close = i + 1 < markup.size() && markup[i + 1] == '"' ? markup.find('"', i + 2) : std::string::npos;
        if (close == std::string::npos) return found;
        i = close + 1;
      }
    }
    if (i >= markup.size()) break;
    at = i;
  }
  return found;
}

// A served page's DOM: nothing ran (no mark), no element came from data (no <img>, no
// <iframe>, no on* attribute anywhere); `svg` elements only as many as `allowed_svgs`.
void check_inert(const std::string& dom, std::size_t allowed_svgs) {
  const std::string markup = without_scripts(dom);
  CHECK(markup.find("data-pwned") == std::string::npos);
  CHECK(count(markup, "<img") == 0);
  CHECK(count(markup, "<iframe") == 0);
  CHECK(count(markup, "<svg") <= allowed_svgs);
  CHECK(handler_attributes(markup).empty());
}

// Put first in a page the test opens from a file: records errors, console errors and
// dialogs before the page's own scripts run.
const char* kCapture = R"js(<script>
window.__errors = []; window.__dialogs = [];
window.addEventListener('error', (e) => window.__errors.push('error: ' + e.message));
window.addEventListener('unhandledrejection', (e) => window.__errors.push('rejection: ' + e.reason));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push('console.error: ' + a.join(' ')); __consoleError(...a); };
for (const name of ['alert', 'confirm', 'prompt']) window[name] = (m) => { window.__dialogs.push(name + ' ' + m); };
</script>)js";

// What every instrumented page reports: whether anything ran, what elements data could have
// made, and the page's own text.
const char* kInertProbe = R"js(
const inert = () => ({
  pwned: window.__pwned !== undefined || document.documentElement.dataset.pwned !== undefined,
  dialogs: window.__dialogs, errors: window.__errors,
  imgs: document.querySelectorAll('img, iframe, object, embed').length,
  stray_svgs: [...document.querySelectorAll('svg')].filter((s) => !s.closest('.chart')).length,
  handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
  scripts: document.scripts.length,
});
const report = (extra) => {
  const probe = document.createElement('pre');
  probe.id = 'probe';
  probe.textContent = JSON.stringify(Object.assign(inert(), extra));
  document.body.append(probe);
};
)js";

Json read_probe(const std::string& dom) {
  const auto open = dom.find("<pre id=\"probe\">"), close = dom.find("</pre>", open);
  REQUIRE_MESSAGE(open != std::string::npos, "the probe did not run");
  return Json::parse(unescape(dom.substr(open + 16, close - open - 16)));
}

void check_probe(const Json& probe, int scripts) {
  INFO(probe.dump(1));
  CHECK(probe["pwned"] == false);
  CHECK(probe["dialogs"].empty());
  CHECK(probe["errors"].empty());
  CHECK(probe["imgs"] == 0);
  CHECK(probe["stray_svgs"] == 0);
  CHECK(probe["handlers"] == 0);
  CHECK(probe["scripts"] == scripts);  // the page's own, and the test's two
}

// A stored run of the hostile fixture, its store, and the binary's answers as exported.
struct HostileRun {
  mirac::test::TempDir tmp{"hostile_text"};
  std::string spec, store;
  std::map<std::string, std::string> answer_of_prompt;  // prompt text -> stored answer
};

void run_fixture(HostileRun& run) {
  mirac::test::HostileProvider model(answer_to, {.model = "judge-1", .rationale = all_payloads()});
  write_fixture(run.tmp.dir, model.base_url());
  run.spec = run.tmp.path("hostile.audit");
  run.store = run.tmp.path("run");
  auto ran = mirac::test::invoke({"run", run.spec, "--store", run.store, "--resamples", "100"});
  INFO(ran.out << ran.err);
  REQUIRE(ran.code == 0);
  auto exported = mirac::test::invoke({"export", run.spec, "responses", "--store", run.store});
  REQUIRE(exported.code == 0);
  std::istringstream lines(exported.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) {
      const Json row = Json::parse(line);
      run.answer_of_prompt[row["text"].get<std::string>().substr(answer_to("").size())] = row["text"];
    }
  REQUIRE(run.answer_of_prompt.size() == 8);
}

}  // namespace

TEST_CASE("report.html of hostile answers and seed fields runs nothing and shows the text") {
  HostileRun run;
  run_fixture(run);
  const fs::path artifacts = artifact_dir(run.tmp), page = fs::path(run.store) / "results" / "report.html";
  std::string log;
  browser_test::run_chromium("file://" + page.string(), "--window-size=1280,1400 --virtual-time-budget=5000 --screenshot=" +
                                                             (artifacts / "hostile-report.png").string(),
                             run.tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);

  std::string html = mirac::test::read_text(page);
  html.insert(html.find("<title>"), kCapture);
  html.insert(html.rfind("</body>"), std::string("<script>") + kInertProbe + R"js(
setTimeout(() => report({
  main: document.querySelector('main').textContent,
  rows: document.querySelectorAll('tbody tr').length,
  figures: [...document.querySelectorAll('figure .chart')].map((c) => !!c.querySelector('svg')),
}), 3000);
</script>)js");
  const fs::path probed = run.tmp.dir / "report-probed.html";
  std::ofstream(probed, std::ios::binary) << html;
  const std::string dom = browser_test::run_chromium("file://" + probed.string(), "--dump-dom --virtual-time-budget=10000",
                                                     run.tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  const Json probe = read_probe(dom);
  check_probe(probe, 4);  // the chart libraries, the figures
  const std::string main = probe["main"];
  for (const auto& c : kCategories) CHECK_MESSAGE(main.find(c) != std::string::npos, c);
  CHECK(probe["rows"].get<int>() >= 2 + 3);  // the means by tone, a row per category
  CHECK(probe["figures"] == Json::array({true}));
}

TEST_CASE("every page of mirac view over hostile answers, prompts and rationales runs nothing and shows the text") {
  HostileRun run;
  run_fixture(run);
  const fs::path artifacts = artifact_dir(run.tmp);
  mirac::test::ViewServer server({run.spec, "--store", run.store}, run.tmp.dir / "view.log");
  auto chromium = [&](const std::string& path, const std::string& flags) {
    std::string log;
    const std::string dom = browser_test::run_chromium(server.url() + path, "--no-proxy-server " + flags, run.tmp.dir, log);
    INFO(path << "\n" << log);
    CHECK(log.find("Uncaught") == std::string::npos);
    CHECK(log.find(":CONSOLE(") == std::string::npos);
    return dom;
  };
  auto page_errors = [](const std::string& dom) {
    std::smatch m;
    REQUIRE(std::regex_search(dom, m, std::regex("<pre id=\"page-errors\"[^>]*>([^<]*)</pre>")));
    return std::string(m[1]);
  };

  // The answers: every row, each snippet and prompt id as text.
  const std::string answers = chromium("/", "--dump-dom --virtual-time-budget=5000");
  CHECK(page_errors(answers).empty());
  check_inert(answers, 0);
  CHECK(count(answers, "<tr data-id=") == 8);
  CHECK(answers.find(as_dom_text(kPayloads[1] + " Answer to: Question")) != std::string::npos);
  for (const auto& id : kSeedIds) CHECK_MESSAGE(answers.find(as_dom_text(id + "_calm")) != std::string::npos, id);
  chromium("/", "--window-size=1400,1000 --virtual-time-budget=5000 --screenshot=" + (artifacts / "hostile-view-answers.png").string());

  // The pairs: whole answers, prompts, seed ids and the judge's rationales, side by side.
  const std::string pairs_url = "/?view=pairs&factor=tone&a=calm&b=anxious";
  const std::string pairs = chromium(pairs_url, "--dump-dom --virtual-time-budget=5000");
  CHECK(page_errors(pairs).empty());
  check_inert(pairs, 0);
  CHECK(count(pairs, "class=\"pair\"") == 4);
  CHECK(count(pairs, "class=\"text answer\"") == 8);
  CHECK(pairs.find(as_dom_text(all_payloads())) != std::string::npos);  // prompts, answers and rationales
  CHECK(count(pairs, as_dom_text(all_payloads())) >= 8 * 3);
  chromium(pairs_url, "--window-size=1400,1400 --virtual-time-budget=5000 --screenshot=" + (artifacts / "hostile-view-pairs.png").string());

  // The report as the view serves it, its means linked to their answers.
  const std::string report = chromium("/report/report.html", "--dump-dom --virtual-time-budget=8000");
  check_inert(report, 2);  // the figure's drawing and the icon of its menu, nothing more
  CHECK(count(report, "<a href=\"/?") > 0);
  for (const auto& c : kCategories) CHECK_MESSAGE(report.find(as_dom_text(c)) != std::string::npos, c);
  chromium("/report/report.html", "--window-size=1280,1400 --virtual-time-budget=8000 --screenshot=" +
                                      (artifacts / "hostile-view-report.png").string());
  CHECK(server.stop() == 0);
}

TEST_CASE("the annotation page of hostile answers runs nothing, shows them, and its sheet imports comments as typed") {
  HostileRun run;
  run_fixture(run);
  const fs::path artifacts = artifact_dir(run.tmp), sample_dir = run.tmp.path("sample");
  auto sample = mirac::test::invoke({"annotate", "sample", run.spec, "--store", run.store, "--n", "8", "-o", sample_dir.string()});
  INFO(sample.out << sample.err);
  REQUIRE(sample.code == 0);
  const fs::path page = sample_dir / "annotate.html";
  std::string log;
  browser_test::run_chromium("file://" + page.string(), "--window-size=1280,1400 --virtual-time-budget=3000 --screenshot=" +
                                                             (artifacts / "hostile-annotation-page.png").string(),
                             run.tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);

  // A scripted annotator reads every answer, scores it, types a comment, and saves.
  Json comments = kComments;
  std::string html = mirac::test::read_text(page);
  html.insert(html.find("<style>"), kCapture);
  html.insert(html.rfind("</body>"), std::string("<script>") + kInertProbe + "const comments = " + comments.dump() + ";\n" + R"js(
(function () {
  const shown = [];
  const total = JSON.parse(document.getElementById('annotation-data').textContent).items.length;
  for (let i = 0; i < total; ++i) {
    shown.push({prompt: document.getElementById('prompt').textContent, answer: document.getElementById('answer').textContent,
                checklist: document.getElementById('checklist').textContent, position: document.getElementById('position').textContent});
    for (const dim of document.querySelectorAll('#dims .dim')) dim.querySelector('button[data-value="3"]').click();
    const comment = document.getElementById('comment');
    comment.value = comments[i % comments.length];
    comment.dispatchEvent(new Event('input'));
    if (i + 1 < total) document.getElementById('next').click();
  }
  document.getElementById('save').click();
  report({shown, csv: document.getElementById('csv-output').value, progress: document.getElementById('progress').textContent});
})();
</script>)js");
  const fs::path driven = run.tmp.dir / "annotate-driven.html";
  std::ofstream(driven, std::ios::binary) << html;
  const std::string dom = browser_test::run_chromium("file://" + driven.string(), "--dump-dom --virtual-time-budget=3000",
                                                     run.tmp.dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  const Json probe = read_probe(dom);
  check_probe(probe, 4);  // the data block, the page's script
  CHECK(probe["progress"] == "8 of 8 complete");
  REQUIRE(probe["shown"].size() == 8);
  std::set<std::string> prompts;
  for (const auto& item : probe["shown"]) {
    const std::string prompt = item["prompt"], answer = item["answer"];
    INFO(prompt);
    REQUIRE(run.answer_of_prompt.count(prompt) == 1);
    CHECK(answer == run.answer_of_prompt.at(prompt));  // the answer as stored, as text
    CHECK(item["checklist"].get<std::string>().find(kPayloads[0]) != std::string::npos);
    prompts.insert(prompt);
  }
  CHECK(prompts.size() == 8);

  // The sheet: formula-like comments neutralised, and imported back as typed.
  const std::string csv = probe["csv"];
  CHECK(csv.find("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"") != std::string::npos);
  CHECK(csv.find("\"'=cmd|' /C calc'!A0\"") != std::string::npos);
  CHECK(csv.find("\"''=already quoted\"") != std::string::npos);
  CHECK(csv.find(",\"'@SUM(A1)\"\n") != std::string::npos);
  const fs::path saved = run.tmp.dir / "alice.csv";
  std::ofstream(saved, std::ios::binary) << csv;
  auto imported = mirac::test::invoke({"annotate", "import", run.spec, saved.string(), "--annotator", "alice", "--store", run.store});
  INFO(imported.out << imported.err);
  REQUIRE(imported.code == 0);
  std::string error;
  auto annotations = mirac::AnnotationStore::open(run.store, error);
  REQUIRE_MESSAGE(annotations, error);
  std::set<std::string> stored;
  for (const auto& a : annotations->all()) stored.insert(a.comment);
  CHECK(stored == std::set<std::string>(kComments.begin(), kComments.end()));
}
