#include "engine/annotate/sample.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/context.hpp"
#include "runtime/stats/bootstrap.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac {

namespace {

// Fisher-Yates with the bootstrap's generator-independent draws, so a seed gives the same
// sample with every standard library.
void shuffle(std::vector<std::size_t>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[stats::uniform_index(rng, i)]);
}

// How many to draw from each stratum: proportional by largest remainders, or equal; never
// more than a stratum holds, the shortfall given to strata with answers left.
std::vector<std::size_t> allocate(const std::vector<std::size_t>& sizes, std::size_t n, bool equal) {
  const std::size_t total = [&] {
    std::size_t t = 0;
    for (auto s : sizes) t += s;
    return t;
  }();
  n = std::min(n, total);
  std::vector<std::size_t> take(sizes.size(), 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  std::size_t given = 0;
  for (std::size_t h = 0; h < sizes.size(); ++h) {
    const double quota = equal ? static_cast<double>(n) / static_cast<double>(sizes.size())
                               : static_cast<double>(n) * static_cast<double>(sizes[h]) / static_cast<double>(total);
    take[h] = std::min(sizes[h], static_cast<std::size_t>(quota));
    given += take[h];
    remainders.emplace_back(quota - static_cast<double>(take[h]), h);
  }
  // Largest remainders first (ties by stratum order), then round-robin over room left.
  std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  while (given < n) {
    bool progressed = false;
    for (const auto& [rest, h] : remainders) {
      if (given == n) break;
      if (take[h] < sizes[h]) ++take[h], ++given, progressed = true;
    }
    if (!progressed) break;
  }
  return take;
}

}  // namespace

Outcome sample_answers(const Audit& audit, Store& store, const SampleOptions& o, AnnotationSample& sample) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  for (const auto& v : o.stratify)
    if (!analyze::is_variable(spec, v))
      return Outcome::fail(kUsageError, fmt::format("mirac annotate: --stratify: '{}' is not a factor, model, arm, seed, "
                                                    "cell or seed field of the spec",
                                                    v));
  if (o.n == 0) return Outcome::fail(kUsageError, "mirac annotate: --n must be at least 1");
  const HashSet done = store.done_hashes();
  HashSet seen;
  std::map<std::vector<std::string>, std::vector<std::size_t>> by_stratum;
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const RequestRow& r = plan.requests[i];
    if (!done.count(r.digest) || !seen.insert(r.digest)) continue;
    const analyze::ScoreRow row = analyze::score_row_of(spec, plan, r);
    if (row.seed < 0) continue;
    std::vector<std::string> key;
    for (const auto& v : o.stratify) key.push_back(analyze::variable_value(spec, row, v));
    by_stratum[key].push_back(i);
  }
  if (by_stratum.empty())
    return Outcome::fail(kUsageError, fmt::format("mirac annotate: no stored answers in {} to sample (run `mirac run` "
                                                  "first)",
                                                  audit.run_dir.string()));
  std::vector<std::size_t> sizes;
  for (const auto& [key, rows] : by_stratum) sizes.push_back(rows.size());
  const std::vector<std::size_t> take = allocate(sizes, o.n, o.equal);
  std::mt19937_64 rng(o.seed);
  std::size_t h = 0;
  for (auto& [key, rows] : by_stratum) {
    shuffle(rows, rng);
    sample.rows.insert(sample.rows.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(take[h]));
    sample.strata.push_back({key, rows.size(), take[h]});
    sample.population += rows.size();
    ++h;
  }
  shuffle(sample.rows, rng);  // the sheet's order says nothing about the strata
  return {};
}

std::string annotation_sheet(const Audit& audit, const AnnotationSample& sample) {
  std::vector<std::string> dims = analyze::score_dimensions(audit.spec());
  std::string out = "item,id,prompt_id";
  for (const auto& d : dims) out += "," + csv_text(d);
  out += ",comment\n";
  for (std::size_t i = 0; i < sample.rows.size(); ++i) {
    const RequestRow& r = audit.plan().requests[sample.rows[i]];
    out += fmt::format("{},{},{}", i + 1, r.hash(), csv_text(audit.plan().prompts[r.prompt].id));
    for (std::size_t d = 0; d < dims.size(); ++d) out += ",";
    out += ",\n";
  }
  return out;
}

nlohmann::ordered_json annotation_data(const Audit& audit, Store& store, const AnnotationSample& sample) {
  const Spec& spec = audit.spec();
  nlohmann::ordered_json dims = nlohmann::ordered_json::array();
  double lo = 1, hi = 5;
  if (const ast::RubricDecl* rubric = spec.scored_rubric()) {
    if (rubric->scale) {
      const auto& range = std::get<ast::RangeLit>(rubric->scale->node);
      lo = std::get<ast::NumberLit>(range.lo->node).value;
      hi = std::get<ast::NumberLit>(range.hi->node).value;
    }
    for (const auto& d : rubric->dims) {
      nlohmann::ordered_json anchors = nlohmann::ordered_json::array();
      for (const auto& a : d.anchors) {
        const auto* score = std::get_if<ast::NumberLit>(&a.score.node);
        anchors.push_back({{"score", score ? score->value : 0}, {"label", a.label.value},
                           {"text", a.text ? a.text->value : ""}});
      }
      dims.push_back({{"name", d.name.name},
                      {"title", d.title.value},
                      {"describe", d.description ? d.description->value : ""},
                      {"anchors", anchors},
                      {"na", d.na_when.has_value()}});
      if (d.scale) {
        const ScoreScale own = dim_scale(*rubric, d.name.name);
        dims.back()["scale"] = {own.lo, own.hi};
      }
    }
  }
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < sample.rows.size(); ++i) {
    const RequestRow& r = audit.plan().requests[sample.rows[i]];
    const PromptRow& p = audit.plan().prompts[r.prompt];
    std::shared_ptr<const Store::Brief> answer = store.brief(r.hash());
    auto checklist = spec.checklists.find(p.seed);
    items.push_back({{"item", i + 1},
                     {"id", r.hash()},
                     {"prompt_id", p.id},
                     {"prompt", p.text},
                     {"answer", answer ? answer->text : ""},
                     {"checklist", checklist == spec.checklists.end() ? nlohmann::ordered_json(nullptr) : checklist->second}});
  }
  // People scoring simulated answers should know they are practising, not annotating.
  bool simulated = false;
  for (const auto& m : spec.models) simulated = simulated || m.provider == "offline";
  return {{"spec", spec.name}, {"title", spec.title}, {"simulated", simulated}, {"scale", {lo, hi}}, {"dims", dims},
          {"items", items}};
}

}  // namespace mirac
