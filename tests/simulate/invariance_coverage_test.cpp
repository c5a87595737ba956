// invariance_coverage_test.cpp: the coverage of an invariance analysis's intervals at the
// smallest design docs/judging.md allows an interval for (12 seeds; below it the cluster
// bootstrap's intervals are not verified, docs/statistics.md section 6). Each replicate
// draws judged and re-judged scores with a planted judge's gap, a translation's loss, seed
// effects on the answers and on the judge's bias, and fresh judge noise on every
// judgment; the 95% intervals of the gap and the loss must cover the truth within three
// Monte Carlo standard errors of 95%. Likewise a rubric check's change of the level effect
// and its mean shift, with the rubric's shifts drifting by seed.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "engine/analyze/parts.hpp"
#include "interpreter/driver.hpp"

#include "tests/simulate/simulate_support.hpp"

using simulate_test::fixture;

namespace {

constexpr double kGap = -0.4;  // the judge's b_zh - b_en
constexpr double kLoss = 0.1;  // what translation costs a score

bool covers(const nlohmann::ordered_json& figure, double truth) {
  const auto& ci = figure.at("ci");
  return ci.is_array() && ci[0].get<double>() <= truth && truth <= ci[1].get<double>();
}

// One answer's scores (D1, D2) as judged and as judged again, from its content on D1,
// whether it is Chinese, the seed's drift of what the check measures, and the generator.
using Draw = std::function<std::pair<std::vector<double>, std::vector<double>>(double content, bool zh, double drift,
                                                                                 std::normal_distribution<double>& normal,
                                                                                 std::mt19937_64& rng)>;

// The share of kReplicates audits of kSeeds seeds (two tones x two languages each) whose
// intervals of the analysis's two figures on D1 hold their truths. Replicate r draws from
// `stream + r` and resamples from `resample_stream + r`.
std::array<double, 2> coverage(const char* analysis, std::uint64_t stream, std::uint64_t resample_stream, const Draw& draw,
                               const std::array<const char*, 2>& figures, const std::array<double, 2>& truths) {
  constexpr int kReplicates = 400, kSeeds = 12;
  mirac::CheckOptions options;
  options.offline = true;
  auto c = mirac::compile(fixture("invariance.audit"), options);
  REQUIRE(c->ok());
  const mirac::Spec& spec = c->spec;
  const mirac::ast::AnalysisDecl* decl = nullptr;
  for (const auto& a : spec.analyses)
    if (a.name.name == analysis) decl = &a;
  REQUIRE(decl != nullptr);
  const int language = spec.factor_index("language"), tone = spec.factor_index("tone");
  const int zh = spec.factors[language].level_index("zh");
  std::array<int, 2> covered{0, 0};
  for (int r = 0; r < kReplicates; ++r) {
    std::mt19937_64 rng(stream + static_cast<std::uint64_t>(r));
    std::normal_distribution<double> normal(0, 1);
    mirac::analyze::ScoreTable table;
    table.dims = {"D1", "D2"};
    table.rater = "grader";
    mirac::analyze::RaterRows rejudged{analysis, {}};
    for (int s = 0; s < kSeeds; ++s) {
      const double seed_effect = 0.6 * normal(rng);
      const double drift = 0.2 * normal(rng);  // what the check measures varies by seed
      for (int t = 0; t < 2; ++t)
        for (int l = 0; l < 2; ++l) {
          mirac::analyze::ScoreRow row;
          row.seed = s, row.model = 0, row.arm = 0;
          row.levels.assign(spec.factors.size(), 0);
          row.levels[language] = l, row.levels[tone] = t;
          const double content = 3 + seed_effect + (l == zh ? 0.3 : 0) + 0.5 * normal(rng);
          auto [judged, again] = draw(content, l == zh, drift, normal, rng);
          row.scores = judged;
          mirac::analyze::ScoreRow rejudged_row = row;
          rejudged_row.scores = again;
          table.rows.push_back(row);
          rejudged.rows.push_back(rejudged_row);
        }
    }
    table.others.push_back(std::move(rejudged));
    mirac::analyze::AnalyzeOptions analyze;
    analyze.resamples = 400;
    analyze.seed = resample_stream + static_cast<std::uint64_t>(r);
    mirac::Diagnostics diags;
    const mirac::analyze::Context ctx{spec, table, analyze, c->sources, diags};
    mirac::analyze::Output out;
    const nlohmann::ordered_json j = mirac::analyze::run_invariance(ctx, *decl, out);
    REQUIRE(j.contains("results"));
    const auto& d1 = j.at("results").at(0);
    REQUIRE(d1.at("dimension") == "D1");
    REQUIRE(d1.at("n") == nlohmann::ordered_json::array({24, 24}));
    for (std::size_t k = 0; k < 2; ++k) covered[k] += covers(d1.at(figures[k]), truths[k]);
  }
  return {covered[0] / static_cast<double>(kReplicates), covered[1] / static_cast<double>(kReplicates)};
}

const double kThreeSe = 3 * std::sqrt(0.95 * 0.05 / 400);

}  // namespace

TEST_CASE("invariance: the judge's gap and the translation's loss cover 95% at 12 seeds") {
  const auto [gap, loss] = coverage(
      "inv", 1000, 7000,
      [](double content, bool zh, double drift, std::normal_distribution<double>& normal, std::mt19937_64& rng) {
        const double own_bias = zh ? kGap + drift : 0, other_bias = zh ? 0 : kGap + drift;
        std::vector<double> judged{content + own_bias + 0.4 * normal(rng), 3 + 0.5 * normal(rng)};
        std::vector<double> again{content + other_bias - kLoss + 0.4 * normal(rng), judged[1] - kLoss + 0.4 * normal(rng)};
        return std::pair{judged, again};
      },
      {"judge_gap", "translation_loss"}, {kGap, kLoss});
  MESSAGE("coverage at 12 seeds: judge's gap " << gap << ", translation's loss " << loss);
  CHECK(std::fabs(gap - 0.95) < kThreeSe);
  CHECK(std::fabs(loss - 0.95) < kThreeSe);
}

TEST_CASE("invariance with a rubric: the change of the level effect and the mean shift cover 95% at 12 seeds") {
  constexpr double kShiftZh = 0.4, kShiftEn = 0.1;  // what the other rubric adds at each level
  const auto [change, mean] = coverage(
      "rub", 5000, 9000,
      [](double content, bool zh, double drift, std::normal_distribution<double>& normal, std::mt19937_64& rng) {
        std::vector<double> judged{content + 0.4 * normal(rng), 3 + 0.5 * normal(rng)};
        const double shift = (zh ? kShiftZh : kShiftEn) + drift;
        std::vector<double> again{content + shift + 0.4 * normal(rng), judged[1] + 0.4 * normal(rng)};
        return std::pair{judged, again};
      },
      {"effect_change", "mean_shift"}, {kShiftZh - kShiftEn, (kShiftZh + kShiftEn) / 2});
  MESSAGE("coverage at 12 seeds: change of the effect " << change << ", mean shift " << mean);
  CHECK(std::fabs(change - 0.95) < kThreeSe);
  CHECK(std::fabs(mean - 0.95) < kThreeSe);
}
