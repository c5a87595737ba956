#include "engine/selection.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mirac {

bool OnlyFilter::keeps(const std::string& key, const std::string& value) const {
  auto it = values.find(key);
  return it == values.end() || it->second.count(value) > 0;
}

bool parse_only(const std::string& text, const Spec& spec, bool with_model_arm, OnlyFilter& filter,
                std::string& error) {
  std::vector<std::string> models, arms;
  for (const auto& m : spec.models) models.push_back(m.name);
  for (const auto& a : spec.arms) arms.push_back(a.name);
  for (std::size_t start = 0; start < text.size();) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      error = fmt::format("--only expects key=value items, got '{}'", item);
      return false;
    }
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    int f = spec.factor_index(key);
    const bool model_arm = with_model_arm && (key == "model" || key == "arm");
    if (f < 0 && key != "seed" && !model_arm) {
      error = fmt::format("--only: '{}' is neither a factor nor {}", key, with_model_arm ? "model, arm or seed" : "seed");
      return false;
    }
    // A misspelt value would silently select nothing; name the valid ones instead.
    const std::vector<std::string> valid = f >= 0 ? spec.factors[static_cast<std::size_t>(f)].level_names()
                                           : key == "model" ? models
                                           : key == "arm"   ? arms
                                                            : std::vector<std::string>{};
    if (key != "seed" && std::find(valid.begin(), valid.end(), value) == valid.end()) {
      error = fmt::format("--only: '{}' is not a {} of the spec ({})", value, f >= 0 ? "level of factor '" + key + "'" : key,
                          fmt::join(valid, ", "));
      return false;
    }
    filter.values[key].insert(value);
  }
  return true;
}

Outcome select_requests(const Audit& audit, Selection& selection) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  OnlyFilter only;
  std::string error;
  if (!parse_only(audit.options.only, spec, true, only, error)) return Outcome::fail(kUsageError, "mirac: " + error);
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const RequestRow& r = plan.requests[i];
    const PromptRow& p = plan.prompts[r.prompt];
    bool keep = only.keeps("model", spec.models[static_cast<std::size_t>(r.model)].name) &&
                only.keeps("arm", spec.arms[static_cast<std::size_t>(r.arm)].name) && only.keeps("seed", p.seed);
    for (std::size_t f = 0; keep && f < spec.factors.size(); ++f)
      keep = only.keeps(spec.factors[f].name, spec.factors[f].levels[static_cast<std::size_t>(p.levels[f])].name.name);
    if (!keep) continue;
    selection.rows.push_back(i);
    if (audit.options.limit > 0 && selection.rows.size() >= audit.options.limit) break;
  }
  return {};
}

}  // namespace mirac
