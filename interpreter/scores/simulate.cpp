// simulate.cpp: drawing scores from a spec's `simulate` block (simulate.hpp).
#include "interpreter/scores/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "interpreter/scores/row_scope.hpp"

namespace mirac::analyze {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::uint64_t fnv1a(std::string_view text, std::uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A small generator seeded from a key: splitmix64, which every platform computes the same.
class Stream {
 public:
  explicit Stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return mix(state_ += 0x9e3779b97f4a7c15ULL); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // Box-Muller written out (not std::normal_distribution, whose algorithm differs between
  // standard libraries), so a seed gives the same scores everywhere.
  double normal() {
    double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  }

 private:
  std::uint64_t state_;
};

double number(const std::optional<ast::Expr>& e, double otherwise) {
  if (!e) return otherwise;
  if (const auto* n = std::get_if<ast::NumberLit>(&e->node)) return n->value;
  if (const auto* u = std::get_if<ast::Unary>(&e->node); u && u->op == "-")
    if (const auto* n = std::get_if<ast::NumberLit>(&u->operand->node)) return -n->value;
  return otherwise;
}

bool boolean(const std::optional<ast::Expr>& e, bool otherwise) {
  if (!e) return otherwise;
  const auto* b = std::get_if<ast::BoolLit>(&e->node);
  return b ? b->value : otherwise;
}

// Whether `e` reads any of `dims` (a name anywhere in it).
bool reads_any(const ast::Expr& e, const std::vector<std::string>& dims) {
  return std::visit(
      [&](const auto& n) -> bool {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Name>) {
          return std::find(dims.begin(), dims.end(), n.name) != dims.end();
        } else if constexpr (std::is_same_v<T, ast::Field>) {
          return reads_any(*n.base, dims);
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          return reads_any(*n.operand, dims);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          return reads_any(*n.lhs, dims) || reads_any(*n.rhs, dims);
        } else if constexpr (std::is_same_v<T, ast::IfExpr>) {
          return reads_any(*n.cond, dims) || reads_any(*n.then_branch, dims) || reads_any(*n.else_branch, dims);
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          return std::any_of(n.args.begin(), n.args.end(), [&](const ast::Expr& a) { return reads_any(a, dims); });
        } else if constexpr (std::is_same_v<T, ast::ListLit>) {
          return std::any_of(n.items.begin(), n.items.end(), [&](const ast::Expr& a) { return reads_any(a, dims); });
        } else {
          return false;
        }
      },
      e.node);
}

double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// E[round(clip(X))] or its variants for X ~ N(mu, sd).
double expected_score(const SimulatedDimension& d, double mu) {
  const double sd = d.total_sd();
  auto finish = [&](double x) {
    if (d.round) x = std::nearbyint(x);
    return d.clip ? std::clamp(x, d.lo, d.hi) : x;
  };
  if (sd <= 0) return finish(mu);
  if (!d.round) {
    if (!d.clip) return mu;
    double a = (d.lo - mu) / sd, b = (d.hi - mu) / sd;
    auto density = [](double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * kPi); };
    return d.lo * phi(a) + d.hi * (1 - phi(b)) + mu * (phi(b) - phi(a)) + sd * (density(a) - density(b));
  }
  // Rounded: a sum over the whole scores X can round to (beyond 9 SD the rest is nothing).
  double lo = std::floor(mu - 9 * sd), hi = std::ceil(mu + 9 * sd);
  if (d.clip) lo = std::max(lo, d.lo), hi = std::min(hi, d.hi);
  double sum = 0;
  for (double k = lo; k <= hi; ++k) {
    double below = (d.clip && k == d.lo) ? 0 : phi((k - 0.5 - mu) / sd);
    double above = (d.clip && k == d.hi) ? 1 : phi((k + 0.5 - mu) / sd);
    sum += k * (above - below);
  }
  return sum;
}

}  // namespace

double SimulatedDimension::total_sd() const {
  double v = residual_sd * residual_sd + answer_sd * answer_sd;
  for (const auto& r : randoms) v += r.sd * r.sd;
  return std::sqrt(v);
}

Simulator::Simulator(const Spec& spec, std::vector<std::string> dims) : spec_(spec), dims_(std::move(dims)) {
  if (!spec.simulate) throw std::invalid_argument("the spec has no simulate block");
  seed_ = static_cast<std::uint64_t>(number(spec.simulate->seed, 0));
  shape_.dims = dims_;
  const ast::RubricDecl* rubric = spec.scored_rubric();
  if (rubric) scored_rubric_ = rubric->name.name;
  double lo = 1, hi = 5;
  if (rubric && rubric->scale) {
    const auto& range = std::get<ast::RangeLit>(rubric->scale->node);
    lo = std::get<ast::NumberLit>(range.lo->node).value;
    hi = std::get<ast::NumberLit>(range.hi->node).value;
  }
  // In the rubric's order, so that a rule on an earlier dimension (D2 N/A when D1 is 5)
  // reads a score already drawn.
  for (std::size_t t = 0; t < dims_.size(); ++t) {
    const ast::SimDim* decl = nullptr;
    for (const auto& d : spec.simulate->dims)
      if (d.dim.name == dims_[t]) decl = &d;
    if (!decl) continue;
    SimulatedDimension s;
    s.dim = static_cast<int>(t);
    s.name = dims_[t];
    s.intercept = number(decl->intercept, 0);
    s.residual_sd = number(decl->residual, 0);
    s.answer_sd = number(decl->answer, 0);
    s.answer_declared = decl->answer.has_value();
    s.na_rate = number(decl->na_rate, 0);
    s.round = boolean(decl->round, true);
    s.clip = boolean(decl->clip, true);
    if (rubric) {  // a dimension's own scale clips its draws
      const ScoreScale own = dim_scale(*rubric, s.name);
      s.lo = own.lo, s.hi = own.hi;
    } else {
      s.lo = lo, s.hi = hi;
    }
    for (const auto& e : decl->effects) s.effects.emplace_back(&e.when, number(e.value, 0));
    for (const auto& e : decl->biases) s.biases.push_back({&e.when, number(e.value, 0), e.rubric ? e.rubric->name : ""});
    for (const auto& r : decl->randoms)
      s.randoms.push_back({r.group.level && r.group.level->name != "id" ? r.group.level->name : "", number(r.sd, 0)});
    if (decl->na_when) s.na_when = &*decl->na_when;
    if (rubric)
      for (const auto& rd : rubric->dims)
        if (rd.name.name == s.name && rd.na_when) s.rubric_na_when = &*rd.na_when;
    s.na_reads_scores = (s.na_when && reads_any(*s.na_when, dims_)) || (s.rubric_na_when && reads_any(*s.rubric_na_when, dims_));
    sim_.push_back(std::move(s));
  }
}

std::string Simulator::answer_name(const ScoreRow& row) const {
  std::string key = spec_.seeds.at(row.seed).id + "|" + spec_.models.at(row.model).name + "|" + spec_.arms.at(row.arm).name;
  for (std::size_t f = 0; f < row.levels.size(); ++f)
    key += "|" + (row.levels[f] >= 0 ? spec_.factors[f].levels[row.levels[f]].name.name : std::string("-"));
  return key;
}

Simulator::Prepared Simulator::prepare_row(const ScoreRow& row, const std::vector<int>* text_levels,
                                           const std::string* rubric) const {
  const std::string& scoring = rubric ? *rubric : scored_rubric_;
  Prepared p;
  p.key = fnv1a(answer_name(row));
  ScoreRow blank = row;
  blank.scores.assign(dims_.size(), std::nan(""));
  RowScope scope(spec_, shape_, blank);
  ScoreRow text = blank;  // the cell of the text the judge reads: the answer's own, unless told
  if (text_levels) text.levels = *text_levels;
  RowScope text_scope(spec_, shape_, text);
  const Seed& seed = spec_.seeds.at(row.seed);
  for (const auto& s : sim_) {
    double mean = s.intercept;
    for (const auto& [when, value] : s.effects)
      if (truthy(evaluate(*when, scope))) mean += value;
    for (const auto& bias : s.biases)
      if ((bias.rubric.empty() || bias.rubric == scoring) && truthy(evaluate(*bias.when, text_scope))) mean += bias.value;
    p.mean.push_back(mean);
    for (const auto& r : s.randoms) {
      auto f = seed.fields.find(r.field);
      std::string group = r.field.empty() ? "seed=" + seed.id : r.field + "=" + (f == seed.fields.end() ? "" : f->second);
      p.groups.push_back(fnv1a(s.name + "/" + group));
    }
    if (s.na_reads_scores) {
      p.na.push_back(-1);
    } else {
      bool na = (s.na_when && truthy(evaluate(*s.na_when, scope))) ||
                (s.rubric_na_when && truthy(evaluate(*s.rubric_na_when, scope)));
      p.na.push_back(na ? 1 : 0);
    }
  }
  return p;
}

void Simulator::prepare(const std::vector<ScoreRow>& rows) {
  rows_ = rows;
  mean_.clear();
  mean_.reserve(rows.size());
  for (const auto& r : rows_) mean_.push_back(prepare_row(r));
}

void Simulator::draw_row(const ScoreRow& row, const Prepared& p, std::uint64_t stream, std::vector<double>& out,
                         std::size_t answer, bool block_na) const {
  // Which answer this is: the row's own place among its prompt's answers (an audit that
  // asks K), and within it the answers a power study averages. Answer (0, 0) draws what
  // scores_of() gives; the others are keyed apart.
  const std::uint64_t which = static_cast<std::uint64_t>(row.answer) * 1000003ULL + answer;
  const std::uint64_t answer_key = which == 0 ? 0 : mix(0x616e73776572ULL + which);
  out.assign(dims_.size(), std::nan(""));
  std::size_t g = 0;
  for (std::size_t i = 0; i < sim_.size(); ++i) {
    const SimulatedDimension& s = sim_[i];
    double latent = p.mean[i];
    for (const auto& r : s.randoms) latent += r.sd * Stream(mix(stream ^ p.groups[g++])).normal();
    Stream own(mix(stream ^ p.key ^ mix(static_cast<std::uint64_t>(i) + 1) ^ answer_key));
    if (s.answer_declared) {
      // The residual is the prompt's, shared by its answers (the stream of answer 0); the
      // `answer` term is each answer's own, from a stream apart from every residual's.
      Stream prompt(mix(stream ^ p.key ^ mix(static_cast<std::uint64_t>(i) + 1)));
      Stream each(mix(stream ^ p.key ^ mix(static_cast<std::uint64_t>(i) + 1) ^ mix(0x65616368ULL + which)));
      latent += s.residual_sd * prompt.normal() + s.answer_sd * each.normal();
    } else {
      latent += s.residual_sd * own.normal();
    }
    if (s.round) latent = std::nearbyint(latent);
    if (s.clip) latent = std::clamp(latent, s.lo, s.hi);
    bool na = false;
    if (!block_na) {
      // As a judge must reply: N/A exactly where the rubric's own rule holds.
      if (s.rubric_na_when) {
        ScoreRow scored = row;
        scored.scores = out;
        RowScope scope(spec_, shape_, scored);
        na = truthy(evaluate(*s.rubric_na_when, scope));
      }
      out[s.dim] = na ? std::nan("") : latent;
      continue;
    }
    na = s.na_rate > 0 && own.uniform() < s.na_rate;
    if (!na && p.na[i] == 1) na = true;
    if (!na && p.na[i] < 0) {
      ScoreRow scored = row;
      scored.scores = out;  // the dimensions drawn so far
      RowScope scope(spec_, shape_, scored);
      na = (s.na_when && truthy(evaluate(*s.na_when, scope))) ||
           (s.rubric_na_when && truthy(evaluate(*s.rubric_na_when, scope)));
    }
    out[s.dim] = na ? std::nan("") : latent;
  }
}

void Simulator::draw(std::uint64_t stream, ScoreTable& table) const {
  table.dims = dims_;
  table.rows = rows_;
  for (std::size_t r = 0; r < rows_.size(); ++r) draw_row(rows_[r], mean_[r], stream, table.rows[r].scores);
}

std::vector<double> Simulator::scores_of(const ScoreRow& row, std::uint64_t stream) const {
  std::vector<double> out;
  draw_row(row, prepare_row(row), stream, out);
  return out;
}

std::vector<double> Simulator::judged_scores_of(const ScoreRow& row, std::uint64_t stream,
                                                const std::vector<int>* text_levels, const std::string* rubric) const {
  std::vector<double> out;
  draw_row(row, prepare_row(row, text_levels, rubric), stream, out, 0, false);
  return out;
}

void Simulator::expected(ScoreTable& table) const {
  table.dims = dims_;
  table.rows = rows_;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    auto& scores = table.rows[r].scores;
    scores.assign(dims_.size(), std::nan(""));
    for (std::size_t i = 0; i < sim_.size(); ++i)
      if (mean_[r].na[i] != 1) scores[sim_[i].dim] = expected_score(sim_[i], mean_[r].mean[i]);
  }
}

}  // namespace mirac::analyze
