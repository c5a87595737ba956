// pipeline_test.cpp: the whole `mirac analyze` pipeline on small.audit and the synthetic
// scores_small.csv, against reference values computed by scipy / statsmodels / pandas
// (generate_reference.py -> small.json) and lme4 + lmerTest (generate_lmer.R ->
// small.lme4.json). Tolerances as in the issue: LMM estimates and SEs 1e-6 relative,
// p-values 1e-8 absolute, everything else 1e-12 or exact.
#include <doctest/doctest.h>

#include <map>

#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;
using nlohmann::json;

namespace {

// One analyze run shared by the test cases (it takes a second or two).
const Run& small_run() {
  static const Run run = [] {
    auto dir = temp_dir("small");
    return run_analyze(reference_dir() / "small.audit", reference_dir() / "scores_small.csv", dir / "out");
  }();
  return run;
}

const json& reference() {
  static const json j = read_json(reference_dir() / "small.json");
  return j;
}
const json& lme4() {
  static const json j = read_json(reference_dir() / "small.lme4.json");
  return j;
}

const json& analysis(const std::string& name) {
  for (const auto& a : small_run().results.at("analyses"))
    if (a.at("name") == name) return a;
  throw std::runtime_error("no analysis " + name);
}

double num(const json& j) { return j.is_null() ? std::nan("") : j.get<double>(); }

}  // namespace

TEST_CASE("analyze small.audit: runs cleanly and writes the manifest") {
  const Run& r = small_run();
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const json& m = r.results.at("manifest");
  CHECK(m.at("mirac_version") == MIRAC_VERSION);
  CHECK(m.at("scores").at("rows") == 3456);
  CHECK(m.at("scores").at("sha256").get<std::string>().size() == 64);
  CHECK(m.at("spec").at("sha256").get<std::string>().size() == 64);
  CHECK(m.at("bootstrap").at("seed") == 7);
  CHECK(m.at("bootstrap").at("resamples") == 200);
  for (const char* table : {"means", "contrasts", "flags", "lmm_rq1", "lmm_rq1_inter", "wilcoxon_rq2", "paired_rq4",
                            "patterns_rq4", "spearman_rq3"})
    CHECK_MESSAGE(std::filesystem::exists(r.dir / (std::string(table) + ".csv")), table);
}

TEST_CASE("means by model x arm match pandas") {
  const json& got = small_run().results.at("means");
  std::size_t checked = 0;
  for (const auto& e : reference().at("means")) {
    for (const auto& g : got) {
      if (g.at("model") != e.at("model") || g.at("arm") != e.at("arm")) continue;
      const json& d = g.at("dimensions").at(e.at("dimension").get<std::string>());
      CHECK(close_rel(num(d.at("mean")), e.at("mean").get<double>(), 1e-12));
      CHECK(d.at("n") == e.at("n"));
      ++checked;
    }
  }
  CHECK(checked == 30);
}

TEST_CASE("cell means merge back exactly into the means by model x arm") {
  const json& means = small_run().results.at("means");
  const json& cells = small_run().results.at("cell_means");
  REQUIRE(cells.size() > means.size());
  for (const auto& m : means) {
    std::size_t rows = 0;
    std::map<std::string, std::pair<double, double>> sums;  // dim -> (sum of mean * n, n)
    for (const auto& c : cells) {
      if (c.at("model") != m.at("model") || c.at("arm") != m.at("arm")) continue;
      CHECK(c.at("cell").size() == 5);  // every factor of small.audit's design
      rows += c.at("rows").get<std::size_t>();
      for (const auto& [dim, d] : c.at("dimensions").items())
        if (d.at("n").get<double>() > 0)
          sums[dim].first += num(d.at("mean")) * d.at("n").get<double>(), sums[dim].second += d.at("n").get<double>();
    }
    CHECK(rows == m.at("rows").get<std::size_t>());
    for (const auto& [dim, d] : m.at("dimensions").items()) {
      CHECK(sums[dim].second == d.at("n").get<double>());
      CHECK(close_rel(sums[dim].first / sums[dim].second, num(d.at("mean")), 1e-12));
    }
  }
}

TEST_CASE("contrasts and their bootstrap intervals match a draw-for-draw replay") {
  const json& got = small_run().results.at("contrasts");
  std::size_t checked = 0;
  for (const auto& e : reference().at("contrasts")) {
    for (const auto& c : got) {
      if (c.at("name") != e.at("contrast")) continue;
      for (const auto& g : c.at("groups")) {
        bool same = true;
        for (auto it = e.at("group").begin(); it != e.at("group").end(); ++it) same = same && g.at(it.key()) == it.value();
        if (!same) continue;
        INFO(e.dump());
        CHECK(close_rel(num(g.at("estimate")), e.at("estimate").get<double>(), 1e-12));
        CHECK(close_rel(num(g.at("ci").at("lower")), e.at("lower").get<double>(), 1e-12));
        CHECK(close_rel(num(g.at("ci").at("upper")), e.at("upper").get<double>(), 1e-12));
        CHECK(g.at("ci").at("method") == e.at("method"));
        CHECK(g.at("ci").at("small_design") == false);  // 12 seeds: the smallest verified design
        CHECK(g.at("seeds") == e.at("seeds"));
        ++checked;
      }
    }
  }
  CHECK(checked == 10);
}

TEST_CASE("flags: unit counts per answer, pair counts over matched pairs") {
  const json& got = small_run().results.at("flags");
  std::map<std::string, const json*> by_name;
  for (const auto& f : got) by_name[f.at("name")] = &f;
  std::size_t checked = 0;
  for (const auto& e : reference().at("flags")) {
    INFO(e.dump());
    const json& f = *by_name.at(e.at("flag"));
    const json* list = &f.at("by_model_arm");
    const std::string pairing = e.at("pairing");
    if (!pairing.empty() && pairing != "all") {
      for (const auto& p : f.at("pairings"))
        if (p.at("pairing") == pairing) list = &p.at("by_model_arm");
    }
    if (pairing.empty()) CHECK(f.at("kind") == "unit");
    for (const auto& row : *list) {
      if (row.at("model") != e.at("model") || row.at("arm") != e.at("arm")) continue;
      CHECK(row.at("count") == e.at("count"));
      CHECK(row.at(pairing.empty() ? "answers" : "pairs") == e.at("n"));
      if (pairing.empty()) {  // the answers a unit flag can apply to, and its rate over them
        CHECK(row.at("applicable") == e.at("applicable"));
        const double applicable = e.at("applicable").get<double>();
        if (applicable > 0) CHECK(close_rel(num(row.at("rate_applicable")), e.at("count").get<double>() / applicable, 1e-12));
        else CHECK(row.at("rate_applicable").is_null());
      }
      if (e.contains("dimensions")) {  // a pair flag's differences a - b (pandas)
        REQUIRE(row.contains("dimensions"));
        for (const auto& [dim, want] : e.at("dimensions").items()) {
          INFO(dim);
          const json& have = row.at("dimensions").at(dim);
          CHECK(have.at("pairs_scored") == want.at("pairs_scored"));
          CHECK(have.at("flagged_a_higher") == want.at("flagged_a_higher"));
          CHECK(have.at("flagged_b_higher") == want.at("flagged_b_higher"));
          if (want.at("mean_delta").is_null()) CHECK(have.at("mean_delta").is_null());
          else CHECK(close_rel(num(have.at("mean_delta")), want.at("mean_delta").get<double>(), 1e-12));
        }
      }
      ++checked;
    }
  }
  CHECK(checked == reference().at("flags").size());
}

TEST_CASE("lmm rq1 agrees with lme4 + lmerTest and statsmodels") {
  const json& a = analysis("rq1");
  const json& ref = lme4().at("rq1");
  REQUIRE(a.at("fixed").size() == ref.at("names").size());
  CHECK(a.at("n") == ref.at("nobs"));
  CHECK(a.at("convergence").at("status") == "converged");
  for (std::size_t i = 0; i < ref.at("names").size(); ++i) {
    const json& f = a.at("fixed")[i];
    INFO(f.dump());
    CHECK(f.at("term") == ref.at("names")[i]);
    double se = ref.at("se")[i];
    CHECK(std::fabs(num(f.at("estimate")) - ref.at("estimate")[i].get<double>()) <= 1e-6 * std::max(std::fabs(ref.at("estimate")[i].get<double>()), se));
    CHECK(close_rel(num(f.at("se")), se, 1e-6));
    CHECK(close_rel(num(f.at("df")), ref.at("df")[i].get<double>(), 1e-6));
    CHECK(std::fabs(num(f.at("p_satterthwaite")) - ref.at("p")[i].get<double>()) <= 1e-8);
    CHECK(std::fabs(num(f.at("p_normal")) - ref.at("p_normal")[i].get<double>()) <= 1e-8);
  }
  CHECK(close_rel(num(a.at("random")[0].at("variance")), ref.at("group_variance").get<double>(), 1e-6));
  CHECK(a.at("random")[0].at("groups") == ref.at("n_groups"));
  CHECK(close_rel(num(a.at("residual_variance")), ref.at("residual_variance").get<double>(), 1e-6));
  CHECK(close_rel(num(a.at("log_likelihood")), ref.at("logLik").get<double>(), 1e-9));
  // statsmodels' MixedLM: same REML log-likelihood (it stops early, so only llf is tight).
  CHECK(close_rel(num(a.at("log_likelihood")), reference().at("mixedlm_rq1").at("llf").get<double>(), 1e-6));
  CHECK(a.at("n") == reference().at("mixedlm_rq1").at("nobs"));
}

TEST_CASE("lmm with an interaction alone (language:hls) agrees with lme4") {
  const json& a = analysis("rq1_inter");
  const json& ref = lme4().at("rq1_inter");
  REQUIRE(a.at("fixed").size() == ref.at("names").size());
  CHECK(a.at("n") == ref.at("nobs"));
  // R lists the hand-made interaction column before skeleton; mirac orders terms by degree.
  for (std::size_t i = 0; i < ref.at("names").size(); ++i) {
    const json* found = nullptr;
    for (const auto& g : a.at("fixed"))
      if (g.at("term") == ref.at("names")[i]) found = &g;
    REQUIRE_MESSAGE(found, ref.at("names")[i]);
    const json& f = *found;
    INFO(f.dump());
    CHECK(close_rel(num(f.at("se")), ref.at("se")[i].get<double>(), 1e-6));
    CHECK(std::fabs(num(f.at("estimate")) - ref.at("estimate")[i].get<double>()) <= 1e-6 * std::max(std::fabs(ref.at("estimate")[i].get<double>()), ref.at("se")[i].get<double>()));
    CHECK(std::fabs(num(f.at("p_satterthwaite")) - ref.at("p")[i].get<double>()) <= 1e-8);
  }
  CHECK(close_rel(num(a.at("reml_criterion")), ref.at("reml_criterion").get<double>(), 1e-9));
}

TEST_CASE("wilcoxon rq2 matches scipy, BH and Cohen's d_z") {
  const json& tests = analysis("rq2").at("tests");
  REQUIRE(tests.size() == reference().at("wilcoxon_rq2").size());
  CHECK(analysis("rq2").at("family_size") == 8);
  for (const auto& e : reference().at("wilcoxon_rq2")) {
    INFO(e.dump());
    bool found = false;
    for (const auto& t : tests) {
      if (t.at("compare") != e.at("compare") || t.at("within").at("language") != e.at("within") ||
          t.at("dimension") != e.at("dimension"))
        continue;
      found = true;
      CHECK(t.at("n") == e.at("n"));
      for (const char* k : {"mean_treatment", "mean_control", "mean_delta", "cohen_dz", "q"})
        CHECK_MESSAGE(close_rel(num(t.at(k)), e.at(k).get<double>(), 1e-12), k);
      CHECK(close_rel(num(t.at("wilcoxon").at("statistic")), e.at("statistic").get<double>(), 1e-12));
      CHECK(close_rel(num(t.at("wilcoxon").at("p")), e.at("p").get<double>(), 1e-12));
      for (const char* k : {"increased", "decreased", "unchanged"}) CHECK(t.at(k) == e.at(k));
      CHECK(t.at("duplicate_keys") == 0);
    }
    CHECK(found);
  }
}

TEST_CASE("paired rq4 (mitigation - baseline) matches scipy and the joint patterns") {
  const json& cmp = analysis("rq4").at("comparisons").at(0);
  CHECK(cmp.at("compare") == "arm: mitigation vs baseline");
  for (const auto& e : reference().at("paired_rq4")) {
    INFO(e.dump());
    for (const auto& g : cmp.at("groups")) {
      if (g.at("model") != e.at("model")) continue;
      const json& d = g.at("dimensions").at(e.at("dimension").get<std::string>());
      CHECK(d.at("n") == e.at("n"));
      for (const char* k : {"mean_delta", "cohen_dz", "q"}) CHECK_MESSAGE(close_rel(num(d.at(k)), e.at(k).get<double>(), 1e-12), k);
      CHECK(close_rel(num(d.at("wilcoxon").at("p")), e.at("p").get<double>(), 1e-12));
      for (const char* k : {"increased", "decreased", "unchanged"}) CHECK(d.at(k) == e.at(k));
    }
  }
  for (const auto& e : reference().at("patterns_rq4")) {
    for (const auto& g : cmp.at("groups")) {
      if (g.at("model") != e.at("model")) continue;
      CHECK(g.at("pairs") == e.at("pairs"));
      CHECK(g.at("patterns")[0].at("pattern") == "delta.D3 > 0 and delta.Q3 > 0");
      CHECK(g.at("patterns")[0].at("count") == e.at("worse_worse"));
      CHECK(g.at("patterns")[1].at("count") == e.at("worse_better"));
    }
  }
}

TEST_CASE("spearman rq3 against the external file matches scipy") {
  const json& results = analysis("rq3").at("results");
  REQUIRE(results.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const json& e = reference().at("spearman_rq3")[i];
    CHECK(results[i].at("n") == 6);
    CHECK(close_rel(num(results[i].at("rho")), e.at("rho").get<double>(), 1e-12));
    CHECK(close_rel(num(results[i].at("p")), e.at("p").get<double>(), 1e-12));
    for (std::size_t k = 0; k < 6; ++k)
      CHECK(close_rel(num(results[i].at("groups")[k].at("audit_mean")), e.at("audit_means")[k].get<double>(), 1e-12));
  }
}
