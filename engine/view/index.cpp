#include "engine/view/index.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <atomic>
#include <exception>
#include <limits>
#include <optional>
#include <tuple>
#include <map>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/judge/judge_phase.hpp"
#include "engine/judge/raters.hpp"
#include "engine/view/pairs.hpp"
#include "interpreter/judge/criteria.hpp"
#include "interpreter/eval/eval.hpp"
#include "runtime/store/hash_set.hpp"

namespace mirac::view {

const char* judging_name(Judging j) { return kJudgingNames[static_cast<std::size_t>(j)]; }

std::optional<Judging> judging_of(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kJudgingNames); ++i)
    if (name == kJudgingNames[i]) return static_cast<Judging>(i);
  return std::nullopt;
}

const char* status_name(AnswerStatus s) { return kStatusNames[static_cast<std::size_t>(s)]; }

std::optional<AnswerStatus> status_of(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kStatusNames); ++i)
    if (name == kStatusNames[i]) return static_cast<AnswerStatus>(i);
  return std::nullopt;
}

namespace {

constexpr double kNa = std::numeric_limits<double>::quiet_NaN();

// Judgments resolved at once while building: their states are what the build holds besides
// the index (a few hundred bytes each).
constexpr std::size_t kJudgmentBlock = 16384;

Judging judging_from(JudgeState::Kind kind) {
  switch (kind) {
    case JudgeState::Kind::no_answer: return Judging::no_answer;
    case JudgeState::Kind::pending: return Judging::pending;
    case JudgeState::Kind::scored: return Judging::scored;
    case JudgeState::Kind::invalid: return Judging::invalid;
    case JudgeState::Kind::failed: return Judging::failed;
  }
  return Judging::none;
}

// What a judgment shows on a page besides its scores, as JudgeState gives it.
void take_judgment(JudgeState& s, AnswerTexts& out) {
  if (s.kind == JudgeState::Kind::failed) out.problem = std::move(s.cause);
  if (s.kind == JudgeState::Kind::invalid || s.kind == JudgeState::Kind::pending) out.problem = std::move(s.scores.problem);
  if (s.kind != JudgeState::Kind::scored) return;
  out.rationales = std::move(s.scores.rationale);
  out.criteria = std::move(s.scores.criteria);
}

}  // namespace

AnswerIndex::~AnswerIndex() = default;

std::unique_ptr<AnswerIndex> AnswerIndex::build(const Audit& audit, Outcome& outcome) {
  if (!audit.has_store()) {
    outcome = Outcome::fail(kUsageError, "mirac view: " + missing_store_advice(audit));
    return nullptr;
  }
  std::string error;
  std::unique_ptr<AnswerIndex> index(new AnswerIndex(audit));
  index->store_ = Store::open(audit.run_dir, error);
  if (!index->store_) {
    outcome = Outcome::fail(kRunError, "mirac view: " + error);
    return nullptr;
  }
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  index->rows_.resize(plan.requests.size());
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const RequestRow& r = plan.requests[i];
    AnswerRow& row = index->rows_[i];
    row.request = static_cast<std::uint32_t>(i);
    row.prompt = static_cast<std::uint32_t>(r.prompt);
    const Seed* seed = spec.find_seed(plan.prompts[r.prompt].seed);
    row.seed = seed ? static_cast<int>(seed - spec.seeds.data()) : -1;  // as analyze::score_row_of
    row.model = static_cast<std::uint16_t>(r.model);
    row.arm = static_cast<std::uint16_t>(r.arm);
  }
  // The pages find an answer's row through the store's map of every row, built on its first
  // look-up (runtime/store/answer_rows.hpp). A second connection builds it on the other core
  // while this one reads the scores and marks the flags, and then serves the pages: at ten
  // times MIRA that takes half a second off the first page.
  std::unique_ptr<Store> page_store;
  std::thread warm;
  if (!plan.requests.empty())
    warm = std::thread([&page_store, &audit, first = plan.requests.front().hash()] {
      // A connection that does not open, or fails to read, leaves the pages to the first.
      try {
        std::string ignored;
        page_store = Store::open(audit.run_dir, ignored);
        if (page_store) page_store->brief(first);
      } catch (...) {
        page_store.reset();
      }
    });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{warm};
  index->table_.path = index->store_->path().string();
  if (int judge = spec.judge_index(spec.scores_rater); judge >= 0) {
    index->read_judge(judge);
  } else {
    index->read_statuses();
    if (!spec.scores_rater.empty()) index->read_rater(spec.scores_rater);
  }
  index->table_.rater = spec.scores_rater;
  index->mark_flags();
  if (warm.joinable()) warm.join();
  // The warmed connection serves the pages (its row map is built).
  if (page_store) index->store_ = std::move(page_store);
#if defined(__GLIBC__)
  // The judgments' states and what the store keeps of them are freed, but glibc keeps freed
  // memory for the process: the server would hold it for as long as it runs. Handed back here.
  malloc_trim(0);
#endif
  return index;
}

// Every request's status from one scan of the store's answers, which reads no texts: a
// look-up per request would read each answer's text too. (With a judge as the scoring
// rater, read_judge finds them without: a judged answer is done.)
void AnswerIndex::read_statuses() {
  const Plan& plan = this->plan();
  HashMap<std::uint32_t> row_of;
  row_of.reserve(plan.requests.size());
  std::vector<std::pair<std::size_t, std::uint32_t>> repeats;  // (row, an earlier row of the same hash)
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const HashDigest& hash = plan.requests[i].digest;
    if (const std::uint32_t* first = row_of.find(hash)) repeats.emplace_back(i, *first);
    else row_of.emplace(hash, static_cast<std::uint32_t>(i));
  }
  store_->scan_states([&](const Store::ScannedAnswer& a) {
    if (const std::uint32_t* i = row_of.find(a.hash)) rows_[*i].status = a.done ? AnswerStatus::done : AnswerStatus::failed;
  });
  for (const auto& [i, first] : repeats) rows_[i].status = rows_[first].status;
}

void AnswerIndex::add_scored(AnswerRow& row, const std::vector<double>& scores, const std::vector<std::uint8_t>& criteria) {
  row.judging = Judging::scored;
  row.score_row = static_cast<int>(criteria_start_.size() - 1);
  // Every scored row has a score per dimension, N/A where the rater gave none.
  for (std::size_t d = 0; d < table_.dims.size(); ++d) scores_.push_back(d < scores.size() ? scores[d] : kNa);
  criteria_met_.insert(criteria_met_.end(), criteria.begin(), criteria.end());
  criteria_start_.push_back(static_cast<std::uint32_t>(criteria_met_.size()));
}

// A judge's verdicts as the store keeps them (JudgmentDetail::scores: the scores and the
// criteria met, without reading a reply), the same that `mirac analyze` reads, so flags see
// what the analyses see. Block by block, so that the states held at once are a block's (at
// ten times MIRA, all 432,000 at once were a third of the view's peak). Judgments the store
// does not keep (the first start of a new build of mirac) are read from their replies one
// look-up at a time.
void AnswerIndex::read_judge(int judge) {
  const Spec& spec = this->spec();
  const Plan& plan = this->plan();
  judge_ = std::make_unique<JudgeBuilder>(spec, audit_.sources(), judge);
  table_.dims = judge_->dims();
  JudgingResolver resolver(spec, plan, *judge_, *store_, audit_.options.repairs, JudgmentDetail::scores);
  const Store::ReadTransaction reading(*store_);  // one file lock for every look-up
  std::vector<std::uint8_t> met;
  std::vector<std::size_t> block;
  for (std::size_t begin = 0; begin < rows_.size(); begin += kJudgmentBlock) {
    block.clear();
    for (std::size_t i = begin; i < rows_.size() && i < begin + kJudgmentBlock; ++i) block.push_back(i);
    const std::vector<JudgeState> states = resolver.resolve(block);
    for (std::size_t k = 0; k < block.size(); ++k) {
      const JudgeState& s = states[k];
      const std::size_t i = block[k];
      rows_[i].judging = judging_from(s.kind);
      // Only a done answer is judged; one that is not is missing or failed, which its
      // look-up tells (a failed answer has no text to read).
      rows_[i].status = AnswerStatus::done;
      if (s.kind == JudgeState::Kind::no_answer) {
        const std::shared_ptr<const Store::Brief> b = store_->brief(plan.requests[i].hash());
        rows_[i].status = !b ? AnswerStatus::missing : b->status == "done" ? AnswerStatus::done : AnswerStatus::failed;
      }
      if (s.kind != JudgeState::Kind::scored) continue;
      met.clear();
      for (const auto& g : s.scores.criteria) met.push_back(g.met ? 1 : 0);
      add_scored(rows_[i], s.scores.scores, met);
    }
  }
}

// A panel's (or people's) scores: what rater_scores gives the analyses. There is no reply
// behind them, so an answer is scored or, while some member has not scored it, pending.
void AnswerIndex::read_rater(const std::string& rater) {
  const Spec& spec = this->spec();
  const Plan& plan = this->plan();
  analyze::ScoreTable table = rater_scores(spec, plan, audit_.sources(), *store_, rater, audit_.options.repairs);
  table_.dims = table.dims;
  std::unordered_map<std::string, std::size_t> scored;
  for (std::size_t i = 0; i < table.rows.size(); ++i) scored.emplace(analyze::answer_key(table.rows[i]), i);
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    AnswerRow& row = rows_[i];
    row.judging = row.status == AnswerStatus::done ? Judging::pending : Judging::no_answer;
    auto it = scored.find(analyze::answer_key(analyze::score_row_of(spec, plan, plan.requests[i])));
    if (it == scored.end()) continue;
    add_scored(row, table.rows[it->second].scores, table.rows[it->second].criteria);
  }
}

double AnswerIndex::score(const AnswerRow& row, std::size_t d) const {
  if (row.score_row < 0 || d >= table_.dims.size()) return kNa;
  return scores_[static_cast<std::size_t>(row.score_row) * table_.dims.size() + d];
}

std::vector<double> AnswerIndex::scores(const AnswerRow& row) const {
  std::vector<double> out(table_.dims.size());
  for (std::size_t d = 0; d < out.size(); ++d) out[d] = score(row, d);
  return out;
}

bool AnswerIndex::score_row(const AnswerRow& row, analyze::ScoreRow& out) const {
  if (row.score_row < 0) return false;
  const std::size_t k = static_cast<std::size_t>(row.score_row), dims = table_.dims.size();
  const RequestRow& r = plan().requests[row.request];
  out.seed = row.seed;
  out.model = r.model;
  out.arm = r.arm;
  out.answer = r.answer;
  out.levels.assign(levels(row).begin(), levels(row).end());
  out.scores.assign(scores_.begin() + static_cast<std::ptrdiff_t>(k * dims),
                    scores_.begin() + static_cast<std::ptrdiff_t>((k + 1) * dims));
  out.criteria.assign(criteria_met_.begin() + criteria_start_[k], criteria_met_.begin() + criteria_start_[k + 1]);
  out.line = k + 2;
  return true;
}

void AnswerIndex::mark_flags() {
  const Spec& spec = this->spec();
  flag_count_ = spec.flags.size();
  flags_.assign(rows_.size() * flag_count_, 0);
  std::vector<std::size_t> all(rows_.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  // Each pairing's matched rows first, once: flags that pair the same levels (MIRA's
  // DID_FLAG and REFUSAL_DID) share one matching.
  using Pairing = std::tuple<int, int, int>;  // factor, level a, level b
  auto pairing_of = [&spec](const ast::Pairing& p) -> std::optional<Pairing> {
    const int factor = spec.factor_index(p.factor.name);
    if (factor < 0) return std::nullopt;
    const Factor& fac = spec.factors[static_cast<std::size_t>(factor)];
    return Pairing{factor, fac.level_index(p.a.name), fac.level_index(p.b.name)};
  };
  std::map<Pairing, MatchedRows> matched;
  for (const auto& flag : spec.flags)
    for (const auto& p : flag.pairings)
      if (auto key = pairing_of(p); key && !matched.count(*key))
        matched.emplace(*key, match_rows(*this, all, std::get<0>(*key), std::get<1>(*key), std::get<2>(*key)));
  // Then the flags, two at once: each evaluates its condition on every row or pair (at ten
  // times MIRA a third of the view's start), and each writes its own byte of a row's marks.
  std::vector<std::string> problems(spec.flags.size());
  auto mark_flag = [&](std::size_t f, FlagEvaluator& evaluate) {
    const ast::FlagDecl& flag = spec.flags[f];
    auto mark = [&](const AnswerRow& row) { flags_[row.request * flag_count_ + f] = 1; };
    try {
      if (flag.pairings.empty()) {
        for (const auto& row : rows_)
          if (evaluate.unit_holds(f, row)) mark(row);
        return;
      }
      for (const auto& p : flag.pairings) {
        const std::optional<Pairing> key = pairing_of(p);
        if (!key) continue;
        for (const auto& [a, b] : matched.at(*key).pairs)
          if (evaluate.pair_fires(f, rows_[a], rows_[b])) mark(rows_[a]), mark(rows_[b]);
      }
    } catch (const EvalError& e) {
      // The analysis reports the same error at the flag; here the flag marks nothing.
      problems[f] = fmt::format("flag {}: {}", flag.name.name, e.what());
      for (const auto& row : rows_) flags_[row.request * flag_count_ + f] = 0;
    }
  };
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  auto work = [&](std::exception_ptr& error) {
    try {
      FlagEvaluator evaluate(*this);
      for (std::size_t f = next++; f < spec.flags.size(); f = next++) mark_flag(f, evaluate);
    } catch (...) {
      error = std::current_exception();
      next = spec.flags.size();  // the others stop too
    }
  };
  std::exception_ptr other_failed;
  std::thread other;
  if (spec.flags.size() > 1) {
    try {
      other = std::thread(work, std::ref(other_failed));
    } catch (const std::system_error&) {
      // no thread to be had: this one marks every flag
    }
  }
  work(failed);
  if (other.joinable()) other.join();
  if (failed) std::rethrow_exception(failed);
  if (other_failed) std::rethrow_exception(other_failed);
  for (std::string& p : problems)
    if (!p.empty()) warnings_.push_back(std::move(p));
}

std::vector<std::string> AnswerIndex::criteria_texts(const AnswerRow& row) const {
  const ast::RubricDecl* rubric = spec().scored_rubric();
  if (!rubric || row.seed < 0) return {};
  return criteria_of(spec(), *rubric, spec().seeds[static_cast<std::size_t>(row.seed)].id);
}

std::vector<AnswerTexts> AnswerIndex::texts(const std::vector<std::size_t>& rows, bool judgments) const {
  const Plan& plan = this->plan();
  std::vector<AnswerTexts> out(rows.size());
  const std::lock_guard<std::mutex> turn(store_mutex_);
  std::vector<std::size_t> judged;  // requests whose judgment a page shows
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const AnswerRow& row = rows_[rows[i]];
    if (std::shared_ptr<const Store::Brief> b = store_->brief(plan.requests[row.request].hash())) {
      out[i].text = b->text;
      if (b->status != "done") out[i].cause = b->cause;
    }
    judged.push_back(row.request);
  }
  if (!judgments || !judge_) return out;
  // The replies of these rows only, read in full (rationales and quotes are not among the
  // judgments the store keeps): a page's worth takes milliseconds.
  std::vector<JudgeState> states =
      resolve_judging(spec(), plan, *judge_, *store_, judged, audit_.options.repairs, JudgmentDetail::texts);
  for (std::size_t i = 0; i < rows.size(); ++i) take_judgment(states[i], out[i]);
  return out;
}

}  // namespace mirac::view
