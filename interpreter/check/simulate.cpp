// check_simulate.cpp: the `simulate` block. Every number is a constant in its range, every
// dimension one the analyses' rubric scores, every effect's condition reads only what an
// answer has before it is scored (its factors' levels, model, arm, seed and checklist).
#include <set>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"
#include "interpreter/eval/eval.hpp"

namespace mirac {

namespace {

class NoNames : public Scope {
 public:
  std::optional<Value> name(const std::string&) const override { return std::nullopt; }
};

// The value of a constant expression of `kind`, or nullopt after reporting why not.
std::optional<Value> constant(const ast::Expr& e, Value::Kind kind, const std::string& what, Diagnostics& diags) {
  try {
    Value v = evaluate(e, NoNames());
    if (v.kind == kind) return v;
  } catch (const EvalError&) {
  }
  diags.error(e.range, fmt::format("{} must be {}", what, kind == Value::Kind::number ? "a number" : "true or false"));
  return std::nullopt;
}

void number_at_least(const std::optional<ast::Expr>& e, double lo, double hi, const std::string& what, Diagnostics& diags) {
  if (!e) return;
  auto v = constant(*e, Value::Kind::number, what, diags);
  if (v && (v->number < lo || v->number > hi))
    diags.error(e->range, hi < 1e300 ? fmt::format("{} must be from {} to {}", what, lo, hi)
                                     : fmt::format("{} must be {} or more", what, lo));
}

// A simulated dimension is drawn in rubric order, so its `na when` can read only the
// dimensions before it: the others have no score yet.
void check_na_reads_earlier(const ast::RubricDecl& rubric, const std::string& dim, const ast::Expr& na_when,
                            Diagnostics& diags) {
  std::vector<std::pair<std::string, SourceRange>> read;
  names_read(na_when, read);
  bool later = false;
  for (const auto& d : rubric.dims) {
    later = later || d.name.name == dim;
    if (!later) continue;
    for (const auto& [name, at] : read)
      if (name == d.name.name)
        diags.error(at, fmt::format("'na when' of '{}' reads '{}'{}: it may read only the dimensions before '{}' "
                                    "in the rubric",
                                    dim, name, name == dim ? " itself" : ", which is drawn after it", dim));
  }
}

}  // namespace

void check_simulate(const Spec& spec, Diagnostics& diags) {
  const ast::SimulateDecl& sim = *spec.simulate;
  const ast::RubricDecl* rubric = spec.scored_rubric();
  constexpr double kAny = 1e308;
  if (sim.seed) {
    auto v = constant(*sim.seed, Value::Kind::number, "the simulation's seed", diags);
    if (v && (v->number < 0 || v->number != static_cast<double>(static_cast<std::uint64_t>(v->number))))
      diags.error(sim.seed->range, "the simulation's seed must be a whole number, 0 or more");
  }
  if (!rubric) {
    SourceRange at = sim.dims.empty() ? SourceRange{} : sim.dims.front().range;
    diags.error(at, "'simulate' declares scores of a rubric, and the spec has none");
    return;
  }
  std::set<std::string> dims, declared;
  for (const auto& d : rubric->dims) dims.insert(d.name.name);
  const std::string no_scores = "an effect sets the scores, so its condition cannot read one (use 'na when' for a rule "
                                "on scores)";
  for (const auto& d : sim.dims) {
    const std::string& name = d.dim.name;
    const ast::DimDecl* dim = nullptr;
    for (const auto& rd : rubric->dims)
      if (rd.name.name == name) dim = &rd;
    if (!dim) {
      diags.error(d.dim.range, with_suggestion(fmt::format("'{}' is not a dimension of rubric '{}', whose scores the "
                                                           "analyses read", name, rubric->name.name),
                                               name, {dims.begin(), dims.end()}));
    } else if (dim->derived()) {
      diags.error(d.dim.range, fmt::format("'{}' is derived from the rubric's criteria, so it cannot be simulated "
                                           "directly", name));
    }
    if (!declared.insert(name).second) diags.error(d.dim.range, fmt::format("dimension '{}' is simulated twice", name));
    if (!d.intercept && dim) diags.error(d.dim.range, fmt::format("simulated dimension '{}' needs an 'intercept'", name));
    number_at_least(d.intercept, -kAny, kAny, "an intercept", diags);
    for (const auto& e : d.effects) {
      check_row_condition(spec, e.when, no_scores, diags);
      number_at_least(e.value, -kAny, kAny, "an effect", diags);
    }
    for (const auto& e : d.biases) {
      check_row_condition(spec, e.when, no_scores, diags);
      number_at_least(e.value, -kAny, kAny, "a judge's bias", diags);
      if (e.rubric && !spec.find_rubric(e.rubric->name)) {
        std::vector<std::string> rubrics;
        for (const auto& r : spec.rubrics) rubrics.push_back(r.name.name);
        diags.error(e.rubric->range, with_suggestion(fmt::format("'{}' is not a rubric", e.rubric->name),
                                                     e.rubric->name, rubrics));
      }
    }
    std::set<std::string> groups;
    for (const auto& r : d.randoms) {
      std::string group = r.group.field.name + (r.group.level ? "." + r.group.level->name : "");
      bool known = r.group.field.name == "seed" && (!r.group.level || r.group.level->name == "id");
      if (r.group.field.name == "seed" && r.group.level) {
        for (const auto& f : spec.seed_fields)
          if (f.name == r.group.level->name && f.index_factor < 0) known = true;
      }
      if (!known) {
        std::vector<std::string> fields;
        for (const auto& f : spec.seed_fields)
          if (f.index_factor < 0) fields.push_back("seed." + f.name);
        diags.error(r.group.range, with_suggestion(fmt::format("a random intercept varies by 'seed' or a seed field "
                                                               "('seed.category'), not '{}'", group),
                                                   group, fields));
      }
      if (!groups.insert(group).second) diags.error(r.group.range, fmt::format("'random {}' is given twice", group));
      number_at_least(r.sd, 0, kAny, "a standard deviation", diags);
    }
    number_at_least(d.residual, 0, kAny, "a standard deviation", diags);
    number_at_least(d.answer, 0, kAny, "a standard deviation", diags);
    number_at_least(d.na_rate, 0, 1, "an N/A rate", diags);
    if (d.na_when) {
      check_row_condition(spec, *d.na_when, "", diags);
      if (dim) check_na_reads_earlier(*rubric, name, *d.na_when, diags);
    }
    if (d.round) constant(*d.round, Value::Kind::boolean, "'round'", diags);
    if (d.clip) constant(*d.clip, Value::Kind::boolean, "'clip'", diags);
  }
  for (const auto& d : rubric->dims) {
    if (!declared.count(d.name.name) && d.asked_of_judge() && !sim.dims.empty())
      diags.warning(d.name.range, fmt::format("dimension '{}' is not simulated: `mirac simulate` leaves it N/A, and "
                                              "an offline run's judge scores it by its heuristic", d.name.name));
  }
}

// One `simulate` block per spec, checked once every rubric and analysis is known.
void check_simulate_block(CheckContext& cx) {
  const ast::Decl* first_simulate = nullptr;
  for (auto [d, sim] : all_of<ast::SimulateDecl>(cx.decls)) {
    if (first_simulate) {
      cx.diags.error(d->range, "a spec has one 'simulate' block; this is a second");
      cx.diags.note(fmt::format("the first is at line {}", first_simulate->range.begin.line));
      continue;
    }
    first_simulate = d;
    cx.spec.simulate = *sim;
  }
  if (cx.spec.simulate) check_simulate(cx.spec, cx.diags);
}

}  // namespace mirac
