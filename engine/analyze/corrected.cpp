// corrected.cpp: `corrected(D3, Q2) { judge J  people human  by model  certify qwk >= 0.6 }`:
// means corrected for the judge's error with people's scores of a sample of the answers
// (prediction-powered inference, runtime/stats/judge_correction.hpp), beside the judge's
// own figures, per dimension and `by` group; with `contrasts` and `flags`, the same for
// declared contrasts and unit flags (corrected_parts.cpp). Intervals come from a cluster
// bootstrap over seeds of the whole estimator, as contrasts' do: a seed's answers are
// correlated, and the formula's interval, which takes them as independent, is too narrow
// (docs/statistics.md, section 7c). `certify` gates the judge: where its agreement with
// people falls under a bound, its figures are labelled uncertified.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/corrected.hpp"
#include "engine/analyze/pairs.hpp"
#include "engine/analyze/parts.hpp"
#include "runtime/stats/agreement.hpp"
#include "runtime/stats/nan.hpp"

namespace mirac::analyze {

namespace corrected_detail {

namespace {

using stats::kNaN;

std::vector<CertifyRule> certify_rules(const ast::AnalysisOption* o) {
  std::vector<CertifyRule> rules;
  if (!o) return rules;
  for (const auto& v : o->values) {
    // `mirac check` has held each value to METRIC >= NUMBER or METRIC > NUMBER.
    const auto* b = std::get_if<ast::Binary>(&v.value.node);
    const auto* bound = b ? std::get_if<ast::NumberLit>(&b->rhs->node) : nullptr;
    if (!bound) continue;
    rules.push_back({name_of(*b->lhs), b->op == ">", bound->value});
  }
  return rules;
}

std::string format_value(double x) { return std::isfinite(x) ? fmt::format("{:.3f}", x) : std::string("undefined"); }

}  // namespace

std::string CertifyRule::text() const { return fmt::format("{} {} {}", metric, strict ? ">" : ">=", bound); }

nlohmann::ordered_json Certification::json() const {
  return {{"n", n},
          {"qwk", json_number(qwk)},
          {"exact", json_number(exact)},
          {"adjacent", json_number(adjacent)},
          {"certified", certified},
          {"failed", failed}};
}

Certification certify(const std::vector<CertifyRule>& rules, std::span<const double> judge, std::span<const double> people,
                      std::span<const double> labels) {
  std::vector<double> a, b;
  for (std::size_t i = 0; i < judge.size(); ++i)
    if (!std::isnan(judge[i]) && !std::isnan(people[i])) a.push_back(judge[i]), b.push_back(people[i]);
  Certification c;
  c.n = a.size();
  c.qwk = c.exact = c.adjacent = kNaN;
  if (!a.empty()) {
    // A kappa needs every value on the scale (a mean panel's 3.5 is not).
    const bool on_scale = std::all_of(a.begin(), a.end(), [&](double x) { return std::count(labels.begin(), labels.end(), x); }) &&
                          std::all_of(b.begin(), b.end(), [&](double x) { return std::count(labels.begin(), labels.end(), x); });
    const stats::PairAgreement p = stats::pair_agreement(a, b, on_scale ? labels : std::span<const double>());
    c.qwk = p.qwk, c.exact = p.exact, c.adjacent = p.adjacent;
  }
  for (const CertifyRule& rule : rules) {
    const double value = rule.metric == "qwk" ? c.qwk : rule.metric == "exact" ? c.exact : c.adjacent;
    const bool met = rule.strict ? value > rule.bound : value >= rule.bound;  // NaN meets nothing
    if (met) continue;
    c.certified = false;
    c.failed.push_back(fmt::format("{} {} {} {}", rule.metric, format_value(value), rule.strict ? "<=" : "<", rule.bound));
  }
  return c;
}

nlohmann::ordered_json Interval::json() const {
  nlohmann::ordered_json j{{"estimate", json_number(estimate)}, {"ci", ci}};
  if (undefined > 0) j["ci_undefined_resamples"] = undefined;
  return j;
}

const ScoreRow* Setup::people_row(const ScoreRow& judge_row) const {
  auto it = people_of.find(answer_key(judge_row));
  return it == people_of.end() ? nullptr : &people_table.rows[it->second];
}

std::map<int, std::size_t> seed_slots(const ScoreTable& table, const std::vector<std::size_t>& rows) {
  std::map<int, std::size_t> slots;
  for (std::size_t i : rows) slots.emplace(table.rows[i].seed, 0);
  std::size_t next = 0;
  for (auto& [seed, slot] : slots) slot = next++;
  return slots;
}

std::vector<std::string> csv_row(const std::string& part, const std::string& name, const std::string& group, double N,
                                 double n, const Interval& judge, const Interval& corrected, const Interval* rogan_gladen,
                                 const Certification* certification) {
  auto bound = [](const Interval& i, std::size_t k) { return i.ci.is_array() ? csv_number(i.ci[k].get<double>()) : ""; };
  std::vector<std::string> row = {part, name, group, csv_number(N), csv_number(n), csv_number(judge.estimate),
                                  bound(judge, 0), bound(judge, 1), csv_number(corrected.estimate), bound(corrected, 0),
                                  bound(corrected, 1)};
  for (const std::string& cell : {rogan_gladen ? csv_number(rogan_gladen->estimate) : std::string(),
                                  rogan_gladen ? bound(*rogan_gladen, 0) : std::string(),
                                  rogan_gladen ? bound(*rogan_gladen, 1) : std::string()})
    row.push_back(cell);
  row.push_back(certification ? (certification->certified ? "yes" : "no") : "");
  return row;
}

}  // namespace corrected_detail

using namespace corrected_detail;

namespace {

// The points of the dimension's scale (its own, else the rubric's), for the kappa of the certification.
std::vector<double> scale_labels(const Spec& spec, const std::string& dim) {
  double lo = 1, hi = 5;
  if (const ast::RubricDecl* rubric = spec.scored_rubric()) {
    const ScoreScale own = dim_scale(*rubric, dim);
    lo = own.lo, hi = own.hi;
  }
  std::vector<double> labels;
  for (double v = lo; v <= hi; ++v) labels.push_back(v);
  return labels;
}

// The judge's agreement with people on every dimension, over the answers the analysis keeps.
std::map<std::string, Certification> certify_dimensions(const Setup& s) {
  std::map<std::string, Certification> out;
  if (s.rules.empty()) return out;
  for (std::size_t d = 0; d < s.judge_table.dims.size(); ++d) {
    std::vector<double> judge, people;
    for (std::size_t i : s.rows) {
      const ScoreRow& row = s.judge_table.rows[i];
      const ScoreRow* p = s.people_row(row);
      if (!p) continue;
      judge.push_back(row.scores[d]);
      people.push_back(p->scores[d]);
    }
    out.emplace(s.judge_table.dims[d], certify(s.rules, judge, people, scale_labels(s.ctx.spec, s.judge_table.dims[d])));
  }
  return out;
}

// One dimension in one group: the judge's mean, the corrected one, and the formula's
// interval beside the bootstrap's.
nlohmann::ordered_json dimension_group(const Setup& s, const std::string& dim, int d, const Group& g,
                                       const Certification* certification, Table& table) {
  const std::map<int, std::size_t> slots = seed_slots(s.judge_table, g.rows);
  std::vector<stats::PpiSums> per_seed(slots.size());
  stats::PpiSums total;
  for (std::size_t i : g.rows) {
    const ScoreRow& row = s.judge_table.rows[i];
    const double f = row.scores[static_cast<std::size_t>(d)];
    if (is_na(f)) continue;  // N/A to the judge: not an answer the judge's mean covers
    const ScoreRow* p = s.people_row(row);
    const double y = p ? p->scores[static_cast<std::size_t>(d)] : kNaN;
    stats::PpiSums& part = per_seed[slots.at(row.seed)];
    if (is_na(y)) part.add_judged(f), total.add_judged(f);
    else part.add_scored_by_people(f, y), total.add_scored_by_people(f, y);
  }
  const std::string key = fmt::format("{}/{}/{}", s.a.name.name, dim, group_label(g));
  const Interval judge = seed_interval<stats::PpiSums>(s, key, per_seed, {}, [](const stats::PpiSums& t) {
    return t.all_n > 0 ? t.all_judge / t.all_n : kNaN;
  });
  const stats::PpiMethod method = s.method;
  const Interval corrected =
      seed_interval<stats::PpiSums>(s, key, per_seed, {}, [method](const stats::PpiSums& t) { return stats::ppi_point(t, method); });
  const stats::PpiEstimate formula = stats::ppi_mean(total, method);

  nlohmann::ordered_json entry{{"dimension", dim}};
  entry.update(group_json(s.by, g));
  entry["N"] = static_cast<std::size_t>(total.all_n);
  if (slots.size() < stats::kSmallestVerifiedClusters) entry["small_design"] = true;
  entry["n"] = static_cast<std::size_t>(total.n);
  entry["judge_only"] = judge.json();
  nlohmann::ordered_json c = corrected.json();
  c["se_iid"] = json_number(formula.corrected.se);
  c["ci_iid"] = std::isfinite(formula.corrected.lower)
                    ? nlohmann::ordered_json::array({formula.corrected.lower, formula.corrected.upper})
                    : nlohmann::ordered_json();
  if (method == stats::PpiMethod::power_tuned) c["lambda"] = json_number(formula.lambda);
  entry["corrected"] = std::move(c);
  entry["people_only"] = {{"estimate", json_number(formula.people_only.estimate)}, {"n", static_cast<std::size_t>(total.n)}};
  if (certification) entry["certified"] = certification->certified;
  if (total.n == 0) entry["note"] = "people scored no answer of this group: nothing to correct with";
  else if (corrected.ci.is_null()) entry["note"] = kTooFewForInterval;
  table.rows.push_back(csv_row("dimension", dim, group_label(g), total.all_n, total.n, judge, corrected, nullptr, certification));
  return entry;
}

// Why there is nothing to correct yet, or "" when both raters have scores; `rater` is the
// one without.
std::string missing_scores(const Context& ctx, const std::string& judge, const std::string& people, std::string& rater) {
  for (const std::string& r : {judge, people}) {
    const auto* rows = ctx.scores.rows_of(r);
    if (rows && !rows->empty()) continue;
    rater = r;
    if (!rows)
      return fmt::format("no scores of rater '{}' (a scores file holds several raters' scores in a 'rater' column, as "
                         "`mirac run` writes it)", r);
    return is_human_rater(r) ? fmt::format("no scores of rater '{}' yet (mirac annotate sample, then mirac annotate import)", r)
                             : fmt::format("no scores of rater '{}' yet", r);
  }
  return "";
}

}  // namespace

nlohmann::ordered_json run_corrected(const Context& ctx, const ast::AnalysisDecl& a, Output& out) {
  const Spec& spec = ctx.spec;
  const ast::AnalysisOption* judge_option = find_option(a.options, "judge");
  const ast::AnalysisOption* people_option = find_option(a.options, "people");
  const std::string judge = judge_option && !judge_option->values.empty() ? rater_name(judge_option->values[0].value)
                                                                          : spec.scores_rater;
  const std::string people = people_option && !people_option->values.empty() ? rater_name(people_option->values[0].value)
                                                                             : std::string("human");
  const ast::AnalysisOption* method_option = find_option(a.options, "method");
  const stats::PpiMethod method =
      method_option && !method_option->values.empty() && name_of(method_option->values[0].value) == "power_tuned"
          ? stats::PpiMethod::power_tuned
          : stats::PpiMethod::ppi;
  nlohmann::ordered_json j{{"name", a.name.name},
                           {"kind", "corrected"},
                           {"judge", judge},
                           {"people", people},
                           {"method", method == stats::PpiMethod::ppi ? "ppi" : "power_tuned"}};
  std::string missing;
  if (const std::string why = missing_scores(ctx, judge, people, missing); !why.empty()) {
    // People score after the run: not an error of the run, and said as agreement says it.
    report_missing_scores(ctx, a, missing, why, j);
    return j;
  }
  Setup s{ctx, a, judge, people, method, certify_rules(find_option(a.options, "certify")),
          ScoreTable{ctx.scores.path, ctx.scores.dims, *ctx.scores.rows_of(judge), judge, {}},
          ScoreTable{ctx.scores.path, ctx.scores.dims, *ctx.scores.rows_of(people), people, {}},
          {}, {}, option_variables(find_option(a.options, "by"))};
  for (std::size_t i = 0; i < s.people_table.rows.size(); ++i) s.people_of.emplace(answer_key(s.people_table.rows[i]), i);
  s.rows = filter_rows(s.judge_context(), a.options);
  j["by"] = s.by;

  const std::map<std::string, Certification> certification = certify_dimensions(s);

  Table table{"corrected_" + a.name.name,
              {"part", "name", "group", "N", "n", "judge_only", "judge_lower", "judge_upper", "corrected", "lower", "upper",
               "rogan_gladen", "rogan_gladen_lower", "rogan_gladen_upper", "certified"},
              {}};
  const std::vector<Group> groups = group_rows(spec, s.judge_table, s.rows, s.by);
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::vector<std::string> used;  // the dimensions the figures rest on, in order of first use
  auto use = [&](const std::string& dim) {
    if (std::find(used.begin(), used.end(), dim) == used.end()) used.push_back(dim);
  };
  for (const auto& arg : a.args) {
    const std::string dim = name_of(arg);
    const int d = ctx.scores.dim_index(dim);
    if (d < 0) throw std::invalid_argument(fmt::format("no scores of dimension {}", dim));
    use(dim);
    const Certification* cert = s.rules.empty() ? nullptr : &certification.at(dim);
    for (const Group& g : groups) results.push_back(dimension_group(s, dim, d, g, cert, table));
  }
  j["results"] = std::move(results);
  if (find_option(a.options, "contrasts")) {
    j["contrasts"] = corrected_contrasts(s, certification, table);
    for (const auto& c : j["contrasts"])
      for (const auto& dim : c["dimensions"]) use(dim.get<std::string>());
  }
  if (find_option(a.options, "flags")) j["flags"] = corrected_flags(s, table);
  if (!s.rules.empty()) {
    // The gate: the judge is certified when it meets every rule on every dimension and flag
    // the analysis corrects; where it does not, its figures carry `"certified": false`.
    bool all_certified = true;
    nlohmann::ordered_json dims = nlohmann::ordered_json::object(), flags = nlohmann::ordered_json::object();
    for (const std::string& dim : used) {
      const Certification& cert = certification.at(dim);
      dims[dim] = cert.json();
      all_certified = all_certified && cert.certified;
      if (!cert.certified)
        ctx.diags.warning(a.name.range, fmt::format("analysis {}: judge '{}' is uncertified on {} ({}): its figures are "
                                                    "labelled so", a.name.name, judge, dim, fmt::join(cert.failed, ", ")));
    }
    if (j.contains("flags"))
      for (const auto& f : j["flags"]) {
        flags[f["name"].get<std::string>()] = f["certification"];
        all_certified = all_certified && f["certification"]["certified"].get<bool>();
      }
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const auto& r : s.rules) rules.push_back(r.text());
    j["certification"] = {{"rules", std::move(rules)}, {"dimensions", std::move(dims)}, {"flags", std::move(flags)}};
    j["certified"] = all_certified;
  }
  out.tables.push_back(std::move(table));
  // Figures whose intervals rest on fewer seeds than any design whose coverage is verified.
  std::size_t small = 0;
  auto count_small = [&](const nlohmann::ordered_json& list) {
    for (const auto& e : list) small += e.contains("small_design");
  };
  count_small(j["results"]);
  for (const char* part : {"contrasts", "flags"})
    if (j.contains(part))
      for (const auto& figure : j[part]) count_small(figure["groups"]);
  warn_small_designs(ctx, a, small);
  return j;
}

}  // namespace mirac::analyze
