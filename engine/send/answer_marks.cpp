#include "engine/send/answer_marks.hpp"

#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/selection.hpp"
#include "runtime/providers/server_checks.hpp"
#include "runtime/store/hash_key.hpp"

namespace mirac {
namespace {

// A group's counts, each hash once (identical requests share one answer).
struct Group {
  MarkCounts counts;
  OncePerGroup counted;
  void add(const HashOccurrences& hashes, std::size_t position, const Store::Marks* m) {
    if (!counted.first_time(hashes, position)) return;
    ++counts.answers;
    if (!m) return;
    counts.cut += m->truncated;
    counts.limit_ignored += has_warning(m->warnings, kLimitIgnored);
    counts.prompt_shortened += has_warning(m->warnings, kPromptShortened);
  }
};

nlohmann::ordered_json counts_json(const MarkCounts& c) {
  return {{"answers", c.answers}, {"cut", c.cut}, {"limit_ignored", c.limit_ignored},
          {"prompt_shortened", c.prompt_shortened}};
}

// "gpt/baseline (12), claude/baseline (3)": the groups with `count` above 0.
std::string where(const AnswerMarks& m, std::size_t MarkCounts::*count) {
  std::string out;
  for (const auto& [name, c] : m.model_arm)
    if (c.*count > 0) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", name, c.*count);
  return out;
}

}  // namespace

AnswerMarks count_marks(const Spec& spec, const Plan& plan, const std::vector<std::size_t>& rows,
                        const std::vector<char>& done, const std::unordered_map<std::string, Store::Marks>& marked) {
  const HashOccurrences hashes(plan, rows);
  Group all;
  std::map<std::pair<int, int>, Group> by_pair;
  std::vector<std::vector<Group>> levels(spec.factors.size());
  for (std::size_t f = 0; f < spec.factors.size(); ++f) levels[f].resize(spec.factors[f].levels.size());
  for (std::size_t i = 0; i < rows.size() && i < done.size(); ++i) {
    if (!done[i]) continue;
    const RequestRow& r = plan.requests[rows[i]];
    const Store::Marks* m = nullptr;
    if (!marked.empty())
      if (auto it = marked.find(r.hash()); it != marked.end()) m = &it->second;
    all.add(hashes, i, m);
    by_pair[{r.model, r.arm}].add(hashes, i, m);
    const PromptRow& p = plan.prompts[r.prompt];
    for (std::size_t f = 0; f < spec.factors.size(); ++f) levels[f][static_cast<std::size_t>(p.levels[f])].add(hashes, i, m);
  }
  AnswerMarks out;
  out.all = all.counts;
  for (const auto& [key, g] : by_pair)
    out.model_arm.emplace_back(spec.models[static_cast<std::size_t>(key.first)].name + "/" +
                                   spec.arms[static_cast<std::size_t>(key.second)].name,
                               g.counts);
  out.levels.resize(levels.size());
  for (std::size_t f = 0; f < levels.size(); ++f)
    for (const auto& g : levels[f]) out.levels[f].push_back(g.counts);
  return out;
}

std::vector<char> done_rows(Store& store, const Plan& plan, const std::vector<std::size_t>& rows) {
  std::unordered_map<HashDigest, std::vector<std::size_t>, HashDigestKey> positions;
  positions.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) positions[plan.requests[rows[i]].digest].push_back(i);
  std::vector<char> done(rows.size(), 0);
  store.scan_states([&](const Store::ScannedAnswer& a) {
    if (!a.done) return;
    const std::optional<HashDigest> digest = hash_digest(a.hash);
    if (!digest) return;  // not a request's hash
    if (auto it = positions.find(*digest); it != positions.end())
      for (std::size_t i : it->second) done[i] = 1;
  });
  return done;
}

std::vector<char> done_rows(const HashSet& done, const Plan& plan,
                            const std::vector<std::size_t>& rows) {
  std::vector<char> out(rows.size(), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = done.count(plan.requests[rows[i]].digest) ? 1 : 0;
  return out;
}

nlohmann::ordered_json marks_json(const Spec& spec, const AnswerMarks& m) {
  nlohmann::ordered_json j = counts_json(m.all);
  j["by_model_arm"] = nlohmann::ordered_json::array();
  for (const auto& [name, c] : m.model_arm) {
    if (!c.any()) continue;
    auto slash = name.find('/');
    nlohmann::ordered_json row{{"model", name.substr(0, slash)}, {"arm", name.substr(slash + 1)}};
    row.update(counts_json(c));
    j["by_model_arm"].push_back(std::move(row));
  }
  j["by_factor"] = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < m.levels.size() && f < spec.factors.size(); ++f) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (std::size_t l = 0; l < m.levels[f].size(); ++l) {
      if (!m.levels[f][l].any()) continue;
      nlohmann::ordered_json row{{"level", spec.factors[f].levels[l].name.name}};
      row.update(counts_json(m.levels[f][l]));
      levels.push_back(std::move(row));
    }
    if (!levels.empty()) j["by_factor"].push_back({{"factor", spec.factors[f].name}, {"levels", std::move(levels)}});
  }
  return j;
}

std::vector<std::string> marks_warnings(const Spec& spec, const AnswerMarks& m) {
  std::vector<std::string> out;
  const std::size_t n = m.all.answers;
  if (m.all.cut > 0) {
    out.push_back(fmt::format("{} of {} answers were cut at the token limit: {}", m.all.cut, n, where(m, &MarkCounts::cut)));
    // Where a factor's levels differ, the cut answers bias its contrasts: name the worst level.
    for (std::size_t f = 0; f < m.levels.size() && f < spec.factors.size(); ++f) {
      std::size_t worst = 0;
      double worst_share = -1, least_share = 2;
      for (std::size_t l = 0; l < m.levels[f].size(); ++l) {
        const MarkCounts& c = m.levels[f][l];
        if (c.answers == 0) continue;
        double share = static_cast<double>(c.cut) / static_cast<double>(c.answers);
        if (share > worst_share) worst_share = share, worst = l;
        least_share = std::min(least_share, share);
      }
      if (worst_share - least_share > 0.05)
        out.push_back(fmt::format("  the most at {} = {} ({:.1f}% cut, against {:.1f}% at the least)", spec.factors[f].name,
                                  spec.factors[f].levels[worst].name.name, 100 * worst_share, 100 * least_share));
    }
    out.push_back("  a cut answer is judged as it stands; raise max_tokens if the cut ones matter");
  }
  if (m.all.limit_ignored > 0)
    out.push_back(fmt::format("{} of {} answers ran past the token limit sent, so the server ignored it: {}; "
                              "llama.cpp's server and Ollama read max_tokens only, so use the `local` provider (or "
                              "token_limit_field \"max_tokens\") for them",
                              m.all.limit_ignored, n, where(m, &MarkCounts::limit_ignored)));
  if (m.all.prompt_shortened > 0)
    out.push_back(fmt::format("{} of {} answers came from a prompt the server reported at far fewer tokens than it "
                              "has, as a server does that drops what exceeds its context: {}; they answer another "
                              "question: give the server a larger context (llama.cpp: --ctx-size) and run into a "
                              "fresh --store",
                              m.all.prompt_shortened, n, where(m, &MarkCounts::prompt_shortened)));
  return out;
}

}  // namespace mirac
