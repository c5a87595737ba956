// manifest.cpp: the run's part of the reproducibility manifest, and the CSV provenance lines.
#include "engine/analyze/manifest.hpp"
#include "runtime/store/hash_set.hpp"

#include <algorithm>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/hash/hash.hpp"
#include "interpreter/judge/judge.hpp"
#include "runtime/offline/offline_model.hpp"

namespace mirac::analyze {

namespace {

constexpr const char* kSimulatedLine = "# SIMULATED answers (offline provider): not findings about any real model\n";

bool on_offline_provider(const Spec& spec, const std::string& provider) {
  auto it = spec.providers.find(provider);
  return it != spec.providers.end() && it->second.base_url.rfind(kOfflineScheme, 0) == 0;
}

// The model strings the provider returned for `model`'s done answers, with their counts
// (an answer that named none counts under null).
nlohmann::ordered_json returned_models(const std::map<std::string, std::size_t>& counts) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [name, count] : counts)
    out.push_back({{"model", name.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(name)}, {"answers", count}});
  return out;
}

nlohmann::ordered_json models_json(const Spec& spec, const RunFacts& run) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    const Model& model = spec.models[m];
    nlohmann::ordered_json entry{{"name", model.name}, {"provider", model.provider}, {"model", model.model}};
    entry["returned"] = run.answers && m < run.answers->returned.size() ? returned_models(run.answers->returned[m])
                                                                        : nlohmann::ordered_json(nullptr);
    out.push_back(std::move(entry));
  }
  return out;
}

// A judge's rubric as the judge saw it: the hash of its instructions, which quote the rubric.
nlohmann::ordered_json judges_json(const Spec& spec, const SourceManager& sources) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (std::size_t j = 0; j < spec.judges.size(); ++j) {
    const Judge& judge = spec.judges[j];
    const JudgeBuilder builder(spec, sources, static_cast<int>(j));
    out.push_back({{"name", judge.name},
                   {"provider", judge.provider},
                   {"model", judge.model},
                   {"rubric", judge.rubric},
                   {"rubric_sha256", sha256_hex(builder.instructions())}});
  }
  return out;
}

nlohmann::ordered_json plan_json(const Plan& plan) {
  return {{"prompts", plan.prompts.size()},
          {"requests", plan.requests.size()},
          {"request_digest", request_digest(plan)},
          {"judge_tasks", plan.judge_tasks.size()}};
}

// Every seed that moved a number: the bootstrap's, and any `seed` a model or judge sends
// to its provider (the provider's sampling seed).
nlohmann::ordered_json random_seeds_json(const Spec& spec, const AnalyzeOptions& options) {
  nlohmann::ordered_json out{{"bootstrap", options.seed}};
  nlohmann::ordered_json models = nlohmann::ordered_json::object(), judges = nlohmann::ordered_json::object();
  for (const auto& m : spec.models)
    if (m.params.contains("seed")) models[m.name] = m.params["seed"];
  for (const auto& j : spec.judges)
    if (j.params.contains("seed")) judges[j.name] = j.params["seed"];
  if (!models.empty()) out["models"] = std::move(models);
  if (!judges.empty()) out["judges"] = std::move(judges);
  return out;
}

nlohmann::ordered_json dates_json(const RunFacts& run) {
  nlohmann::ordered_json out{{"analyzed_at", utc_iso8601(run.analyzed_at)}};
  const bool any = run.answers && run.answers->answers > 0;
  const double first = any ? run.answers->first_started : 0, last = any ? run.answers->last_ended : 0;
  out["first_answer_at"] = any ? nlohmann::ordered_json(utc_iso8601(first)) : nlohmann::ordered_json();
  out["last_answer_at"] = any ? nlohmann::ordered_json(utc_iso8601(last)) : nlohmann::ordered_json();
  return out;
}

}  // namespace

AnswerFacts answer_facts(const Plan& plan, std::size_t models, Store& store) {
  AnswerFacts facts;
  facts.returned.resize(models);
  HashMap<int> model_of;  // a request hash's model (the first request with it)
  model_of.reserve(plan.requests.size());
  for (const auto& r : plan.requests) model_of.emplace(r.digest, r.model);
  double first = std::numeric_limits<double>::infinity(), last = -first;
  auto count = [&](const int* model, const Store::Stamp& stamp) {
    if (!model) return;  // a judge's reply, or an answer of another plan
    ++facts.answers;
    first = std::min(first, stamp.started_at);
    last = std::max(last, stamp.ended_at);
    if (static_cast<std::size_t>(*model) < models) ++facts.returned[static_cast<std::size_t>(*model)][stamp.returned_model];
  };
  // Stamps are looked up a chunk at a time, each hash's slot asked of memory a few ahead
  // (DigestTable::prefetch): at ten times MIRA the map outgrows the cache.
  constexpr std::size_t kChunk = 1024, kAhead = 8;
  std::vector<std::pair<HashDigest, Store::Stamp>> chunk;
  chunk.reserve(kChunk);
  auto drain = [&] {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (i + kAhead < chunk.size()) model_of.prefetch(chunk[i + kAhead].first);
      count(model_of.find(chunk[i].first), chunk[i].second);
    }
    chunk.clear();
  };
  store.scan_stamps([&](std::string_view hash, const Store::Stamp& stamp) {
    const std::optional<HashDigest> digest = hash_digest(hash);
    if (!digest) return count(model_of.find(hash), stamp);
    chunk.emplace_back(*digest, stamp);
    if (chunk.size() == kChunk) drain();
  });
  drain();
  facts.first_started = first;
  facts.last_ended = last;
  return facts;
}

// Files read after the spec was checked (the table an `against csv(...)` names, which its
// analysis reads) join the inputs; the scores file has its own entry.
void add_late_inputs(nlohmann::ordered_json& manifest, const SourceManager& sources) {
  nlohmann::ordered_json& inputs = manifest["inputs"];
  std::set<std::string> listed;
  for (const auto& i : inputs) listed.insert(i.at("path").get<std::string>());
  if (manifest.contains("scores")) listed.insert(manifest["scores"].at("path").get<std::string>());
  for (std::size_t f = 0; f < sources.size(); ++f) {
    const auto id = static_cast<FileId>(f);
    if (listed.insert(sources.path(id)).second)
      inputs.push_back({{"path", sources.path(id)}, {"sha256", sha256_hex(sources.text(id))}});
  }
}

std::vector<std::string> simulated_models(const Spec& spec) {
  std::vector<std::string> out;
  for (const auto& m : spec.models)
    if (on_offline_provider(spec, m.provider)) out.push_back(m.name);
  return out;
}

std::vector<std::string> simulated_judges(const Spec& spec) {
  std::vector<std::string> out;
  for (const auto& j : spec.judges)
    if (on_offline_provider(spec, j.provider)) out.push_back(j.name);
  return out;
}

bool answers_simulated(const Spec& spec, const RunFacts& run) {
  const bool all_models = !spec.models.empty() && simulated_models(spec).size() == spec.models.size();
  return run.offline || all_models || run.scores_simulated;
}

void add_run_facts(nlohmann::ordered_json& manifest, const Spec& spec, const RunFacts& run,
                   const AnalyzeOptions& options) {
  add_late_inputs(manifest, run.sources);
  manifest["simulated"] = answers_simulated(spec, run);
  manifest["simulated_models"] = simulated_models(spec);
  manifest["simulated_judges"] = simulated_judges(spec);
  manifest["models"] = models_json(spec, run);
  manifest["judges"] = judges_json(spec, run.sources);
  manifest["plan"] = plan_json(run.plan);
  manifest["random_seeds"] = random_seeds_json(spec, options);
  manifest["dates"] = dates_json(run);
}

std::string request_digest(const Plan& plan) {
  std::string joined;
  for (std::size_t i = 0; i < plan.requests.size(); ++i) joined += (i ? "\n" : "") + plan.requests[i].hash();
  return sha256_hex(joined);
}

std::string utc_iso8601(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string csv_provenance(const Provenance& p) {
  std::string out = fmt::format("# mirac {}\n# spec {} sha256 {}\n", MIRAC_VERSION, p.spec_name, p.spec_sha256);
  if (!p.scores_sha256.empty()) out += fmt::format("# scores sha256 {}\n", p.scores_sha256);
  if (p.simulated) out += kSimulatedLine;
  else if (!p.simulated_models.empty())
    out += fmt::format("# SIMULATED answers of {} (offline provider): not findings about those models\n",
                       fmt::join(p.simulated_models, ", "));
  return out;
}

bool csv_says_simulated(const std::string& text) {
  // Only the comment lines before the header are provenance.
  for (std::size_t at = 0; text.compare(at, 2, "# ") == 0;) {
    const std::size_t end = text.find('\n', at);
    if (text.compare(at, end == std::string::npos ? std::string::npos : end + 1 - at, kSimulatedLine) == 0) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

}  // namespace mirac::analyze
