// clmm_test.cpp: `analysis ... = clmm(...)` through the whole `mirac analyze` pipeline on
// small.audit's scores. The statistics themselves are pinned to R's ordinal::clmm in
// tests/stats/test_clmm.cpp; here the model frame (where, reference, N/A, the terms) must be
// the one lmm rq1 fits on the same rows, and the results.json entry and CSV must be complete.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;
using nlohmann::json;

namespace {

// small.audit plus ordinal versions of rq1, written to a temporary spec.
const Run& clmm_run() {
  static const Run run = [] {
    auto dir = temp_dir("clmm");
    std::ifstream in(reference_dir() / "small.audit");
    std::stringstream text;
    text << in.rdbuf()
         << "\nanalysis rq1_ord = clmm(D3 ~ language * hls + register + model + condition + category + (1 | seed)) {\n"
            "  where arm == baseline\n  reference language: en, hls: high, condition: B\n}\n"
            "analysis q3_ord = clmm(Q3 ~ language + (1 | seed)) {\n  where arm == baseline and model == claude\n}\n";
    std::filesystem::copy_file(reference_dir() / "external.csv", dir / "external.csv");  // rq3 reads it
    const auto spec = dir / "small_clmm.audit";
    std::ofstream(spec) << text.str();
    return run_analyze(spec, reference_dir() / "scores_small.csv", dir / "out");
  }();
  return run;
}

const json& analysis(const std::string& name) {
  for (const auto& a : clmm_run().results.at("analyses"))
    if (a.at("name") == name) return a;
  throw std::runtime_error("no analysis " + name);
}

}  // namespace

TEST_CASE("clmm rq1_ord fits the rows and terms of lmm rq1, with thresholds in place of the intercept") {
  const Run& r = clmm_run();
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json& o = analysis("rq1_ord");
  const json& l = analysis("rq1");
  INFO(o.dump());
  CHECK(o.at("kind") == "clmm");
  CHECK(o.at("formula") == "D3 ~ language * hls + register + model + condition + category + (1 | seed)");
  CHECK(o.at("n") == l.at("n"));  // same where, same N/A dropped
  CHECK(o.at("reference") == l.at("reference"));
  REQUIRE(o.at("fixed").size() + 1 == l.at("fixed").size());
  for (std::size_t i = 0; i < o.at("fixed").size(); ++i) {
    const json& f = o.at("fixed")[i];
    const json& g = l.at("fixed")[i + 1];
    CHECK(f.at("term") == g.at("term"));
    // a clear effect on the mean score has the same sign in log-odds of a higher score
    if (std::fabs(g.at("z").get<double>()) > 4.0) CHECK(f.at("estimate").get<double>() * g.at("estimate").get<double>() > 0.0);
    CHECK(f.at("se").get<double>() > 0.0);
    CHECK(f.at("p").get<double>() >= 0.0);
  }
  const json& th = o.at("thresholds");
  REQUIRE(th.size() == o.at("categories").size() - 1);
  CHECK(th[0].at("name") == "1|2");
  for (std::size_t j = 1; j < th.size(); ++j) CHECK(th[j].at("estimate").get<double>() > th[j - 1].at("estimate").get<double>());
  CHECK(o.at("random")[0].at("group") == "seed");
  CHECK(o.at("random")[0].at("groups") == l.at("random")[0].at("groups"));
  CHECK(o.at("random")[0].at("sd").get<double>() > 0.0);
  CHECK(o.at("log_likelihood").get<double>() < 0.0);
  CHECK(o.at("convergence").at("status") == "converged");
  CHECK(o.at("convergence").at("converged") == true);
  CHECK(o.at("convergence").at("max_abs_gradient").get<double>() < 1e-5);
  CHECK(std::filesystem::exists(r.dir / "clmm_rq1_ord.csv"));
  CHECK(std::filesystem::exists(r.dir / "clmm_q3_ord.csv"));
}

TEST_CASE("clmm reports a score that is not a whole number instead of rounding it") {
  auto dir = temp_dir("clmm_fraction");
  std::ifstream in(reference_dir() / "scores_small.csv");
  std::stringstream csv;
  csv << in.rdbuf();
  std::string text = csv.str();
  // the first data row's D3 (5) becomes 4.5
  const auto line = text.find('\n') + 1;
  const auto d3 = text.find(",5,4,5\n", line);
  REQUIRE(d3 != std::string::npos);
  text.replace(d3, 7, ",4.5,4,5\n");
  std::ofstream(dir / "scores.csv") << text;
  std::ifstream spec_in(reference_dir() / "small.audit");
  std::stringstream spec;
  spec << spec_in.rdbuf() << "\nanalysis ord = clmm(D3 ~ language + (1 | seed)) {\n  where arm == baseline\n}\n";
  std::ofstream(dir / "spec.audit") << spec.str();
  std::filesystem::copy_file(reference_dir() / "external.csv", dir / "external.csv");
  // The scores file is checked before any analysis runs (clmm_fit checks again, for callers
  // of the statistics; see test_clmm.cpp).
  const Run r = run_analyze(dir / "spec.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  CHECK(r.code != 0);
  CHECK(r.err.find("'4.5' for D3 is not an integer") != std::string::npos);
}
