// judgment_cache.hpp: the scored judgments a store keeps between commands. Resolving one
// answer's judgment reads the answer, hashes the judge's request, reads the judge's reply
// and parses it against the rubric: for 43,200 MIRA answers, most of a second, which
// `mirac status`, a rerun (its judge rounds and its analysis) and `mirac analyze` each
// spent again on the same unchanged replies. What that gives for a scored answer (its scores,
// which criteria were met, the round and judge request that scored it) is kept in the
// store's derived values (runtime/store/derived.hpp) and read back in milliseconds.
//
// An entry is found under a key that covers everything its judgment depends on: this build
// of mirac (DerivedValues keeps entries per build), the contents of every source and data
// file of the spec (which fix the plan, the judge's messages and the rubric's rules; not
// their paths, so naming the spec by another path finds them), the judge's requests
// apart from their messages (provider, model, parameters, offline or not), and the request's
// place in the plan, whose answer (by hash) is checked too. Only scored judgments are kept:
// they never change, since a stored reply never does; a pending, failed or unusable one is
// resolved afresh every time. Rationales and criteria quotes are not kept: readers that
// show them (`mirac view`, `mirac export`) resolve in full.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/judge/judge_phase.hpp"
#include "runtime/store/derived.hpp"

namespace mirac {

class JudgmentCache {
 public:
  /// Loads what `store` keeps for `judge` (nothing, when it keeps nothing or cannot be read).
  JudgmentCache(const JudgeBuilder& judge, const Plan& plan, const Store& store);
  /// Fills `state` from the kept judgment of request `request` when there is one that was
  /// scored within `max_repairs` repairs. Safe from several threads at once.
  bool fill(std::size_t request, int max_repairs, JudgeState& state) const;
  /// Keeps every scored state of `rows` that was not read from here. Best effort.
  void save(const std::vector<std::size_t>& rows, const std::vector<JudgeState>& states);

 private:
  std::string key(std::size_t request) const;
  const Plan& plan_;
  std::unique_ptr<DerivedValues> values_;
  std::string prefix_;               ///< the judge's and spec's part of every key
  std::vector<std::string> entries_;  ///< by request; empty: none kept
};

}  // namespace mirac
