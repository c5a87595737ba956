#include "engine/view/pairs.hpp"

#include <unordered_map>

#include "interpreter/eval/eval.hpp"
#include "interpreter/scores/row_scope.hpp"

namespace mirac::view {

namespace {

// The key of an answer's pair group: its seed, model, arm and every level but `factor`'s,
// packed as bytes so one hash lookup per row matches a full store in milliseconds.
struct KeyCoder {
  int factor;
  std::string key(const AnswerRow& r) const {
    std::string k;
    auto digit = [&k](int value) { k.append(reinterpret_cast<const char*>(&value), sizeof value); };
    digit(r.seed);
    digit(r.model);
    digit(r.arm);
    for (std::size_t f = 0; f < r.levels.size(); ++f)
      if (static_cast<int>(f) != factor) digit(r.levels[f]);
    return k;
  }
};

constexpr std::size_t kNone = static_cast<std::size_t>(-1), kMany = static_cast<std::size_t>(-2);

void put(std::size_t& side, std::size_t row) { side = side == kNone ? row : kMany; }

}  // namespace

MatchedRows match_rows(const AnswerIndex& index, const std::vector<std::size_t>& candidates, int factor, int a, int b) {
  const auto& rows = index.rows();
  const KeyCoder coder{factor};
  struct Sides {
    std::size_t a = kNone, b = kNone, first = 0;
  };
  std::unordered_map<std::string, Sides> groups;
  std::vector<std::string> order;  // keys in the order their first row came
  for (std::size_t i : candidates) {
    const AnswerRow& r = rows[i];
    const int level = r.levels[static_cast<std::size_t>(factor)];
    if (level != a && level != b) continue;
    std::string k = coder.key(r);
    auto [it, fresh] = groups.try_emplace(k);
    if (fresh) order.push_back(k);
    put(level == a ? it->second.a : it->second.b, i);
  }
  MatchedRows out;
  for (const std::string& k : order) {
    const Sides& s = groups.at(k);
    if (s.a == kMany || s.b == kMany) ++out.duplicates;
    else if (s.a == kNone || s.b == kNone) ++out.unmatched;
    else out.pairs.emplace_back(s.a, s.b);
  }
  return out;
}

bool pair_flag_fires(const AnswerIndex& index, std::size_t flag, const AnswerRow& a, const AnswerRow& b) {
  if (a.score_row < 0 || b.score_row < 0) return false;
  const analyze::ScoreTable& table = index.scores();
  analyze::RowScope sa(index.spec(), table, table.rows[static_cast<std::size_t>(a.score_row)]);
  analyze::RowScope sb(index.spec(), table, table.rows[static_cast<std::size_t>(b.score_row)]);
  return truthy(evaluate(index.spec().flags[flag].when, analyze::PairScope(sa, sb)));
}

bool unit_flag_holds(const AnswerIndex& index, std::size_t flag, const AnswerRow& row) {
  if (row.score_row < 0) return false;
  const analyze::ScoreTable& table = index.scores();
  return analyze::holds(index.spec().flags[flag].when, index.spec(), table,
                        table.rows[static_cast<std::size_t>(row.score_row)]);
}

}  // namespace mirac::view
