// simulated_judge.cpp: declared scores in the offline judge's replies (simulated_judge.hpp).
#include "engine/judge/simulated_judge.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "runtime/offline/offline_model.hpp"
#include "runtime/stats/bootstrap.hpp"

namespace mirac {

std::unique_ptr<SimulatedJudge> SimulatedJudge::make(const Spec& spec, const Plan& plan, const JudgeBuilder& judge) {
  if (!spec.simulate) return nullptr;
  auto provider = spec.providers.find(judge.judge().provider);
  if (provider == spec.providers.end() || provider->second.base_url.rfind(kOfflineScheme, 0) != 0) return nullptr;
  return std::make_unique<SimulatedJudge>(spec, plan, judge);
}

SimulatedJudge::SimulatedJudge(const Spec& spec, const Plan& plan, const JudgeBuilder& judge)
    : spec_(spec), plan_(plan), judge_(judge), simulator_(spec, analyze::score_dimensions(spec)) {
  // Replicate 0 of `mirac simulate` (engine/simulate/power.cpp derives its streams so).
  stream_ = stats::stream_seed(simulator_.seed(), "replicate/0");
}

std::optional<std::string> SimulatedJudge::reply(const std::string& hash, const std::string& system,
                                                 const std::string& user) const {
  auto row = rows_.find(hash);
  if (row == rows_.end()) return std::nullopt;
  analyze::ScoreRow answer = analyze::score_row_of(spec_, plan_, plan_.requests[row->second.row]);
  if (answer.seed < 0) return std::nullopt;
  const std::vector<int>& text = row->second.text_levels;
  const std::string& rubric = judge_.rubric().name.name;
  const std::vector<double> scores = simulator_.judged_scores_of(answer, stream_, text.empty() ? nullptr : &text, &rubric);
  // The offline judge's reply gives the shape (its keys, criteria, rationale); the declared
  // scores replace its own, whole and on the scale as a judge gives them.
  nlohmann::ordered_json out = nlohmann::ordered_json::parse(offline_judgment(system, user));
  for (const auto& d : simulator_.dimensions()) {
    if (!out.contains(d.name)) continue;
    const double s = scores[static_cast<std::size_t>(d.dim)];
    if (std::isnan(s)) {
      out[d.name] = nullptr;
    } else {
      out[d.name] = static_cast<long>(std::lround(std::clamp(s, d.lo, d.hi)));
    }
    if (out.contains("rationale") && out["rationale"].is_object())
      out["rationale"][d.name] = "simulated: drawn from the spec's simulate block, not read from the answer";
  }
  return out.dump();
}

OfflineReplies SimulatedJudge::replies() const {
  return [this](const OfflineRequest& r) { return reply(r.request_hash, r.system ? *r.system : std::string(), r.user); };
}

}  // namespace mirac
