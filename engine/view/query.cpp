#include "engine/view/query.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/view/pairs.hpp"

namespace mirac::view {

namespace {

// The index of `value` among `names`, or -1 with a message listing what would do.
template <class Names>
int index_of(const Names& names, const std::string& value, const std::string& what, std::string& error) {
  std::vector<std::string> all;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == value) return static_cast<int>(i);
    all.push_back(names[i]);
  }
  error = fmt::format("unknown {} '{}' (expected one of: {})", what, value, fmt::join(all, ", "));
  return -1;
}

std::vector<std::string> model_names(const Spec& spec) {
  std::vector<std::string> out;
  for (const auto& m : spec.models) out.push_back(m.name);
  return out;
}
std::vector<std::string> arm_names(const Spec& spec) {
  std::vector<std::string> out;
  for (const auto& a : spec.arms) out.push_back(a.name);
  return out;
}
std::vector<std::string> flag_names(const Spec& spec) {
  std::vector<std::string> out;
  for (const auto& f : spec.flags) out.push_back(f.name.name);
  return out;
}

const std::string* param(const Params& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() || it->second.empty() ? nullptr : &it->second;
}

// The parameters that are not a filter's; every other name must be a factor's.
bool is_query_param(const std::string& name) {
  for (const char* known : kQueryParams)
    if (name == known) return true;
  return false;
}

}  // namespace

Filter parse_filter(const AnswerIndex& index, const Params& params, std::string& error) {
  const Spec& spec = index.spec();
  Filter f;
  f.levels.assign(spec.factors.size(), -1);
  if (const std::string* v = param(params, "model")) f.model = index_of(model_names(spec), *v, "model", error);
  if (const std::string* v = param(params, "arm")) f.arm = index_of(arm_names(spec), *v, "arm", error);
  if (const std::string* v = param(params, "seed")) f.seed = *v;
  if (const std::string* v = param(params, "judge")) {
    f.judging = judging_of(*v);
    if (!f.judging) index_of(std::vector<std::string>(std::begin(kJudgingNames), std::end(kJudgingNames)), *v,
                             "judge state", error);
  }
  if (const std::string* v = param(params, "status")) {
    f.status = status_of(*v);
    if (!f.status) index_of(std::vector<std::string>{"done", "failed", "missing"}, *v, "answer status", error);
  }
  if (const std::string* v = param(params, "flag")) f.flag = index_of(flag_names(spec), *v, "flag", error);
  if (const std::string* v = param(params, "scored_on")) f.scored_on = index_of(index.dims(), *v, "dimension", error);
  for (const auto& [name, value] : params) {
    if (is_query_param(name) || value.empty()) continue;
    const int factor = spec.factor_index(name);
    if (factor < 0) {
      error = fmt::format("unknown parameter '{}' (not a factor of spec {})", name, spec.name);
      continue;
    }
    const Factor& fac = spec.factors[static_cast<std::size_t>(factor)];
    f.levels[static_cast<std::size_t>(factor)] = index_of(fac.level_names(), value, "level of " + name, error);
  }
  return f;
}

bool keeps(const AnswerIndex& index, const Filter& f, const AnswerRow& row, int except_factor) {
  if (f.model >= 0 && row.model != f.model) return false;
  if (f.arm >= 0 && row.arm != f.arm) return false;
  const std::vector<int>& levels = index.levels(row);
  for (std::size_t i = 0; i < f.levels.size(); ++i)
    if (f.levels[i] >= 0 && static_cast<int>(i) != except_factor && levels[i] != f.levels[i]) return false;
  if (f.judging && row.judging != *f.judging) return false;
  if (f.status && row.status != *f.status) return false;
  if (f.flag >= 0 && !index.flagged(row, static_cast<std::size_t>(f.flag))) return false;
  if (f.scored_on >= 0 &&
      (row.judging != Judging::scored || std::isnan(index.score(row, static_cast<std::size_t>(f.scored_on)))))
    return false;
  if (!f.seed.empty()) {
    if (row.seed < 0) return false;
    if (index.spec().seeds[static_cast<std::size_t>(row.seed)].id.find(f.seed) == std::string::npos) return false;
  }
  return true;
}

std::vector<std::size_t> filter_rows(const AnswerIndex& index, const Filter& filter) {
  std::vector<std::size_t> out;
  const auto& rows = index.rows();
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (keeps(index, filter, rows[i])) out.push_back(i);
  return out;
}

PairQuery parse_pairs(const AnswerIndex& index, const Params& params, std::string& error) {
  const Spec& spec = index.spec();
  PairQuery q;
  Params rest = params;
  rest.erase("flag");  // a pair flag here picks pairs, not the answers it marks
  q.filter = parse_filter(index, rest, error);
  if (const std::string* v = param(params, "flag")) {
    q.flag = index_of(flag_names(spec), *v, "flag", error);
    if (q.flag >= 0 && spec.flags[static_cast<std::size_t>(q.flag)].pairings.empty()) {
      error = fmt::format("flag {} is a unit flag; pairs take a pair flag (filter answers by it instead)", *v);
      return q;
    }
  }
  const std::string* factor = param(params, "factor");
  const std::string *a = param(params, "a"), *b = param(params, "b");
  std::string fa, fb, ff;
  if (!factor && q.flag >= 0 && !spec.flags[static_cast<std::size_t>(q.flag)].pairings.empty()) {
    const ast::Pairing& p = spec.flags[static_cast<std::size_t>(q.flag)].pairings.front();
    ff = p.factor.name, fa = p.a.name, fb = p.b.name;
  } else if (factor && a && b) {
    ff = *factor, fa = *a, fb = *b;
  } else {
    error = "pairs need factor, a and b (`factor=literacy&a=low&b=high`), or a pair flag";
    return q;
  }
  q.factor = spec.factor_index(ff);
  if (q.factor < 0) {
    std::vector<std::string> names;
    for (const auto& f : spec.factors) names.push_back(f.name);
    index_of(names, ff, "factor", error);
    return q;
  }
  const Factor& fac = spec.factors[static_cast<std::size_t>(q.factor)];
  q.a = index_of(fac.level_names(), fa, "level of " + ff, error);
  q.b = index_of(fac.level_names(), fb, "level of " + ff, error);
  if (q.a >= 0 && q.a == q.b) error = fmt::format("a pair needs two different levels of {}, not {} twice", ff, fa);
  if (const std::string* v = param(params, "dim")) q.dim = index_of(index.dims(), *v, "dimension", error);
  if (const std::string* v = param(params, "min_diff")) {
    char* end = nullptr;
    const double d = std::strtod(v->c_str(), &end);
    if (end == v->c_str() || *end != '\0' || !std::isfinite(d)) error = fmt::format("min_diff '{}' is not a number", *v);
    else q.min_diff = d;
    if (q.dim < 0 && !param(params, "dim")) error = "min_diff needs dim (the dimension whose a - b it bounds)";
  }
  return q;
}

std::vector<double> score_differences(const AnswerIndex& index, const AnswerRow& a, const AnswerRow& b) {
  std::vector<double> d(index.dims().size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = index.score(a, i) - index.score(b, i);
  return d;
}

PairsResult find_pairs(const AnswerIndex& index, const PairQuery& q) {
  PairsResult out;
  std::vector<std::size_t> candidates;
  const auto& rows = index.rows();
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (keeps(index, q.filter, rows[i], q.factor)) candidates.push_back(i);
  const MatchedRows m = match_rows(index, candidates, q.factor, q.a, q.b);
  FlagEvaluator evaluate(index);
  out.matched = m.pairs.size();
  out.unmatched = m.unmatched;
  out.duplicates = m.duplicates;
  for (const auto& [a, b] : m.pairs) {
    if (q.flag >= 0 && !evaluate.pair_fires(static_cast<std::size_t>(q.flag), rows[a], rows[b])) continue;
    if (q.min_diff && q.dim >= 0) {
      const std::size_t d = static_cast<std::size_t>(q.dim);
      const double diff = index.score(rows[a], d) - index.score(rows[b], d);
      if (std::isnan(diff) || diff < *q.min_diff) continue;
    }
    out.pairs.emplace_back(a, b);
  }
  return out;
}

}  // namespace mirac::view
