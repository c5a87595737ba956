// ranks_and_seeds_test.cpp: the paper's Figure 4 (a spearman analysis's groups at their
// ranks on both sides) and Figure 6 (seeds by category), from results.json to the report,
// on tests/report/fixtures/ecological.audit. Its scores are made here so that every group
// mean is exact and ties are real ties; its external file is made-up test data. The values
// checked were worked out by hand as scipy would compute them (rankdata's average ranks
// for ties; spearmanr = Pearson correlation of those ranks; p from Student's t, df = n - 2).
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/hash/hash.hpp"
#include "engine/report/report.hpp"
#include "tests/report/report_support.hpp"

using namespace report_test;
using nlohmann::ordered_json;

namespace {

// D3 and Q2 at baseline per model x language (spec order: gpt, claude, qwen; zh, en).
// D3 ties: gpt/zh = claude/zh = 2 and gpt/en = qwen/en = 3.
constexpr double kD3[3][2] = {{2, 3}, {2, 4}, {1, 3}};
constexpr double kQ2[3][2] = {{1, 2}, {3, 4}, {5, 0.5}};

struct Fixture {
  std::unique_ptr<mirac::Compilation> c;
  mirac::analyze::Output out;
  ordered_json results;
};

// Seeds s1-s3 (not s4) x 3 models x 2 arms x 2 languages. Each seed moves the group's
// value by -0.5, 0 or +0.5, so the mean over the three seeds is the value itself, exactly.
// The mitigation arm reverses D3, which the `where arm == baseline` must leave out.
mirac::analyze::ScoreTable scores(const mirac::Spec& spec) {
  mirac::analyze::ScoreTable t;
  t.path = "scores.csv";
  t.dims = mirac::analyze::score_dimensions(spec);
  std::size_t line = 2;
  for (int s = 0; s < 3; ++s)
    for (int m = 0; m < 3; ++m)
      for (int a = 0; a < 2; ++a)
        for (int l = 0; l < 2; ++l) {
          mirac::analyze::ScoreRow r;
          r.seed = s, r.model = m, r.arm = a, r.levels = {l}, r.line = line++;
          const double wobble = 0.5 * (s - 1);
          for (const auto& dim : t.dims) {
            double score = 1;
            if (dim == "D3") score = (a == 0 ? kD3[m][l] : 6 - kD3[m][l]) + wobble;
            if (dim == "Q2") score = kQ2[m][l] + wobble;
            r.scores.push_back(score);
          }
          t.rows.push_back(std::move(r));
        }
  return t;
}

const Fixture& ecological() {
  static const Fixture f = [] {
    Fixture x;
    x.c = mirac::compile(source_dir() / "tests/report/fixtures/ecological.audit", mirac::CheckOptions{});
    if (!x.c->ok()) throw std::runtime_error("tests/report/fixtures/ecological.audit does not compile");
    mirac::analyze::ScoreTable table = scores(x.c->spec);
    mirac::analyze::AnalyzeOptions options;
    options.resamples = 50;
    mirac::Diagnostics diags;
    x.out = mirac::analyze::analyze_scores(x.c->spec, table, options, x.c->sources, diags);
    if (diags.has_errors()) throw std::runtime_error("analyzing the ecological fixture reported errors");
    x.results = {{"manifest", mirac::analyze::manifest(x.c->spec, "scores.csv", mirac::sha256_hex("made-up scores\n"), table, options)}};
    x.results.update(x.out.json);
    return x;
  }();
  return f;
}

const ordered_json& rq3_result(const std::string& dim) {
  for (const auto& a : ecological().results.at("analyses"))
    if (a.at("name") == "rq3")
      for (const auto& r : a.at("results"))
        if (r.at("dimension") == dim) return r;
  throw std::runtime_error("no rq3 result for " + dim);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("spearman: results.json holds each group's values, both sides and their average ranks") {
  const ordered_json& d3 = rq3_result("D3");
  REQUIRE(d3.at("n") == 6);
  const ordered_json& groups = d3.at("groups");
  REQUIRE(groups.size() == 6);
  // Audit means 2, 3, 2, 4, 1, 3: scipy.stats.rankdata gives 2.5, 4.5, 2.5, 6, 1, 4.5.
  // External 1.5, 2.0, 1.5, 3.0, 0.5, 2.5 (models named by their model string in the file).
  const char* models[] = {"gpt", "gpt", "claude", "claude", "qwen", "qwen"};
  const char* languages[] = {"zh", "en", "zh", "en", "zh", "en"};
  const double means[] = {2, 3, 2, 4, 1, 3}, external[] = {1.5, 2.0, 1.5, 3.0, 0.5, 2.5};
  const double audit_ranks[] = {2.5, 4.5, 2.5, 6, 1, 4.5}, external_ranks[] = {2.5, 4, 2.5, 6, 1, 5};
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    const ordered_json& g = groups[k];
    CHECK(g.at("model") == models[k]);
    CHECK(g.at("language") == languages[k]);
    CHECK(g.at("audit_mean").get<double>() == means[k]);  // exact: the seeds' wobble cancels
    CHECK(g.at("audit_n") == 3);
    CHECK(g.at("external").get<double>() == external[k]);
    CHECK(g.at("audit_rank").get<double>() == audit_ranks[k]);
    CHECK(g.at("external_rank").get<double>() == external_ranks[k]);
  }
  // Pearson of those ranks: deviations (-1, 1, -1, 2.5, -2.5, 1) and (-1, .5, -1, 2.5,
  // -2.5, 1.5) give 16.5 / sqrt(16.5 * 17). t = rho sqrt(4 / (1 - rho^2)) = 11.4891; the
  // two-sided p of Student's t with 4 df, in closed form, is 0.000327628.
  CHECK(d3.at("rho").get<double>() == doctest::Approx(std::sqrt(16.5 / 17)).epsilon(1e-12));
  CHECK(d3.at("t").get<double>() == doctest::Approx(11.489125293076063).epsilon(1e-9));
  CHECK(d3.at("p").get<double>() == doctest::Approx(0.000327628471754604).epsilon(1e-6));

  // Q2: the file has N/A for qwen/en, so five groups are ranked among themselves: the
  // audit's lowest mean (qwen/en, 0.5) is left out and gpt/zh is rank 1, not 2.
  const ordered_json& q2 = rq3_result("Q2");
  REQUIRE(q2.at("n") == 5);
  REQUIRE(q2.at("groups").size() == 5);
  for (std::size_t k = 0; k < 5; ++k) {
    CHECK(q2.at("groups")[k].at("audit_rank").get<double>() == static_cast<double>(k + 1));
    CHECK(q2.at("groups")[k].at("external_rank").get<double>() == static_cast<double>(5 - k));
  }
  CHECK(q2.at("rho").get<double>() == doctest::Approx(-1.0));

  // The CSV table has the ranks too.
  const mirac::analyze::Table* csv = nullptr;
  for (const auto& t : ecological().out.tables)
    if (t.name == "spearman_rq3") csv = &t;
  REQUIRE(csv != nullptr);
  CHECK(csv->header == std::vector<std::string>{"dimension", "group", "audit_mean", "audit_n", "external", "audit_rank",
                                                "external_rank"});
  CHECK(csv->rows.at(0) == std::vector<std::string>{"D3", "gpt/zh", "2", "3", "1.5", "2.5", "2.5"});
}

TEST_CASE("figure analysis(rq3): one rank scatter per dimension, rho and p in its title") {
  const Fixture& f = ecological();
  const mirac::report::ReportFiles files = mirac::report::render_reports(f.c->spec, f.results);
  const std::string& md = files.at("report.md");
  CHECK_FALSE(contains(md, "has no figure"));
  CHECK(contains(md, "| D3 | 6 | 0.985 |"));  // the table of rq3 is still there
  REQUIRE(files.count("figures/analysis-rq3-D3.vl.json"));
  REQUIRE(files.count("figures/analysis-rq3-Q2.vl.json"));
  const ordered_json spec = ordered_json::parse(files.at("figures/analysis-rq3-D3.vl.json"));
  const std::string title = spec.at("title").at("text");
  CHECK(contains(title, "Analysis rq3, D3"));
  CHECK(contains(title, "rho = 0.985"));
  CHECK(contains(title, "p = 3.3e-04"));
  CHECK(contains(title, "n = 6"));
  const ordered_json& values = spec.at("data").at("values");
  REQUIRE(values.size() == 6);
  CHECK(values[0].at("group") == "gpt / zh");
  CHECK(values[0].at("audit_rank").get<double>() == 2.5);
  CHECK(values[0].at("external_rank").get<double>() == 2.5);
  CHECK(values[3].at("audit_rank").get<double>() == 6);
  CHECK(values[3].at("n") == "3");
  // The tooltip names the group; x and y are the ranks.
  bool tooltip_names_group = false, ranks_on_axes = false;
  for (const auto& layer : spec.at("layer")) {
    const auto& enc = layer.at("encoding");
    if (enc.contains("tooltip") && enc.at("tooltip")[0].at("field") == "group") tooltip_names_group = true;
    if (enc.at("x").at("field") == "audit_rank" && enc.at("y").at("field") == "external_rank") ranks_on_axes = true;
  }
  CHECK(tooltip_names_group);
  CHECK(ranks_on_axes);
  CHECK(files.at("figures/analysis-rq3-D3.csv").rfind("group,audit_rank,external_rank,audit_mean,external,n\n", 0) == 0);
}

TEST_CASE("a spearman dimension without enough groups is a note instead of its figure") {
  const Fixture& f = ecological();
  ordered_json results = f.results;
  for (auto& a : results["analyses"])
    if (a["name"] == "rq3") {
      a["results"][1] = {{"dimension", "Q2"}, {"n", 2}, {"error", "fewer than 3 groups in both the audit and the external file"}};
      a["results"][0]["groups"][0].erase("audit_rank");  // as a results.json from before ranks were written
    }
  const mirac::report::ReportFiles files = mirac::report::render_reports(f.c->spec, results);
  CHECK_FALSE(files.count("figures/analysis-rq3-Q2.vl.json"));
  const std::string& md = files.at("report.md");
  CHECK(contains(md, "Analysis rq3, Q2: fewer than 3 groups in both the audit and the external file; no figure."));
  CHECK(contains(md, "Analysis rq3, D3: results.json has no ranks for some groups"));
  const ordered_json spec = ordered_json::parse(files.at("figures/analysis-rq3-D3.vl.json"));
  CHECK(spec.at("data").at("values").size() == 5);
}

TEST_CASE("results.json seeds: the analysed seeds by category, most first, values without answers kept") {
  const ordered_json& seeds = ecological().results.at("seeds");
  CHECK(seeds.at("count") == 3);     // s1-s3 have scored answers
  CHECK(seeds.at("declared") == 4);  // the spec's seed table has s4 too
  const ordered_json& fields = seeds.at("fields");
  CHECK_FALSE(fields.contains("question"));  // a text per language, not a category
  const ordered_json& category = fields.at("category");
  REQUIRE(category.size() == 3);
  CHECK(category[0] == ordered_json{{"value", "Pediatrics"}, {"seeds", 2}, {"share", 2.0 / 3}, {"declared", 2}});
  CHECK(category[1] == ordered_json{{"value", "Mental Health"}, {"seeds", 1}, {"share", 1.0 / 3}, {"declared", 1}});
  CHECK(category[2] == ordered_json{{"value", "Dermatology/Allergy"}, {"seeds", 0}, {"share", 0.0}, {"declared", 1}});
}

TEST_CASE("figure and table seeds(category): counts and shares, most first, a note for a value without answers") {
  const Fixture& f = ecological();
  const mirac::report::ReportFiles files = mirac::report::render_reports(f.c->spec, f.results);
  const std::string& md = files.at("report.md");
  CHECK(contains(md, "Seeds by category: 3 analysed seeds over 3 values"));
  CHECK(contains(md, "no analysed answer covers the seeds of Dermatology/Allergy; they are counted as 0."));
  CHECK(contains(md, "| category | seeds | share | in the seed table |"));
  CHECK(contains(md, "| Pediatrics | 2 | 66.7% | 2 |"));
  CHECK(contains(md, "| Dermatology/Allergy | 0 | 0.0% | 1 |"));
  REQUIRE(files.count("figures/seeds-category.vl.json"));
  const ordered_json spec = ordered_json::parse(files.at("figures/seeds-category.vl.json"));
  const ordered_json& values = spec.at("data").at("values");
  REQUIRE(values.size() == 3);
  CHECK(values[0].at("category") == "Pediatrics");
  CHECK(values[0].at("seeds").get<double>() == 2);
  CHECK(values[0].at("label") == "2 (66.7%)");
  CHECK(values[2].at("category") == "Dermatology/Allergy");
  CHECK(spec.at("encoding").at("y").at("sort") == ordered_json{"Pediatrics", "Mental Health", "Dermatology/Allergy"});

  // A results.json listing them in another order is drawn most first all the same.
  ordered_json shuffled = f.results;
  auto& list = shuffled["seeds"]["fields"]["category"];
  std::swap(list[0], list[2]);
  const ordered_json again = ordered_json::parse(
      mirac::report::render_reports(f.c->spec, shuffled).at("figures/seeds-category.vl.json"));
  CHECK(again.at("encoding").at("y").at("sort") == ordered_json{"Pediatrics", "Mental Health", "Dermatology/Allergy"});

  // Without a `seeds` section (a results.json of an older mirac): a note, no figure.
  ordered_json older = f.results;
  older.erase("seeds");
  const mirac::report::ReportFiles old_files = mirac::report::render_reports(f.c->spec, older);
  CHECK_FALSE(old_files.count("figures/seeds-category.vl.json"));
  CHECK(contains(old_files.at("report.md"), "results.json has no seed counts"));
}
