// seeds.cpp: results.json `seeds`: how the seeds the analysed answers cover divide over the
// values of each categorical seed field (the paper's Figure 6, seeds by medical category),
// so that `figure seeds(category)` needs nothing but results.json.
#include <algorithm>
#include <map>
#include <set>

#include "engine/analyze/parts.hpp"

namespace mirac::analyze {

namespace {

// More values than this is not a category a bar chart of counts can show.
constexpr std::size_t kMaxValues = 30;
// A value longer than this is prose (a question, a note), not a category's name.
constexpr std::size_t kMaxValueLength = 60;

// Whether some variant rewrites `field`: its values are the texts the prompts are made
// of (questions), each seed's own.
bool rewritten(const Spec& spec, const std::string& field) {
  return std::any_of(spec.variants.begin(), spec.variants.end(), [&](const Variant& v) { return v.field == field; });
}

// The field's values in the order the seed table first gives them, or nothing when the field
// is not categorical: indexed by a factor (a text per language), rewritten, too many values
// or a value of prose length.
std::optional<std::vector<std::string>> categories(const Spec& spec, const SeedFieldInfo& info) {
  if (info.index_factor >= 0 || rewritten(spec, info.name)) return std::nullopt;
  std::vector<std::string> values;
  for (const Seed& seed : spec.seeds) {
    auto it = seed.fields.find(info.name);
    const std::string value = it == seed.fields.end() ? std::string() : it->second;
    if (value.size() > kMaxValueLength) return std::nullopt;
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    if (values.size() > kMaxValues) return std::nullopt;
  }
  return values;
}

}  // namespace

void add_seeds(const Context& ctx, Output& out) {
  const Spec& spec = ctx.spec;
  // The seeds the analysis is about: those with at least one scored answer in the table.
  std::set<int> covered;
  for (const ScoreRow& row : ctx.scores.rows)
    if (row.seed >= 0) covered.insert(row.seed);
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const SeedFieldInfo& info : spec.seed_fields) {
    std::optional<std::vector<std::string>> values = categories(spec, info);
    if (!values) continue;
    std::map<std::string, std::size_t> analysed, declared;
    for (std::size_t s = 0; s < spec.seeds.size(); ++s) {
      auto it = spec.seeds[s].fields.find(info.name);
      const std::string value = it == spec.seeds[s].fields.end() ? std::string() : it->second;
      ++declared[value];
      if (covered.count(static_cast<int>(s))) ++analysed[value];
    }
    // Most seeds first, as the paper's figure; equal counts keep the seed table's order.
    std::stable_sort(values->begin(), values->end(),
                     [&](const std::string& a, const std::string& b) { return analysed[a] > analysed[b]; });
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const std::string& v : *values) {
      const double share = covered.empty() ? 0.0 : static_cast<double>(analysed[v]) / static_cast<double>(covered.size());
      list.push_back({{"value", v}, {"seeds", analysed[v]}, {"share", share}, {"declared", declared[v]}});
    }
    fields[info.name] = std::move(list);
  }
  out.json["seeds"] = {{"count", covered.size()}, {"declared", spec.seeds.size()}, {"fields", std::move(fields)}};
}

}  // namespace mirac::analyze
