// flags.cpp: the spec's flags. A unit flag is counted over answers; a pair flag over the
// matched pairs of each of its pairings (same seed, model, arm and every other factor;
// paper, Table 20). A pair group holding more than one answer on a side is reported as a
// duplicate and left out: merging or picking one would change the counts silently.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engine/analyze/parts.hpp"
#include "interpreter/scores/row_scope.hpp"

namespace mirac::analyze {

namespace {

// Per dimension of a pair flag's pairs: the mean difference a - b over the pairs scored
// on both sides, and which side scores higher in the flagged ones (paper, Table 20: HLS
// flag with the mean D3 difference low - high; language flag split into ZH worse / EN worse).
struct DimensionTally {
  std::size_t scored = 0, flagged_a_higher = 0, flagged_b_higher = 0;
  double delta_sum = 0;
};

struct FlagTally {
  std::size_t n = 0, count = 0;
  /// Unit flags: the answers the flag can apply to at all, whatever their scores (the
  /// condition is not false with every score unknown): SAFETY_OVERTRIGGER applies to
  /// Mental Health seeds only, and its rate over all answers understates it.
  std::size_t applicable = 0;
  std::vector<DimensionTally> dims;  ///< pair flags only: per dimension of the scores
  /// Pair flags with several answers per prompt: ordered pairs of two answers to the very
  /// same prompt, and how many of them the flag's condition holds for (its noise floor).
  std::size_t noise_n = 0, noise_count = 0;
};

// Per (model, arm) tallies, then the JSON list and CSV rows for them.
struct Tallies {
  const Spec& spec;
  std::vector<FlagTally> cells;
  std::vector<std::string> dim_names;  ///< set for a pair flag's tallies
  explicit Tallies(const Spec& s) : spec(s), cells(s.models.size() * s.arms.size()) {}
  Tallies(const Spec& s, const std::vector<std::string>& dims) : Tallies(s) {
    dim_names = dims;
    for (auto& c : cells) c.dims.resize(dims.size());
  }
  nlohmann::ordered_json dimensions_json(const FlagTally& t) const {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (std::size_t d = 0; d < dim_names.size(); ++d) {
      const DimensionTally& dt = t.dims[d];
      j[dim_names[d]] = {{"pairs_scored", dt.scored},
                         {"mean_delta", dt.scored ? json_number(dt.delta_sum / static_cast<double>(dt.scored)) : nullptr},
                         {"flagged_a_higher", dt.flagged_a_higher},
                         {"flagged_b_higher", dt.flagged_b_higher}};
    }
    return j;
  }
  FlagTally& at(const ScoreRow& r) { return cells[static_cast<std::size_t>(r.model) * spec.arms.size() + r.arm]; }
  nlohmann::ordered_json json(const char* unit) const {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t m = 0; m < spec.models.size(); ++m) {
      for (std::size_t a = 0; a < spec.arms.size(); ++a) {
        const FlagTally& t = cells[m * spec.arms.size() + a];
        if (t.n == 0) continue;
        nlohmann::ordered_json e = {{"model", spec.models[m].name}, {"arm", spec.arms[a].name}, {"count", t.count}, {unit, t.n},
                                    {"rate", json_number(static_cast<double>(t.count) / static_cast<double>(t.n))}};
        if (!t.dims.empty()) e["dimensions"] = dimensions_json(t);
        if (t.noise_n > 0)
          e["noise_floor"] = {{"answer_pairs", t.noise_n}, {"count", t.noise_count},
                              {"rate", json_number(static_cast<double>(t.noise_count) / static_cast<double>(t.noise_n))}};
        if (std::string(unit) == "answers") {
          e["applicable"] = t.applicable;
          e["rate_applicable"] = t.applicable ? json_number(static_cast<double>(t.count) / static_cast<double>(t.applicable))
                                              : nlohmann::ordered_json();
        }
        list.push_back(std::move(e));
      }
    }
    return list;
  }
  void rows(Table& table, const std::string& flag, const std::string& pairing) const {
    for (std::size_t m = 0; m < spec.models.size(); ++m) {
      for (std::size_t a = 0; a < spec.arms.size(); ++a) {
        const FlagTally& t = cells[m * spec.arms.size() + a];
        if (t.n == 0) continue;
        const bool unit = pairing.empty();
        table.rows.push_back({flag, pairing, spec.models[m].name, spec.arms[a].name, std::to_string(t.count), std::to_string(t.n),
                              csv_number(static_cast<double>(t.count) / static_cast<double>(t.n)),
                              unit ? std::to_string(t.applicable) : "",
                              unit && t.applicable ? csv_number(static_cast<double>(t.count) / static_cast<double>(t.applicable)) : ""});
        if (table.header.size() > table.rows.back().size())
          table.rows.back().push_back(t.noise_n ? csv_number(static_cast<double>(t.noise_count) / static_cast<double>(t.noise_n)) : "");
      }
    }
  }
};

nlohmann::ordered_json unit_flag(const Context& ctx, const ast::FlagDecl& f, Table& table) {
  Tallies tallies(ctx.spec);
  for (const auto& r : ctx.scores.rows) {
    FlagTally& t = tallies.at(r);
    ++t.n;
    try {
      if (holds(f.when, ctx.spec, ctx.scores, r)) ++t.count;
      // With every score unknown, a condition that is still false cannot hold on this
      // answer whatever the judge says (N/A is Kleene's unknown: docs/language.md).
      ScoreRow unknown = r;
      std::fill(unknown.scores.begin(), unknown.scores.end(), std::numeric_limits<double>::quiet_NaN());
      const Value v = evaluate(f.when, RowScope(ctx.spec, ctx.scores, unknown));
      if (v.kind == Value::Kind::na || truthy(v)) ++t.applicable;
    } catch (const EvalError& e) {
      ctx.diags.error(e.range, e.what());
      return nullptr;
    }
  }
  tallies.rows(table, f.name.name, "");
  return {{"name", f.name.name}, {"kind", "unit"}, {"by_model_arm", tallies.json("answers")}};
}

// The flag's noise floor: its condition on two answers to the very same prompt (a = one,
// b = the other, both ways round), over the prompts at either level of the pairing. What
// rerunning alone produces, beside what changing the factor does.
bool add_noise_floor(const Context& ctx, const ast::FlagDecl& f, const ast::Pairing& p, std::initializer_list<Tallies*> into) {
  const Spec& spec = ctx.spec;
  const int factor = spec.factor_index(p.factor.name);
  const int la = spec.factors[factor].level_index(p.a.name), lb = spec.factors[factor].level_index(p.b.name);
  std::map<std::vector<int>, std::vector<std::size_t>> prompts;  // seed, model, arm, levels -> its answers
  for (std::size_t i = 0; i < ctx.scores.rows.size(); ++i) {
    const ScoreRow& r = ctx.scores.rows[i];
    if (r.levels[factor] != la && r.levels[factor] != lb) continue;
    std::vector<int> key = {r.seed, r.model, r.arm};
    key.insert(key.end(), r.levels.begin(), r.levels.end());
    prompts[key].push_back(i);
  }
  for (const auto& [key, answers] : prompts)
    for (std::size_t i : answers)
      for (std::size_t j : answers) {
        if (i == j) continue;
        const ScoreRow& a = ctx.scores.rows[i];
        RowScope sa(spec, ctx.scores, a), sb(spec, ctx.scores, ctx.scores.rows[j]);
        bool set = false;
        try {
          set = truthy(evaluate(f.when, PairScope(sa, sb)));
        } catch (const EvalError& e) {
          ctx.diags.error(e.range, e.what());
          return false;
        }
        for (Tallies* t : into) {
          FlagTally& cell = t->at(a);
          ++cell.noise_n;
          cell.noise_count += set ? 1 : 0;
        }
      }
  return true;
}

// The answers of one pair group (same seed, model, arm, answer and every factor but the
// paired one), on either side of the pairing.
struct PairGroup {
  int seed = 0, model = 0, arm = 0;
  std::vector<std::size_t> first, second;  ///< rows at level a, at level b
};

// The rows at levels `la` and `lb` of `factor` grouped by everything else, the groups in
// the order of their key (seed, the other levels, model, arm, answer: the plan's order, so
// that the groups visit the rows about as they lie in memory; in key order the rows' scores
// were a cache miss each at ten times MIRA). Each key is packed into one number and the rows
// sorted by it: a map keyed by vectors made this twenty times slower at ten times MIRA than
// at 1x. Rows whose key does not pack (a scores file's row outside the spec's ranges) are
// grouped through the map, in the same order.
std::vector<PairGroup> pair_groups(const Spec& spec, const ScoreTable& scores, int factor, int la, int lb) {
  std::vector<std::size_t> radix = {spec.seeds.size()};
  for (const auto& fac : spec.factors) radix.push_back(fac.levels.size());
  radix.insert(radix.end(), {spec.models.size(), spec.arms.size(), static_cast<std::size_t>(std::max(spec.answers, 1))});
  const MixedRadix packer(std::move(radix));
  bool packs = packer.fits();
  struct Keyed {
    std::uint64_t key;
    std::size_t row;
    bool at_a;
  };
  std::vector<Keyed> keyed;
  for (std::size_t i = 0; i < scores.rows.size() && packs; ++i) {
    const ScoreRow& r = scores.rows[i];
    const int level = r.levels[static_cast<std::size_t>(factor)];
    if (level != la && level != lb) continue;
    MixedRadix::Number key = packer.number();
    key.digit(r.seed);
    for (std::size_t f = 0; f < r.levels.size(); ++f) key.digit(static_cast<int>(f) == factor ? 0 : r.levels[f]);
    const std::optional<std::uint64_t> packed = key.digit(r.model).digit(r.arm).digit(r.answer).value();
    if (!packed) {
      packs = false;
      break;
    }
    keyed.push_back({*packed, i, level == la});
  }
  std::vector<PairGroup> out;
  auto start_group = [&](std::size_t i) {
    const ScoreRow& r = scores.rows[i];
    out.push_back(PairGroup{r.seed, r.model, r.arm, {}, {}});
  };
  if (packs) {
    // By key, then row: the order a stable sort by key gives, without its buffer.
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& x, const Keyed& y) {
      return x.key != y.key ? x.key < y.key : x.row < y.row;
    });
    out.reserve(keyed.size() / 2 + 1);  // most groups are a pair
    for (std::size_t k = 0; k < keyed.size(); ++k) {
      if (k == 0 || keyed[k].key != keyed[k - 1].key) start_group(keyed[k].row);
      (keyed[k].at_a ? out.back().first : out.back().second).push_back(keyed[k].row);
    }
    return out;
  }
  std::map<std::vector<int>, std::vector<std::size_t>> groups;  // key: seed, levels, model, arm, answer
  for (std::size_t i = 0; i < scores.rows.size(); ++i) {
    const ScoreRow& r = scores.rows[i];
    const int level = r.levels[static_cast<std::size_t>(factor)];
    if (level != la && level != lb) continue;
    std::vector<int> key = {r.seed};
    key.insert(key.end(), r.levels.begin(), r.levels.end());
    key[1 + static_cast<std::size_t>(factor)] = -1;  // answer k at one level pairs with answer k at the other
    key.insert(key.end(), {r.model, r.arm, r.answer});
    groups[key].push_back(i);
  }
  for (const auto& [key, rows] : groups) {
    start_group(rows.front());
    for (std::size_t i : rows)
      (scores.rows[i].levels[static_cast<std::size_t>(factor)] == la ? out.back().first : out.back().second).push_back(i);
  }
  return out;
}

std::string pairing_label(const ast::Pairing& p) { return fmt::format("{}: {} vs {}", p.factor.name, p.a.name, p.b.name); }

nlohmann::ordered_json pair_flag(const Context& ctx, const ast::FlagDecl& f, Table& table) {
  const Spec& spec = ctx.spec;
  // The differences of several pairings (low - high and zh - en) do not add up to one
  // number: a flag over several pairings has them per pairing only.
  const std::vector<std::string> no_dims;
  Tallies total(spec, f.pairings.size() == 1 ? ctx.scores.dims : no_dims);
  nlohmann::ordered_json pairings = nlohmann::ordered_json::array();
  for (const auto& p : f.pairings) {
    const int factor = spec.factor_index(p.factor.name);
    const int la = spec.factors[factor].level_index(p.a.name), lb = spec.factors[factor].level_index(p.b.name);
    // Groups by seed, model, arm, answer and every factor but the paired one: answer k at
    // one level pairs with answer k at the other.
    const std::vector<PairGroup> groups = pair_groups(spec, ctx.scores, factor, la, lb);
    Tallies tallies(spec, ctx.scores.dims);
    std::size_t unmatched = 0;
    nlohmann::ordered_json duplicates = nlohmann::ordered_json::array();
    std::size_t duplicate_groups = 0;
    for (const PairGroup& g : groups) {
      if (g.first.size() > 1 || g.second.size() > 1) {
        ++duplicate_groups;
        if (duplicates.size() < 20) {
          nlohmann::ordered_json lines = nlohmann::ordered_json::array();
          for (auto i : g.first) lines.push_back(ctx.scores.rows[i].line);
          for (auto i : g.second) lines.push_back(ctx.scores.rows[i].line);
          duplicates.push_back({{"seed", spec.seeds[static_cast<std::size_t>(g.seed)].id},
                                {"model", spec.models[static_cast<std::size_t>(g.model)].name},
                                {"arm", spec.arms[static_cast<std::size_t>(g.arm)].name}, {"lines", lines}});
        }
        continue;
      }
      if (g.first.empty() || g.second.empty()) {
        ++unmatched;
        continue;
      }
      const ScoreRow& a = ctx.scores.rows[g.first[0]];
      const ScoreRow& b = ctx.scores.rows[g.second[0]];
      RowScope sa(spec, ctx.scores, a), sb(spec, ctx.scores, b);
      bool set = false;
      try {
        set = truthy(evaluate(f.when, PairScope(sa, sb)));
      } catch (const EvalError& e) {
        ctx.diags.error(e.range, e.what());
        return nullptr;
      }
      for (Tallies* t : {&tallies, &total}) {
        FlagTally& cell = t->at(a);
        ++cell.n;
        cell.count += set ? 1 : 0;
        for (std::size_t d = 0; d < cell.dims.size(); ++d) {
          const double x = a.scores[d], y = b.scores[d];
          if (is_na(x) || is_na(y)) continue;
          DimensionTally& dt = cell.dims[d];
          ++dt.scored;
          dt.delta_sum += x - y;
          if (set && x > y) ++dt.flagged_a_higher;
          if (set && x < y) ++dt.flagged_b_higher;
        }
      }
    }
    if (duplicate_groups > 0) {
      bool one = duplicate_groups == 1;
      ctx.diags.warning(f.name.range, fmt::format("flag {}: {} pair group{} of {} {} more than one answer on a side and "
                                                  "{} left out (see results.json)", f.name.name, duplicate_groups,
                                                  one ? "" : "s", pairing_label(p), one ? "holds" : "hold",
                                                  one ? "is" : "are"));
    }
    if (spec.answers > 1 && !add_noise_floor(ctx, f, p, {&tallies, &total})) return nullptr;
    tallies.rows(table, f.name.name, pairing_label(p));
    pairings.push_back({{"pairing", pairing_label(p)}, {"by_model_arm", tallies.json("pairs")}, {"unmatched", unmatched},
                        {"duplicate_groups", duplicate_groups}, {"duplicates", duplicates}});
  }
  if (f.pairings.size() > 1) total.rows(table, f.name.name, "all");
  return {{"name", f.name.name}, {"kind", "pair"}, {"by_model_arm", total.json("pairs")}, {"pairings", pairings}};
}

}  // namespace

void add_flags(const Context& ctx, Output& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  Table table{"flags", {"flag", "pairing", "model", "arm", "count", "n", "rate", "applicable", "rate_applicable"}, {}};
  if (ctx.spec.answers > 1) table.header.push_back("noise_floor");
  for (const auto& f : ctx.spec.flags) {
    nlohmann::ordered_json j = f.pairings.empty() ? unit_flag(ctx, f, table) : pair_flag(ctx, f, table);
    if (!j.is_null()) list.push_back(std::move(j));
  }
  out.json["flags"] = std::move(list);
  out.tables.push_back(std::move(table));
}

}  // namespace mirac::analyze
