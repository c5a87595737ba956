// report_page_test.cpp: report.html as people open it, in headless Chromium (Debian's
// `chromium`), from the file, with name resolution switched off: an offline run of
// examples/otc/otc.audit with its own report, the default report (a spec without a report
// block), a report with every kind of figure (bars by cell x model, a spearman
// analysis's rank scatters and seeds by category among them), and the power report of
// `mirac simulate` with its power curve. Each
// page must load without a console error or an uncaught exception, draw every figure it
// declares (an <svg> or <canvas> in each figure's container), keep every figure within the
// page's width, and request nothing from the network. Screenshots at 1280 px go to
// $MIRAC_ARTIFACT_DIR. The offline MIRA report (with the authors' release) must fit windows
// of 1,400 and 800 px: the page no wider than the window, each table within its own box,
// which scrolls when the table is wider; screenshots at both widths.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/browser/chromium.hpp"
#include "tests/cli/mirac_binary.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Names resolve to nothing, so a request the page should not make fails instead of leaving.
std::string run_chromium(const std::string& url, const std::string& flags, const fs::path& dir, std::string& log) {
  return browser_test::run_chromium(url, "--host-resolver-rules='MAP * ~NOTFOUND' --window-size=1280,1000 " + flags, dir, log);
}

// Put first in <head>: records errors, unhandled rejections and every request a script
// starts (fetch, XMLHttpRequest) before the page's own scripts run.
const char* kCapture = R"js(<script>
window.__errors = []; window.__requests = [];
window.addEventListener('error', (e) => window.__errors.push('error: ' + e.message));
window.addEventListener('unhandledrejection', (e) => window.__errors.push('rejection: ' + e.reason));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push('console.error: ' + a.join(' ')); __consoleError(...a); };
const __fetch = window.fetch;
window.fetch = (...a) => { window.__requests.push('fetch ' + a[0]); return __fetch(...a); };
const __open = XMLHttpRequest.prototype.open;
XMLHttpRequest.prototype.open = function (m, u, ...r) { window.__requests.push('xhr ' + u); return __open.call(this, m, u, ...r); };
</script>)js";

// Put last in <body>: once the figures had time to draw, writes what the test checks into
// <pre id="probe"> as JSON. Resource timing lists anything the page loaded besides itself.
const char* kProbe = R"js(<script>
setTimeout(() => {
  const page = document.documentElement.clientWidth;
  const figures = [...document.querySelectorAll('figure .chart')].map((c) => {
    const drawn = c.querySelector('svg, canvas');
    const box = drawn ? drawn.getBoundingClientRect() : null;
    return {id: c.id, drawn: !!drawn, left: box ? box.left : null, right: box ? box.right : null,
            width: box ? box.width : null, height: box ? box.height : null};
  });
  // The simulated banner, at the top and still in view once the page is scrolled down.
  const banner = document.getElementById('simulated-banner');
  window.scrollTo(0, document.body.scrollHeight);
  const after = banner ? banner.getBoundingClientRect() : null;
  window.scrollTo(0, 0);
  const simulated = banner ? {text: banner.textContent, top_after_scroll: after.top, height: after.height} : null;
  const probe = document.createElement('pre');
  probe.id = 'probe';
  probe.textContent = JSON.stringify({page, scroll: document.documentElement.scrollWidth, figures, simulated,
    errors: window.__errors, requests: window.__requests.concat(
      performance.getEntriesByType('resource').map((e) => 'resource ' + e.name))});
  document.body.append(probe);
}, 3000);
</script>)js";

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) s.replace(at, std::strlen(from), to);
  return s;
}

// The figure containers report.html declares (<div class="chart" id="...">).
std::vector<std::string> declared_figures(const std::string& html) {
  const std::string open = "<div class=\"chart\" id=\"";
  std::vector<std::string> ids;
  for (auto at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const auto start = at + open.size();
    ids.push_back(html.substr(start, html.find('"', start) - start));
  }
  return ids;
}

// Opens `page` as written (for a screenshot) and a copy with the capture and probe scripts
// (for the checks). Returns the number of figures drawn.
std::size_t check_page(const fs::path& page, const std::string& name, const fs::path& dir, const fs::path& artifacts) {
  CAPTURE(name);
  std::string log;
  run_chromium("file://" + page.string(),
               "--virtual-time-budget=5000 --screenshot=" + (artifacts / (name + ".png")).string(), dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(fs::file_size(artifacts / (name + ".png")) > 10000);

  std::string html = mirac::test::read_text(page);
  const std::vector<std::string> declared = declared_figures(html);
  html.insert(html.find("<title>"), kCapture);
  html.insert(html.rfind("</body>"), kProbe);
  const fs::path probed = dir / (name + "-probed.html");
  std::ofstream(probed, std::ios::binary) << html;
  const std::string dom = run_chromium("file://" + probed.string(), "--dump-dom --virtual-time-budget=10000", dir, log);
  CHECK(log.find("Uncaught") == std::string::npos);
  CHECK(log.find("net::ERR") == std::string::npos);
  const auto open = dom.find("<pre id=\"probe\">"), close = dom.find("</pre>", open);
  REQUIRE_MESSAGE(open != std::string::npos, "the probe did not run");
  const Json probe = Json::parse(unescape(dom.substr(open + 16, close - open - 16)));
  INFO(probe.dump(1));
  CHECK(probe["errors"].empty());
  CHECK(probe["requests"].empty());
  CHECK(probe["scroll"].get<double>() <= probe["page"].get<double>());
  // Every page here comes from an --offline run: nobody may miss that it is simulated.
  REQUIRE_MESSAGE(probe["simulated"].is_object(), "no simulated banner");
  CHECK(probe["simulated"]["text"].get<std::string>().find("Simulated") == 0);
  CHECK(probe["simulated"]["top_after_scroll"].get<double>() == doctest::Approx(0).epsilon(0.01));
  CHECK(probe["simulated"]["height"].get<double>() > 10);
  REQUIRE(probe["figures"].size() == declared.size());
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const Json& f = probe["figures"][i];
    CAPTURE(f.dump());
    CHECK(f["id"] == declared[i]);
    REQUIRE(f["drawn"] == true);
    CHECK(f["left"].get<double>() >= 0);
    CHECK(f["right"].get<double>() <= probe["page"].get<double>());
    CHECK(f["height"].get<double>() > 50);
    ++drawn;
  }
  return drawn;
}

// Put last in <body>: once the figures are drawn, the page's width against the window's,
// and each table's box (the element that holds it: its scrolling wrapper) against the page.
const char* kWidthProbe = R"js(<script>
setTimeout(() => {
  const root = document.documentElement;
  const tables = [...document.querySelectorAll('table')].map((t) => {
    const box = t.parentElement.getBoundingClientRect();
    return {caption: t.caption ? t.caption.textContent.slice(0, 60) : '', wrapped: t.parentElement.className,
            overflow: getComputedStyle(t.parentElement).overflowX, left: box.left, right: box.right,
            width: t.getBoundingClientRect().width};
  });
  const probe = document.createElement('pre');
  probe.id = 'probe';
  probe.textContent = JSON.stringify({client: root.clientWidth, scroll: root.scrollWidth,
                                      body: document.body.scrollWidth, tables});
  document.body.append(probe);
}, 3000);
</script>)js";

// Opens `page` in a window `width` px wide: a screenshot of it as written, then a probed
// copy; the page must be no wider than the window, and every table's box within the page,
// a table wider than its box scrolling inside it. Returns the number of tables.
std::size_t check_width(const fs::path& page, const std::string& name, int width, const fs::path& dir,
                        const fs::path& artifacts) {
  CAPTURE(name);
  CAPTURE(width);
  const std::string window = fmt::format("--host-resolver-rules='MAP * ~NOTFOUND' --window-size={},1000 ", width);
  std::string log;
  const fs::path shot = artifacts / fmt::format("{}-{}px.png", name, width);
  browser_test::run_chromium("file://" + page.string(), window + "--virtual-time-budget=5000 --screenshot=" + shot.string(),
                             dir, log);
  CHECK(fs::file_size(shot) > 10000);
  std::string html = mirac::test::read_text(page);
  html.insert(html.rfind("</body>"), kWidthProbe);
  const fs::path probed = dir / fmt::format("{}-{}-probed.html", name, width);
  std::ofstream(probed, std::ios::binary) << html;
  const std::string dom =
      browser_test::run_chromium("file://" + probed.string(), window + "--dump-dom --virtual-time-budget=10000", dir, log);
  const auto open = dom.find("<pre id=\"probe\">"), close = dom.find("</pre>", open);
  REQUIRE_MESSAGE(open != std::string::npos, "the probe did not run");
  const Json probe = Json::parse(unescape(dom.substr(open + 16, close - open - 16)));
  INFO(probe.dump(1));
  const double client = probe["client"].get<double>();
  CHECK(client > width * 0.9);  // the window is as wide as asked
  CHECK(probe["scroll"].get<double>() <= client);
  CHECK(probe["body"].get<double>() <= client);
  for (const Json& t : probe["tables"]) {
    CAPTURE(t.dump());
    CHECK(t["wrapped"] == "table-wrap");
    CHECK(t["left"].get<double>() >= 0);
    CHECK(t["right"].get<double>() <= client + 0.5);
    // Wider than its box: the box scrolls, so nothing is cut off.
    if (t["width"].get<double>() > t["right"].get<double>() - t["left"].get<double>() + 0.5) CHECK(t["overflow"] == "auto");
  }
  return probe["tables"].size();
}

// A mirac built with MIRAC_CHARTS=OFF writes the page without the libraries' script: the
// page, as written but with that script taken out, must say in each figure's place why it
// is not drawn, and raise no error.
void check_without_charts(const fs::path& page, const fs::path& dir, const fs::path& artifacts) {
  std::string html = mirac::test::read_text(page);
  const auto libraries = html.find("<script>\n", html.find("</main>"));
  REQUIRE(libraries != std::string::npos);
  html.erase(libraries, html.find("</script>\n", libraries) + 10 - libraries);
  REQUIRE(html.find("vegaEmbed(") != std::string::npos);  // the page's own script stays
  const std::vector<std::string> declared = declared_figures(html);
  html.insert(html.find("<title>"), kCapture);
  html.insert(html.rfind("</body>"), R"js(<script>
setTimeout(() => {
  const probe = document.createElement('pre');
  probe.id = 'probe';
  probe.textContent = JSON.stringify({errors: window.__errors,
    figures: [...document.querySelectorAll('figure .chart')].map((c) => c.textContent)});
  document.body.append(probe);
}, 1000);
</script>)js");
  const fs::path stripped = dir / "report-without-charts.html";
  std::ofstream(stripped, std::ios::binary) << html;
  std::string log;
  run_chromium("file://" + stripped.string(),
               "--virtual-time-budget=3000 --screenshot=" + (artifacts / "report-without-charts.png").string(), dir, log);
  const std::string dom = run_chromium("file://" + stripped.string(), "--dump-dom --virtual-time-budget=5000", dir, log);
  const auto open = dom.find("<pre id=\"probe\">"), close = dom.find("</pre>", open);
  REQUIRE_MESSAGE(open != std::string::npos, "the probe did not run");
  const Json probe = Json::parse(unescape(dom.substr(open + 16, close - open - 16)));
  INFO(probe.dump(1));
  CHECK(probe["errors"].empty());
  REQUIRE(probe["figures"].size() == declared.size());
  for (const Json& text : probe["figures"])
    CHECK(text.get<std::string>().find("built without its chart libraries (MIRAC_CHARTS=OFF)") != std::string::npos);
}

}  // namespace

TEST_CASE("the offline MIRA report fits a window 1,400 and 800 px wide: wide tables scroll in their own box") {
  const char* release = std::getenv("MIRAC_RELEASE_DIR");
  if (!release || !fs::exists(fs::path(release) / "prompts_all.jsonl")) {
    MESSAGE("MIRAC_RELEASE_DIR not set or without the release: skipped");
    return;
  }
  mirac::test::TempDir tmp("report_width");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const fs::path artifacts = std::getenv("MIRAC_ARTIFACT_DIR") ? fs::path(std::getenv("MIRAC_ARTIFACT_DIR")) : tmp.dir / "artifacts";
  fs::create_directories(artifacts);
  const std::string store = tmp.path("run");
  auto run = mirac::test::invoke({"run", (fs::path(root) / "specs/mira.audit").string(), "--offline", "--data", release,
                                  "--store", store, "--resamples", "50"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  const fs::path page = fs::path(store) / "results/report.html";
  // Table 20 and the other flags table are the widest: one column per flag and split.
  const std::string html = mirac::test::read_text(page);
  REQUIRE(html.find("<table id=\"table20\">") != std::string::npos);
  for (int width : {1400, 800}) CHECK(check_width(page, "report-mira", width, tmp.dir, artifacts) >= 10);
}

TEST_CASE("report.html draws every figure offline, within the page, without an error") {
  mirac::test::TempDir tmp("report_page");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const fs::path artifacts = std::getenv("MIRAC_ARTIFACT_DIR") ? fs::path(std::getenv("MIRAC_ARTIFACT_DIR")) : tmp.dir / "artifacts";
  fs::create_directories(artifacts);
  const std::string otc = mirac::test::read_text(fs::path(root) / "examples/otc/otc.audit");

  // otc.audit with its report and a second one showing every kind of figure.
  const std::string every_figure = otc + R"(
report every {
  figure bars(D3, Q2, Q3) { by model, arm }
  figure bars(D3) { by cell, model }
  figure flags(SEVERE, LITERACY_GAP) { by model, arm }
  figure analysis(main)
  figure contrasts(literacy_gap, anxiety_gap) { by model }
  figure analysis(external)
  figure seeds(category)
}
analysis external = spearman(D3, Q2) {
  by model * literacy
  against csv("made_up_external.csv") { model = model literacy = literacy }
}
)";
  // Made-up values for the rank scatters of `external`, one per model x literacy.
  tmp.write("made_up_external.csv", "model,literacy,D3,Q2\nmini,high,3.1,2\nmini,low,2.8,3\nlocal,high,3.6,4\nlocal,low,3.3,1\n");
  const std::string spec = tmp.write("otc.audit", every_figure), store = tmp.path("run");
  auto run = mirac::test::invoke({"run", spec, "--offline", "--store", store, "--resamples", "100"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const fs::path results = fs::path(store) / "results";
  CHECK(check_page(results / "report.html", "report-otc", tmp.dir, artifacts) == 1);
  CHECK(check_page(results / "report-every.html", "report-every-figure", tmp.dir, artifacts) == 8);
  check_without_charts(results / "report-every.html", tmp.dir, artifacts);
  // Beside each figure: its spec and its data.
  for (const char* file : {"figures/every-bars-D3-Q2-Q3.vl.json", "figures/every-bars-D3-Q2-Q3.csv", "figures/every-bars-D3.csv",
                           "figures/contrasts-literacy_gap-anxiety_gap.vl.json", "figures/every-analysis-external-D3.vl.json",
                           "figures/every-analysis-external-Q2.csv", "figures/every-seeds-category.vl.json"})
    CHECK_MESSAGE(fs::exists(results / file), file);

  // The default report, of the same spec without report blocks.
  const std::string plain = tmp.write("plain.audit", otc.substr(0, otc.find("report otc {")));
  const std::string plain_store = tmp.path("plain-run");
  auto plain_run = mirac::test::invoke({"run", plain, "--offline", "--store", plain_store, "--resamples", "100"});
  INFO(plain_run.out << plain_run.err);
  REQUIRE(plain_run.code == 0);
  CHECK(check_page(fs::path(plain_store) / "results/report.html", "report-default", tmp.dir, artifacts) == 1);
}

TEST_CASE("the power report of mirac simulate draws its power curve, marked simulated") {
  mirac::test::TempDir tmp("power_page");
  const char* root = std::getenv("MIRAC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  const fs::path artifacts = std::getenv("MIRAC_ARTIFACT_DIR") ? fs::path(std::getenv("MIRAC_ARTIFACT_DIR")) : tmp.dir / "artifacts";
  fs::create_directories(artifacts);
  const std::string spec = (fs::path(root) / "tests/simulate/fixtures/recovery.audit").string();
  const std::string out = tmp.path("simulation");
  auto run = mirac::test::invoke({"simulate", spec, "--seeds", "8,16,32", "--replicates", "30", "--resamples", "50",
                                  "--out", out});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("30 replicates per design") != std::string::npos);
  CHECK(check_page(fs::path(out) / "power.html", "power", tmp.dir, artifacts) == 1);
  const std::string md = mirac::test::read_text(fs::path(out) / "power.md");
  CHECK(md.find("HLS") != std::string::npos);
  CHECK(fs::exists(fs::path(out) / "figures/power-curve.vl.json"));
  const Json power = Json::parse(mirac::test::read_text(fs::path(out) / "power.json"));
  CHECK(power["designs"] == Json::array({8, 16, 32}));
  CHECK(power["replicates"] == 30);
}
