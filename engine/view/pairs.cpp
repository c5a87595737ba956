#include "engine/view/pairs.hpp"

#include <algorithm>
#include <cstdint>

#include "interpreter/eval/eval.hpp"
#include "interpreter/scores/row_scope.hpp"

namespace mirac::view {

namespace {

// The key of an answer's pair group: its seed, model, arm and every level but `factor`'s,
// as one number (a digit each, in the radix of its count), so that a full store's rows are
// grouped by one sort of numbers rather than a hash table of 400,000 byte strings. A spec
// with more combinations than 64 bits hold compares the fields themselves.
class GroupKey {
 public:
  GroupKey(const AnswerIndex& index, int factor) : index_(index), factor_(factor) {
    const Spec& spec = index.spec();
    std::vector<std::uint64_t> radices = {spec.seeds.size() + 1, spec.models.size(), spec.arms.size()};
    for (std::size_t f = 0; f < spec.factors.size(); ++f)
      if (static_cast<int>(f) != factor) radices.push_back(spec.factors[f].levels.size());
    std::uint64_t weight = 1;
    for (std::uint64_t radix : radices) {
      weights_.push_back(weight);
      packed_ = packed_ && !__builtin_mul_overflow(weight, std::max<std::uint64_t>(radix, 1), &weight);
    }
  }
  std::uint64_t key(const AnswerRow& r) const {
    if (!packed_) return 0;
    auto digit = [](int value) { return static_cast<std::uint64_t>(value); };
    std::uint64_t k = weights_[0] * digit(r.seed + 1) + weights_[1] * digit(r.model) + weights_[2] * digit(r.arm);
    const std::vector<int>& levels = index_.levels(r);
    for (std::size_t f = 0, w = 3; f < levels.size(); ++f)
      if (static_cast<int>(f) != factor_) k += weights_[w++] * digit(levels[f]);
    return k;
  }
  /// Whether key() tells every group apart (else it is 0, and compare() orders the rows).
  bool packed() const { return packed_; }
  /// Orders rows by their fields, for when the key does not hold them.
  int compare(const AnswerRow& x, const AnswerRow& y) const {
    const std::vector<int> fx = fields(x), fy = fields(y);
    return fx < fy ? -1 : fy < fx ? 1 : 0;
  }

 private:
  std::vector<int> fields(const AnswerRow& r) const {
    std::vector<int> out = {r.seed + 1, r.model, r.arm};
    const std::vector<int>& levels = index_.levels(r);
    for (std::size_t f = 0; f < levels.size(); ++f)
      if (static_cast<int>(f) != factor_) out.push_back(levels[f]);
    return out;
  }
  const AnswerIndex& index_;
  int factor_;
  std::vector<std::uint64_t> weights_;
  bool packed_ = true;
};

}  // namespace

MatchedRows match_rows(const AnswerIndex& index, const std::vector<std::size_t>& candidates, int factor, int a, int b) {
  const auto& rows = index.rows();
  const GroupKey group(index, factor);
  struct Side {
    std::uint64_t key;
    std::size_t order;  ///< its place among the candidates
    std::size_t row;
    bool a;
  };
  std::vector<Side> sides;
  sides.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const AnswerRow& r = rows[candidates[i]];
    const int level = index.levels(r)[static_cast<std::size_t>(factor)];
    if (level == a || level == b) sides.push_back({group.key(r), i, candidates[i], level == a});
  }
  auto compare = [&](const Side& x, const Side& y) {
    if (x.key != y.key) return x.key < y.key ? -1 : 1;
    return group.packed() ? 0 : group.compare(rows[x.row], rows[y.row]);
  };
  if (group.packed())
    std::sort(sides.begin(), sides.end(),
              [](const Side& x, const Side& y) { return x.key != y.key ? x.key < y.key : x.order < y.order; });
  else
    std::sort(sides.begin(), sides.end(), [&](const Side& x, const Side& y) {
      const int c = compare(x, y);
      return c != 0 ? c < 0 : x.order < y.order;
    });
  // Each group's pair, in the order of the group's first row, as the analyses list them.
  MatchedRows out;
  std::vector<std::pair<std::size_t, std::pair<std::size_t, std::size_t>>> found;  // (first row's order, pair)
  for (std::size_t begin = 0, end = 0; begin < sides.size(); begin = end) {
    std::size_t on_a = 0, on_b = 0, row_a = 0, row_b = 0;
    for (end = begin; end < sides.size() && compare(sides[begin], sides[end]) == 0; ++end) {
      if (sides[end].a) ++on_a, row_a = sides[end].row;
      else ++on_b, row_b = sides[end].row;
    }
    if (on_a > 1 || on_b > 1) ++out.duplicates;
    else if (on_a == 0 || on_b == 0) ++out.unmatched;
    else found.push_back({sides[begin].order, {row_a, row_b}});
  }
  std::sort(found.begin(), found.end());
  for (const auto& f : found) out.pairs.push_back(f.second);
  return out;
}

bool FlagEvaluator::unit_holds(std::size_t flag, const AnswerRow& row) {
  if (!index_.score_row(row, a_)) return false;
  return analyze::holds(index_.spec().flags[flag].when, index_.spec(), index_.table(), a_);
}

bool FlagEvaluator::pair_fires(std::size_t flag, const AnswerRow& a, const AnswerRow& b) {
  if (a.score_row < 0 || b.score_row < 0) return false;
  index_.score_row(a, a_);
  index_.score_row(b, b_);
  analyze::RowScope sa(index_.spec(), index_.table(), a_);
  analyze::RowScope sb(index_.spec(), index_.table(), b_);
  return truthy(evaluate(index_.spec().flags[flag].when, analyze::PairScope(sa, sb)));
}

}  // namespace mirac::view
