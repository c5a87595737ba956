// power.hpp: `mirac simulate`: many audits drawn from the spec's declared truth (its
// `simulate` block), each analysed as a real run would be, and every contrast and analysis
// term summarised over them: its true value, mean estimate, bias, RMSE, the coverage of its
// interval and how often it is declared different from zero (power where the truth is not
// zero, the type I error rate where it is), each with its Monte Carlo error.
// docs/simulation.md. Nothing is sent, nothing is stored.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/model/spec.hpp"

namespace mirac {

struct PowerOptions {
  std::size_t replicates = 200;
  /// Designs by number of seeds (`--seeds 30,60,120`); empty: the spec's own seeds. A
  /// smaller design takes every (N/n)th seed and a larger one repeats them all under new
  /// ids, so the seed fields keep their mix.
  std::vector<std::size_t> seeds;
  std::vector<std::string> models;  ///< empty: every model
  std::vector<std::string> arms;    ///< empty: every arm
  /// Fewer cells (`--levels language=zh,en`): per factor, the levels kept; a factor not
  /// named keeps all of its levels.
  std::vector<std::pair<std::string, std::vector<std::string>>> levels;
  /// Answers per prompt (`--answers K`): K rows per prompt, each answer's own, as a run with
  /// `answers K` stores them.
  std::size_t answers = 1;
  /// Contrasts and analyses to study by name; empty: every contrast and every analysis of a
  /// kind a simulation can check (lmm, wilcoxon, paired).
  std::vector<std::string> only;
  double alpha = 0.05;
  std::size_t resamples = 500;  ///< cluster-bootstrap resamples per contrast interval
  std::optional<std::uint64_t> seed;  ///< overrides the block's `seed`
  unsigned threads = 2;
};

/// One quantity in one design, over the replicates.
struct QuantitySummary {
  std::string source;  ///< the contrast's or analysis's name
  std::string kind;    ///< contrast, lmm, wilcoxon, paired
  std::string label;   ///< "model=gpt", "language=zh", "condition: A vs B | language=zh | D3"
  std::size_t seeds = 0;
  double truth = 0;    ///< the same quantity computed from the expected scores
  bool null = false;   ///< truth is zero: rejections are type I errors
  std::size_t estimated = 0;  ///< replicates that gave an estimate
  double mean_estimate = 0, bias = 0, bias_mcse = 0, rmse = 0, rmse_mcse = 0, empirical_se = 0;
  std::size_t with_interval = 0;  ///< replicates that gave an interval
  double coverage = 0, coverage_mcse = 0;
  std::size_t tested = 0;  ///< replicates that gave a p-value or an interval to test with
  double rejection = 0, rejection_mcse = 0;
};

struct PowerStudy {
  std::size_t replicates = 0;
  std::uint64_t seed = 0;
  double alpha = 0.05;
  std::size_t resamples = 0;
  std::vector<std::size_t> designs;  ///< seeds per design, in order
  std::size_t answers_per_design_seed = 0;  ///< scored rows each seed contributes (cells x models x arms x answers)
  std::size_t answers_per_prompt = 1;       ///< scored rows per prompt: its answers
  std::size_t cells = 0;                    ///< user-side cells per seed in the design
  std::vector<QuantitySummary> quantities;  ///< by design, then in the spec's order
  std::vector<std::string> skipped;         ///< analyses left out, each with why
  /// Problems in the replicates' analyses (a fit at a boundary...), counted by message.
  std::vector<std::pair<std::string, std::size_t>> warnings;
  double seconds = 0;
  nlohmann::ordered_json to_json() const;
};

/// Progress: replicates done of the total (over every design).
using PowerProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Runs the study. Fails with std::invalid_argument (its message for the user) when the spec
/// has no simulate block or an option names what the spec lacks. Stops early, with the
/// replicates done so far, when `cancel` is set.
PowerStudy simulate_power(const Spec& spec, const PowerOptions& options, const SourceManager& sources,
                          const std::atomic<bool>& cancel, const PowerProgress& progress = {});

}  // namespace mirac
