// simulated_judge.hpp: the offline judge of a spec that declares its truth (a `simulate`
// block): it replies as the offline judge does, with each answer's declared scores in
// place of the heuristic ones (interpreter/scores/simulate.hpp). The scores are those of
// replicate 0 of `mirac simulate` for the same answers (docs/simulation.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/judge/judge.hpp"
#include "interpreter/scores/simulate.hpp"
#include "runtime/offline/offline_model.hpp"

namespace mirac {

class SimulatedJudge {
 public:
  /// Null unless the spec has a simulate block and `judge` is answered by the offline provider.
  static std::unique_ptr<SimulatedJudge> make(const Spec& spec, const Plan& plan, const JudgeBuilder& judge);
  SimulatedJudge(const Spec& spec, const Plan& plan, const JudgeBuilder& judge);

  /// The judge request `hash` scores the answer of the plan's request `row`.
  void expect(const std::string& hash, std::size_t row) { rows_[hash] = {row, {}}; }
  /// The judge request `hash` scores the answer of `row` as text of the cell `text_levels`
  /// (the answer translated into another level of a factor: an invariance check's request).
  void expect(const std::string& hash, std::size_t row, std::vector<int> text_levels) {
    rows_[hash] = {row, std::move(text_levels)};
  }
  /// Replies for the offline provider; they refer to this object, which must outlive the run.
  OfflineReplies replies() const;
  /// The reply to the judge request `hash` (nullopt for one not expected: the heuristics).
  std::optional<std::string> reply(const std::string& hash, const std::string& system, const std::string& user) const;

 private:
  const Spec& spec_;
  const Plan& plan_;
  const JudgeBuilder& judge_;
  analyze::Simulator simulator_;
  std::uint64_t stream_ = 0;
  struct Expected {
    std::size_t row = 0;
    std::vector<int> text_levels;  ///< empty: the answer's own cell
  };
  std::map<std::string, Expected> rows_;
};

}  // namespace mirac
