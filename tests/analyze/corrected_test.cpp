// corrected_test.cpp: a `corrected` analysis end to end through `mirac analyze` on a scores
// file holding a judge's scores of every answer and people's of a third of them. The
// corrected means, contrast and flag rates in results.json are recomputed here from the
// file's values with the formulas written out (docs/statistics.md, section 9): PPI is the
// judge's mean plus the mean of people minus judge on the sample, PPI++ the same with the
// sample's regression slope, Rogan-Gladen (p_obs + spec - 1) / (sens + spec - 1). Then the
// whole way from a run: an offline run without people's scores warns and leaves the
// analysis empty, and after `mirac annotate sample` and `import` it has them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <fmt/format.h>

#include "runtime/stats/agreement.hpp"
#include "tests/analyze/analyze_support.hpp"

using namespace analyze_test;

namespace {

using Json = nlohmann::json;

const char* kSpec = R"(audit fix {
  scores judge
}

use stdlib.providers

factor language { zh en }
factor hls { high low }

seeds {
  seed q0 {
    question = "Q0?"
  }
  seed q1 {
    question = "Q1?"
  }
  seed q2 {
    question = "Q2?"
  }
  seed q3 {
    question = "Q3?"
  }
  seed q4 {
    question = "Q4?"
  }
  seed q5 {
    question = "Q5?"
  }
  seed q6 {
    question = "Q6?"
  }
  seed q7 {
    question = "Q7?"
  }
  seed q8 {
    question = "Q8?"
  }
  seed q9 {
    question = "Q9?"
  }
  seed q10 {
    question = "Q10?"
  }
  seed q11 {
    question = "Q11?"
  }
}

text language {
  zh "中文"
  en "English"
}

prompt {
  id "{seed.id}_{language}_{hls}"
  text language.text ++ hls ++ seed.question
}

model gpt = openai("gpt-test")
model qwen = openai("qwen-test")

rubric tiny {
  scale 1..5
  worst high
  dim D3 "Depth" {
    1 "Deep"
    5 "Shallow"
  }
  dim Q2 "Clarity" {
    1 "Clear"
    5 "Confusing"
  }
}

judge judge = openai("judge-a") { rubric tiny }

flag SEVERE = D3 >= 4

contrast DTI = D3[zh, low] - D3[en, high] by model

analysis fixed = corrected(D3, Q2) {
  by model
  contrasts DTI
  flags SEVERE
  certify qwk >= 0.5
}

analysis tuned = corrected(D3) { method power_tuned }
)";

const char* kLanguages[] = {"zh", "en"};
const char* kLiteracy[] = {"high", "low"};
const char* kModels[] = {"gpt", "qwen"};

// One answer of the file: its levels and both raters' scores (people's NaN when unscored).
struct Answer {
  int seed, model, language, hls;
  double judge_d3, judge_q2, people_d3, people_q2;
};

// A truth per answer with a seed effect; people give it, rounded. The judge reads D3 0.8
// too high in Chinese and adds noise; its Q2 is people's plus noise. People score every
// answer whose index is a multiple of 3: four of the twelve in every cell.
std::vector<Answer> answers() {
  std::mt19937_64 rng(2026);
  auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  auto noise = [&](double sd) { return (uniform() + uniform() + uniform() - 1.5) * 2.0 * sd; };
  auto score = [](double x) { return std::min(5.0, std::max(1.0, std::nearbyint(x))); };
  std::vector<Answer> out;
  for (int s = 0; s < 12; ++s) {
    const double seed_effect = noise(0.6);
    for (int m = 0; m < 2; ++m)
      for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h) {
          const double truth = 3.0 + seed_effect + 0.3 * h + 0.2 * m + noise(0.5);
          const double people_q2 = score(truth + noise(0.6));
          Answer a{s, m, l, h, score(truth + (l == 0 ? 0.8 : 0.0) + noise(0.5)), score(people_q2 + noise(0.4)),
                   score(truth), people_q2};
          if (out.size() % 3 != 0) a.people_d3 = a.people_q2 = std::nan("");
          out.push_back(a);
        }
  }
  return out;
}

std::string scores_csv(const std::vector<Answer>& all) {
  std::string csv = "rater,seed,model,arm,language,hls,D3,Q2\n";
  for (const Answer& a : all) {
    const std::string key = fmt::format("q{},{},baseline,{},{}", a.seed, kModels[a.model], kLanguages[a.language], kLiteracy[a.hls]);
    csv += fmt::format("judge,{},{},{}\n", key, a.judge_d3, a.judge_q2);
    if (!std::isnan(a.people_d3)) csv += fmt::format("human,{},{},{}\n", key, a.people_d3, a.people_q2);
  }
  return csv;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double covariance(const std::vector<double>& x, const std::vector<double>& y) {
  const double mx = mean(x), my = mean(y);
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += (x[i] - mx) * (y[i] - my);
  return s / static_cast<double>(x.size() - 1);
}

// PPI with coefficient lambda: lambda mean_N(f) + mean_n(y - lambda f).
struct Expected {
  std::size_t N = 0, n = 0;
  double judge = 0, corrected = 0;
};
Expected ppi(const std::vector<double>& judge_all, const std::vector<double>& judge_sample,
             const std::vector<double>& people_sample, double lambda) {
  Expected e;
  e.N = judge_all.size();
  e.n = people_sample.size();
  e.judge = mean(judge_all);
  std::vector<double> residual;
  for (std::size_t i = 0; i < people_sample.size(); ++i) residual.push_back(people_sample[i] - lambda * judge_sample[i]);
  e.corrected = lambda * e.judge + mean(residual);
  return e;
}

const Json& analysis(const Run& r, const std::string& name) {
  for (const auto& a : r.results["analyses"])
    if (a["name"] == name) return a;
  FAIL("no analysis " << name);
  static Json none;
  return none;
}

}  // namespace

TEST_CASE("corrected means, contrast and flag rate equal their formulas on the scores file's values") {
  auto dir = temp_dir("corrected");
  std::ofstream(dir / "fix.audit") << kSpec;
  const std::vector<Answer> all = answers();
  std::ofstream(dir / "scores.csv") << scores_csv(all);
  Run r = run_analyze(dir / "fix.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json& fixed = analysis(r, "fixed");
  INFO(fixed.dump(1));
  REQUIRE(!fixed.contains("error"));
  CHECK(fixed["judge"] == "judge");
  CHECK(fixed["people"] == "human");
  CHECK(fixed["method"] == "ppi");

  // Means per dimension and model.
  std::size_t at = 0;
  for (const char* dim : {"D3", "Q2"})
    for (int m = 0; m < 2; ++m) {
      std::vector<double> f_all, f, y;
      for (const Answer& a : all) {
        if (a.model != m) continue;
        const double judge = dim == std::string("D3") ? a.judge_d3 : a.judge_q2;
        const double people = dim == std::string("D3") ? a.people_d3 : a.people_q2;
        f_all.push_back(judge);
        if (!std::isnan(people)) f.push_back(judge), y.push_back(people);
      }
      const Expected e = ppi(f_all, f, y, 1.0);
      const Json& entry = fixed["results"][at++];
      CAPTURE(dim);
      CAPTURE(m);
      CHECK(entry["dimension"] == dim);
      CHECK(entry["model"] == kModels[m]);
      CHECK(entry["N"] == e.N);
      CHECK(!entry.contains("small_design"));  // 12 seeds: the smallest design verified
      CHECK(entry["n"] == e.n);
      CHECK(close_rel(entry["judge_only"]["estimate"].get<double>(), e.judge, 1e-12));
      CHECK(close_rel(entry["corrected"]["estimate"].get<double>(), e.corrected, 1e-12));
      CHECK(close_rel(entry["people_only"]["estimate"].get<double>(), mean(y), 1e-12));
      const Json& ci = entry["corrected"]["ci"];
      REQUIRE(ci.is_array());
      CHECK(ci[0].get<double>() <= e.corrected);
      CHECK(ci[1].get<double>() >= e.corrected);
    }
  // The judge reads D3 too high in Chinese: uncorrected it sits above people's mean.
  CHECK(fixed["results"][0]["judge_only"]["estimate"].get<double>() >
        fixed["results"][0]["corrected"]["estimate"].get<double>());

  // The contrast: each cell corrected on its own sample.
  for (int m = 0; m < 2; ++m) {
    auto cell = [&](int language, int hls) {
      std::vector<double> f_all, f, y;
      for (const Answer& a : all) {
        if (a.model != m || a.language != language || a.hls != hls) continue;
        f_all.push_back(a.judge_d3);
        if (!std::isnan(a.people_d3)) f.push_back(a.judge_d3), y.push_back(a.people_d3);
      }
      return ppi(f_all, f, y, 1.0);
    };
    const Expected zh_low = cell(0, 1), en_high = cell(1, 0);
    const Json& group = fixed["contrasts"][0]["groups"][m];
    CHECK(group["model"] == kModels[m]);
    CHECK(close_rel(group["judge_only"]["estimate"].get<double>(), zh_low.judge - en_high.judge, 1e-12));
    CHECK(close_rel(group["corrected"]["estimate"].get<double>(), zh_low.corrected - en_high.corrected, 1e-12));
    CHECK(group["cells"][0]["cell"] == "D3[zh, low]");
    CHECK(group["cells"][0]["n"] == zh_low.n);
    CHECK(group["cells"][1]["N"] == en_high.N);
  }
  CHECK(fixed["contrasts"][0]["dimensions"] == Json::array({"D3"}));

  // The flag: the judge's rate, Rogan-Gladen from the sample's sensitivity and specificity,
  // and PPI of the 0/1 flags.
  for (int m = 0; m < 2; ++m) {
    double N = 0, flagged = 0, pos = 0, tp = 0, neg = 0, fp = 0;
    std::vector<double> f_all, f, y;
    for (const Answer& a : all) {
      if (a.model != m) continue;
      const double judge = a.judge_d3 >= 4 ? 1 : 0;
      ++N, flagged += judge;
      f_all.push_back(judge);
      if (std::isnan(a.people_d3)) continue;
      const double people = a.people_d3 >= 4 ? 1 : 0;
      f.push_back(judge), y.push_back(people);
      if (people == 1) ++pos, tp += judge;
      else ++neg, fp += judge;
    }
    const Json& group = fixed["flags"][0]["groups"][m];
    CAPTURE(m);
    CHECK(group["N"] == N);
    CHECK(group["n"] == pos + neg);
    CHECK(group["people_flagged"] == pos);
    CHECK(close_rel(group["judge_only"]["estimate"].get<double>(), flagged / N, 1e-12));
    CHECK(close_rel(group["corrected"]["estimate"].get<double>(), ppi(f_all, f, y, 1.0).corrected, 1e-12));
    const double sens = tp / pos, spec = 1 - fp / neg;
    const double rg = std::clamp((flagged / N + spec - 1) / (sens + spec - 1), 0.0, 1.0);
    CHECK(close_rel(group["rogan_gladen"]["sensitivity"].get<double>(), sens, 1e-12));
    CHECK(close_rel(group["rogan_gladen"]["specificity"].get<double>(), spec, 1e-12));
    CHECK(close_rel(group["rogan_gladen"]["estimate"].get<double>(), rg, 1e-12));
  }

  // Certification: the kappa of judge and people over every answer both scored.
  std::vector<double> judge_d3, people_d3;
  for (const Answer& a : all)
    if (!std::isnan(a.people_d3)) judge_d3.push_back(a.judge_d3), people_d3.push_back(a.people_d3);
  const std::vector<double> labels = {1, 2, 3, 4, 5};
  const double qwk = mirac::stats::quadratic_weighted_kappa(judge_d3, people_d3, labels);
  const Json& d3 = fixed["certification"]["dimensions"]["D3"];
  CHECK(fixed["certification"]["rules"] == Json::array({"qwk >= 0.5"}));
  CHECK(d3["n"] == judge_d3.size());
  CHECK(close_rel(d3["qwk"].get<double>(), qwk, 1e-12));
  CHECK(d3["certified"] == (qwk >= 0.5));
  CHECK(fixed["results"][0]["certified"] == (qwk >= 0.5));
  CHECK(fixed["certification"]["flags"].contains("SEVERE"));

  // PPI++: lambda is the sample's slope of people on the judge.
  std::vector<double> f_all;
  for (const Answer& a : all) f_all.push_back(a.judge_d3);
  const double lambda = covariance(people_d3, judge_d3) / covariance(judge_d3, judge_d3);
  const Json& tuned = analysis(r, "tuned")["results"][0];
  CHECK(close_rel(tuned["corrected"]["lambda"].get<double>(), lambda, 1e-12));
  CHECK(close_rel(tuned["corrected"]["estimate"].get<double>(), ppi(f_all, judge_d3, people_d3, lambda).corrected, 1e-12));

  // The CSV table and the report.
  const std::string csv = read_text(dir / "out" / "corrected_fixed.csv");
  CHECK(csv.find("part,name,group,N,n,judge_only,") != std::string::npos);
  CHECK(csv.find("\nflag,SEVERE,gpt,") != std::string::npos);
  const std::string report = read_text(dir / "out" / "report.md");
  CHECK(report.find("Analysis fixed: judge judge corrected with the scores of human") != std::string::npos);
  CHECK(report.find("| contrast DTI | gpt |") != std::string::npos);
}

TEST_CASE("a scores file without people's scores leaves the analysis empty, said once with how to add them") {
  auto dir = temp_dir("corrected_no_people");
  std::ofstream(dir / "fix.audit") << kSpec;
  std::string csv;
  for (const Answer& a : answers())
    csv += fmt::format("judge,q{},{},baseline,{},{},{},{}\n", a.seed, kModels[a.model], kLanguages[a.language],
                       kLiteracy[a.hls], a.judge_d3, a.judge_q2);
  std::ofstream(dir / "scores.csv") << "rater,seed,model,arm,language,hls,D3,Q2\n" + csv;
  Run r = run_analyze(dir / "fix.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  CHECK(r.code == 0);
  // Said once, as a note: the file has no people's scores, and how to give them.
  CHECK(r.err.find("note: the scores file has no people's scores (no rows of rater 'human'), so analyses fixed and tuned "
                   "stay empty") != std::string::npos);
  const Json& fixed = analysis(r, "fixed");
  CHECK(fixed["error"].get<std::string>().rfind("no scores of rater 'human'", 0) == 0);
  CHECK(fixed["missing_scores"] == "human");
  CHECK(!fixed.contains("results"));
  // The report says, in the table's place, why it is empty and how to fill it.
  const std::string report = read_text(dir / "out" / "report.md");
  CHECK(report.find("**Analysis fixed (corrected)**\n\n> Empty until people score answers: analysis fixed corrects the "
                    "judge's figures with people's scores (rater `human`)") != std::string::npos);
  CHECK(report.find("`mirac analyze SPEC --scores FILE`, as rows whose `rater` is `human`") != std::string::npos);
}

namespace {

int cli(std::vector<std::string> args, std::string& err) {
  std::ostringstream out, errors;
  const int code = mirac::run_cli(args, out, errors);
  err = out.str() + errors.str();
  return code;
}

// The spec with a simulate block, so that the offline judge's scores vary.
std::string simulated_spec() {
  return std::string(kSpec) +
         "\nsimulate {\n  seed 7\n  dim D3 {\n    intercept 3\n    effect language == zh: 0.5\n    random seed 0.6\n"
         "    residual 0.6\n  }\n  dim Q2 {\n    intercept 2.5\n    residual 0.8\n  }\n}\n";
}

}  // namespace

TEST_CASE("from a run: no people's scores yet is a note; after annotate sample and import the means are corrected") {
  auto dir = temp_dir("corrected_run");
  const std::string spec = (dir / "fix.audit").string(), store = (dir / "run").string(), sample = (dir / "sample").string();
  std::ofstream(spec) << simulated_spec();
  std::string err;
  REQUIRE(cli({"run", spec, "--offline", "--store", store, "--resamples", "50"}, err) == 0);
  INFO(err);
  CHECK(err.find("note: no people's scores yet (rater 'human'), so analyses fixed and tuned stay empty until "
                 "people score answers") != std::string::npos);
  CHECK(err.find("note: to add them: `mirac annotate sample SPEC`") != std::string::npos);

  REQUIRE(cli({"annotate", "sample", spec, "--n", "32", "--stratify", "model,language,hls", "--offline", "--store", store, "-o",
               sample},
              err) == 0);
  // A scripted annotator: D3 from the item number, Q2 always 2.
  std::istringstream sheet(read_text(dir / "sample" / "sheet.csv"));
  std::string line, filled;
  std::getline(sheet, line);
  filled = line + "\n";
  while (std::getline(sheet, line)) {
    const std::size_t comma = line.find(',');
    const int item = std::stoi(line.substr(0, comma));
    const std::size_t id_end = line.find(',', comma + 1), prompt_end = line.find(',', id_end + 1);
    filled += fmt::format("{},{},{},\n", line.substr(0, prompt_end), 1 + item % 5, 2);
  }
  std::ofstream(dir / "alice.csv") << filled;
  REQUIRE(cli({"annotate", "import", spec, (dir / "alice.csv").string(), "--annotator", "alice", "--offline", "--store", store},
              err) == 0);
  REQUIRE(cli({"analyze", spec, "--offline", "--store", store, "--resamples", "50"}, err) == 0);
  CHECK(err.find("no people's scores") == std::string::npos);

  // The run writes both raters' scores to results/scores.csv: recompute D3 for gpt from it.
  std::istringstream scores(read_text(dir / "run" / "results" / "scores.csv"));
  std::map<std::string, double> judge, people;  // answer -> D3, gpt's answers only
  while (std::getline(scores, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("rater,", 0) == 0) continue;
    std::vector<std::string> cells;
    for (std::size_t from = 0;;) {
      const std::size_t to = line.find(',', from);
      cells.push_back(line.substr(from, to - from));
      if (to == std::string::npos) break;
      from = to + 1;
    }
    REQUIRE(cells.size() == 8);  // rater, seed, model, arm, language, hls, D3, Q2
    if (cells[2] != "gpt") continue;
    (cells[0] == "judge" ? judge : people)[cells[1] + cells[4] + cells[5]] = std::stod(cells[6]);
  }
  REQUIRE(judge.size() == 48);
  double judge_sum = 0, error_sum = 0;
  for (const auto& [answer, f] : judge) judge_sum += f;
  for (const auto& [answer, y] : people) error_sum += y - judge.at(answer);
  const Json results = read_json(dir / "run" / "results" / "results.json");
  const Json* fixed = nullptr;
  for (const auto& a : results["analyses"])
    if (a["name"] == "fixed") fixed = &a;
  REQUIRE(fixed != nullptr);
  INFO(fixed->dump(1));
  const Json& d3_gpt = (*fixed)["results"][0];
  CHECK(d3_gpt["model"] == "gpt");
  CHECK(d3_gpt["N"] == 48);
  CHECK(d3_gpt["n"] == people.size());
  CHECK(close_rel(d3_gpt["corrected"]["estimate"].get<double>(),
                  judge_sum / 48.0 + error_sum / static_cast<double>(people.size()), 1e-12));
}

TEST_CASE("a figure resting on people's scores of a seed or two has its estimate but no interval") {
  // People scored two of gpt's answers, both of seed q0: a resample without q0 has nothing
  // to correct with, 1 - (11/12)^12 = 65% of them, so no interval is claimed.
  auto dir = temp_dir("corrected_sparse");
  std::ofstream(dir / "fix.audit") << kSpec;
  std::vector<Answer> all = answers();
  for (Answer& a : all)
    if (a.seed != 0 || a.model != 0 || a.hls != 0) a.people_d3 = a.people_q2 = std::nan("");
    else a.people_d3 = a.people_q2 = 3;
  std::ofstream(dir / "scores.csv") << scores_csv(all);
  Run r = run_analyze(dir / "fix.audit", dir / "scores.csv", dir / "out");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json& d3_gpt = analysis(r, "fixed")["results"][0];
  INFO(d3_gpt.dump(1));
  CHECK(d3_gpt["n"] == 2);
  CHECK(d3_gpt["corrected"]["estimate"].is_number());
  CHECK(d3_gpt["corrected"]["ci"].is_null());
  CHECK(d3_gpt["corrected"]["ci_undefined_resamples"].get<double>() > 0.05 * 200);
  CHECK(d3_gpt["note"] == "too few of people's scores, or from too few seeds, for an interval");
  CHECK(d3_gpt["judge_only"]["ci"].is_array());
  // qwen's answers: none scored, nothing to correct with.
  CHECK(analysis(r, "fixed")["results"][1]["corrected"]["estimate"].is_null());
  CHECK(read_text(dir / "out" / "report.md").find("too few of people's scores") != std::string::npos);
}
