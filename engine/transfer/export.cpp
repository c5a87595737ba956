#include "engine/transfer/export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/judge/judge_phase.hpp"
#include "engine/judge/raters.hpp"
#include "interpreter/judge/judge.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

namespace {

using Row = nlohmann::ordered_json;

// The columns of an exported row other than the factors (which follow `seed`).
const std::vector<std::string> kFixedColumns = {
    "prompt_id", "seed", "model", "model_string", "provider", "arm", "hash", "status", "text",
    "finish_reason", "truncated", "warnings", "returned_model", "provider_request_id", "system_fingerprint",
    "input_tokens", "output_tokens", "latency_s", "started_at", "ended_at", "cost_usd", "attempts",
    "cause", "message"};

// A factor is exported under its own name unless that name is one of the fixed columns
// (a factor called `model`), then as `factor.<name>`.
std::vector<std::string> factor_keys(const Spec& spec) {
  std::vector<std::string> keys;
  for (const auto& f : spec.factors) {
    bool clash = std::find(kFixedColumns.begin(), kFixedColumns.end(), f.name) != kFixedColumns.end();
    keys.push_back(clash ? "factor." + f.name : f.name);
  }
  // Several answers per prompt: which one (from 1), exported after the factors.
  if (spec.answers > 1) keys.push_back("answer");
  return keys;
}

std::vector<std::string> columns(const std::vector<std::string>& factors) {
  std::vector<std::string> all = {kFixedColumns[0], kFixedColumns[1]};
  all.insert(all.end(), factors.begin(), factors.end());
  all.insert(all.end(), kFixedColumns.begin() + 2, kFixedColumns.end());
  return all;
}

Row export_row(const Spec& spec, const Plan& plan, const RequestRow& r, const AnswerRecord& a,
               const std::vector<std::string>& fkeys) {
  const PromptRow& p = plan.prompts[r.prompt];
  const Model& m = spec.models[static_cast<std::size_t>(r.model)];
  Row row;
  row["prompt_id"] = p.id;
  row["seed"] = p.seed;
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    row[fkeys[f]] = spec.factors[f].levels[static_cast<std::size_t>(p.levels[f])].name.name;
  if (fkeys.size() > spec.factors.size()) row[fkeys.back()] = r.answer + 1;
  row["model"] = m.name;
  row["model_string"] = r.target->model;
  row["provider"] = r.target->provider;
  row["arm"] = spec.arms[static_cast<std::size_t>(r.arm)].name;
  row["hash"] = r.hash();
  row["status"] = a.status;
  row["text"] = a.text;
  row["finish_reason"] = a.finish_reason;
  row["truncated"] = a.truncated;
  row["warnings"] = a.warnings;
  row["returned_model"] = a.returned_model;
  row["provider_request_id"] = a.provider_request_id;
  row["system_fingerprint"] = a.system_fingerprint;
  row["input_tokens"] = a.input_tokens;
  row["output_tokens"] = a.output_tokens;
  row["latency_s"] = a.latency_s;
  row["started_at"] = a.started_at;
  row["ended_at"] = a.ended_at;
  row["cost_usd"] = a.cost_usd;
  row["attempts"] = a.attempts;
  row["cause"] = a.cause;
  row["message"] = a.message;
  return row;
}

// RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes doubled.
// A JSON null (a score that is N/A, a column that does not apply) is an empty cell. A
// string (an answer, a rationale, a seed id) is text: one a spreadsheet would run as a
// formula gets a ' in front unless `formulas` is keep. Numbers and booleans are never
// strings here, so a negative number stays a number.
std::string csv_cell(const Row& value, CsvFormulas formulas) {
  if (value.is_null()) return "";
  if (value.is_string()) return csv_text(value.get_ref<const std::string&>(), formulas);
  return csv_field(value.dump());
}

// --- export scores ---------------------------------------------------------------------

// The columns of a scores row other than the factors (after `seed`) and the rubric's
// dimensions and rationales (after `state`).
const std::vector<std::string> kScoreColumns = {"prompt_id", "seed", "model", "model_string", "arm", "hash",
                                                "judge", "judge_model_string", "state", "round", "problem",
                                                "judge_hash"};
constexpr std::size_t kScoreColumnsBeforeDims = 9;  // through `state`

struct ScoreKeys {
  std::vector<std::string> factors, dims, rationales;
};

// Factors and dimensions keep their names unless one would clash with another column (a
// factor `state`, a dimension named like a factor): then `factor.<name>`, `score.<name>`.
ScoreKeys score_keys(const Spec& spec, const std::vector<std::string>& dims) {
  auto fixed = [](const std::string& k) {
    return std::find(kScoreColumns.begin(), kScoreColumns.end(), k) != kScoreColumns.end();
  };
  ScoreKeys keys;
  for (const auto& f : spec.factors) keys.factors.push_back(fixed(f.name) ? "factor." + f.name : f.name);
  if (spec.answers > 1) keys.factors.push_back("answer");  // which of the prompt's answers, from 1
  for (const auto& d : dims) {
    bool clash = fixed(d) || d.rfind("rationale_", 0) == 0 ||
                 std::find(keys.factors.begin(), keys.factors.end(), d) != keys.factors.end();
    keys.dims.push_back(clash ? "score." + d : d);
    keys.rationales.push_back("rationale_" + d);
  }
  return keys;
}

std::vector<std::string> score_columns(const ScoreKeys& k) {
  std::vector<std::string> all = {kScoreColumns[0], kScoreColumns[1]};
  all.insert(all.end(), k.factors.begin(), k.factors.end());
  all.insert(all.end(), kScoreColumns.begin() + 2, kScoreColumns.begin() + kScoreColumnsBeforeDims);
  all.insert(all.end(), k.dims.begin(), k.dims.end());
  all.insert(all.end(), k.rationales.begin(), k.rationales.end());
  all.insert(all.end(), kScoreColumns.begin() + kScoreColumnsBeforeDims, kScoreColumns.end());
  return all;
}

const char* state_name(JudgeState::Kind kind) {
  switch (kind) {
    case JudgeState::Kind::scored: return "scored";
    case JudgeState::Kind::invalid: return "invalid";
    case JudgeState::Kind::pending: return "pending";
    case JudgeState::Kind::failed: return "failed";
    case JudgeState::Kind::no_answer: break;
  }
  return "no_answer";
}

// Scores are whole numbers on the scale: written as integers (3, not 3.0), N/A as null.
Row score_value(double s) {
  if (std::isnan(s)) return nullptr;
  if (std::floor(s) == s && std::fabs(s) < 1e15) return static_cast<long long>(s);
  return s;
}

Row score_row(const Spec& spec, const Plan& plan, const RequestRow& r, const Judge& j, const JudgeState& s,
              const ScoreKeys& keys, const std::string& jhash) {
  const PromptRow& p = plan.prompts[r.prompt];
  Row row;
  row["prompt_id"] = p.id;
  row["seed"] = p.seed;
  for (std::size_t f = 0; f < spec.factors.size(); ++f)
    row[keys.factors[f]] = spec.factors[f].levels[static_cast<std::size_t>(p.levels[f])].name.name;
  if (keys.factors.size() > spec.factors.size()) row[keys.factors.back()] = r.answer + 1;
  row["model"] = spec.models[static_cast<std::size_t>(r.model)].name;
  row["model_string"] = r.target->model;
  row["arm"] = spec.arms[static_cast<std::size_t>(r.arm)].name;
  row["hash"] = r.hash();
  row["judge"] = j.name;
  row["judge_model_string"] = j.model;
  row["state"] = state_name(s.kind);
  // Scores and rationales only for a usable reply: an unusable one's partial scores are not
  // scores (they are left out of the analysis too); its problem says what was wrong.
  const bool scored = s.kind == JudgeState::Kind::scored;
  for (std::size_t d = 0; d < keys.dims.size(); ++d)
    row[keys.dims[d]] = scored && d < s.scores.scores.size() ? score_value(s.scores.scores[d]) : Row(nullptr);
  for (std::size_t d = 0; d < keys.dims.size(); ++d)
    row[keys.rationales[d]] = scored && d < s.scores.rationale.size() ? Row(s.scores.rationale[d]) : Row(nullptr);
  if (scored && !s.scores.criteria.empty()) {
    Row grades = Row::array();
    for (const auto& g : s.scores.criteria) grades.push_back({{"met", g.met}, {"quote", g.quote}});
    row["criteria"] = std::move(grades);
  }
  row["round"] = s.round;
  // Invalid: what was wrong; pending after an unusable reply: what its repair restates;
  // failed: the failure's cause.
  row["problem"] = s.kind == JudgeState::Kind::failed ? Row(s.cause)
                   : (s.kind == JudgeState::Kind::invalid || s.kind == JudgeState::Kind::pending) &&
                           !s.scores.problem.empty()
                       ? Row(s.scores.problem)
                       : Row(nullptr);
  row["judge_hash"] = jhash;
  return row;
}

// Writes rows as JSON Lines or RFC 4180 CSV (a header row, CRLF line ends).
struct RowWriter {
  std::ostream& out;
  bool csv;
  CsvFormulas formulas;
  std::vector<std::string> header;
  void start() {
    if (!csv) return;
    for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csv_text(header[i], formulas);
    out << "\r\n";
  }
  void write(const Row& row) {
    if (csv) {
      for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csv_cell(row[header[i]], formulas);
      out << "\r\n";
    } else {
      // UTF-8 as is (not \u-escaped); bytes that are not UTF-8 become U+FFFD.
      out << row.dump(-1, ' ', false, Row::error_handler_t::replace) << '\n';
    }
  }
};

// A panel's or people's scores: what the analyses read for that rater (a panel once every
// judge scored the answer; people where annotated), in the judge's row layout. There are no
// replies behind them, so the state is `scored` and rationales, round, problem and
// judge_hash are empty.
std::string export_rater_scores(const Audit& audit, Store& store, const std::string& rater, std::ostream& target,
                                bool csv, CsvFormulas formulas, const std::string& where) {
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();
  const analyze::ScoreTable table = rater_scores(spec, plan, audit.sources(), store, rater, audit.options.repairs);
  const ScoreKeys keys = score_keys(spec, table.dims);
  RowWriter writer{target, csv, formulas, score_columns(keys)};
  writer.start();
  std::map<std::string, std::size_t> request_of;  // the answer's seed, model, arm and levels -> request
  for (std::size_t i = 0; i < plan.requests.size(); ++i)
    request_of.emplace(analyze::answer_key(analyze::score_row_of(spec, plan, plan.requests[i])), i);
  const Panel* panel = spec.find_panel(rater);
  std::string members;
  if (panel)
    for (int j : panel->judges) members += (members.empty() ? "" : ", ") + spec.judges[static_cast<std::size_t>(j)].model;
  std::size_t written = 0;
  for (const auto& s : table.rows) {
    auto it = request_of.find(analyze::answer_key(s));
    if (it == request_of.end()) continue;
    const RequestRow& r = plan.requests[it->second];
    JudgeState state;
    state.kind = JudgeState::Kind::scored;
    state.scores.scores = s.scores;
    Judge as_judge;
    as_judge.name = rater;
    as_judge.model = panel ? fmt::format("{}({})", panel->aggregate, members) : "people";
    Row row = score_row(spec, plan, r, as_judge, state, keys, "");
    for (const auto& k : keys.rationales) row[k] = nullptr;
    row["round"] = nullptr;
    row["judge_hash"] = nullptr;
    writer.write(row);
    ++written;
  }
  return fmt::format("export {} scores of {} {}: {} answers scored to {}\n", spec.name,
                     panel ? "panel" : "rater", rater, written, where);
}

}  // namespace

Outcome export_table(const Audit& audit, const ExportOptions& options, std::ostream& out, std::string& summary) {
  const std::string& what = options.what;
  const std::string& judge_name = options.judge;
  const std::string& output = options.output;
  if (what != "responses" && what != "scores")
    return Outcome::fail(kUsageError, fmt::format("mirac export: unknown table '{}'; expected 'responses' or 'scores'", what));
  if (what == "responses" && !judge_name.empty())
    return Outcome::fail(kUsageError, "mirac export: --judge applies to 'export scores' only");
  const std::string fmt_name = options.format.empty() ? "jsonl" : options.format;
  if (fmt_name != "jsonl" && fmt_name != "csv")
    return Outcome::fail(kUsageError, fmt::format("mirac export: unknown format '{}'; expected jsonl or csv", options.format));
  if (!options.csv_formulas.empty() && fmt_name != "csv")
    return Outcome::fail(kUsageError, "mirac export: --csv-formulas applies to --format csv only");
  if (!options.csv_formulas.empty() && options.csv_formulas != "neutralise" && options.csv_formulas != "keep")
    return Outcome::fail(kUsageError, fmt::format("mirac export: unknown --csv-formulas '{}'; expected neutralise or keep",
                                                  options.csv_formulas));
  const CsvFormulas formulas = options.csv_formulas == "keep" ? CsvFormulas::keep : CsvFormulas::neutralise;
  const Spec& spec = audit.spec();
  const Plan& plan = audit.plan();

  // The judge is checked before the store, so a misspelt name is reported as such and not
  // as a missing store.
  int judge_index = -1;
  if (what == "scores") {
    std::vector<std::string> names;
    for (const auto& j : spec.judges) names.push_back(j.name);
    if (names.empty())
      return Outcome::fail(kUsageError,
                           fmt::format("mirac export: spec '{}' has no judge, so there are no scores to export", spec.name));
    if (judge_name.empty()) judge_index = 0;
    for (std::size_t j = 0; j < names.size() && judge_index < 0; ++j)
      if (names[j] == judge_name) judge_index = static_cast<int>(j);
    const bool other_rater = judge_index < 0 && (spec.find_panel(judge_name) || is_human_rater(judge_name));
    if (judge_index < 0 && !other_rater) {
      for (const auto& p : spec.panels) names.push_back(p.name + " (panel)");
      return Outcome::fail(kUsageError, fmt::format("mirac export: --judge '{}' is neither a judge nor a panel of spec "
                                                    "'{}', nor human or human.NAME (raters: {})",
                                                    judge_name, spec.name, fmt::join(names, ", ")));
    }
  }

  if (!audit.has_store())
    return Outcome::fail(kRunError, "mirac export: " + missing_store_advice(audit));
  Outcome opened;
  auto store = open_store(audit, opened);
  if (!store) return opened;

  std::ofstream file;
  std::ostream* target = &out;
  const bool to_file = !output.empty() && output != "-";
  if (to_file) {
    file.open(output, std::ios::binary | std::ios::trunc);
    if (!file) return Outcome::fail(kUsageError, output + ": error: cannot write output file");
    target = &file;
  }
  const std::string where = to_file ? output : std::string("standard output");
  const bool csv = fmt_name == "csv";
  if (what == "responses") {
    const std::vector<std::string> fkeys = factor_keys(spec);
    RowWriter writer{*target, csv, formulas, columns(fkeys)};
    writer.start();
    std::size_t done = 0, failed = 0, skipped = 0;
    const Store::ReadTransaction reading(*store);  // one file lock for every look-up
    for (const auto& r : plan.requests) {
      std::optional<AnswerRecord> a = store->answer(r.hash());
      if (!a) {
        ++skipped;
        continue;
      }
      (a->status == "done" ? done : failed) += 1;
      writer.write(export_row(spec, plan, r, *a, fkeys));
    }
    summary = fmt::format("export {}: {} answers ({} done, {} failed) to {}; {} of {} requests have no answer and "
                          "were skipped\n",
                          spec.name, done + failed, done, failed, where, skipped, plan.requests.size());
  } else if (judge_index < 0) {
    summary = export_rater_scores(audit, *store, judge_name, *target, csv, formulas, where);
  } else {
    JudgeBuilder judge(spec, audit.sources(), judge_index);
    const Judge& j = spec.judges[static_cast<std::size_t>(judge_index)];
    const ScoreKeys keys = score_keys(spec, judge.dims());
    std::vector<std::string> columns = score_columns(keys);
    // Graded criteria: one column, an array of {"met", "quote"} per criterion of the seed.
    if (judge.rubric().criteria) columns.insert(columns.end() - 4, "criteria");
    RowWriter writer{*target, csv, formulas, columns};
    writer.start();
    // The repairs a run allows (AuditOptions::repairs): an answer still unusable after
    // them is `invalid`, as `mirac run` and `mirac analyze` count it. Resolved and written
    // a block of requests at a time, each answer and reply read when its block comes: the
    // export holds one block's texts, not the store's (at ten times MIRA that was 1 GiB).
    JudgingResolver resolver(spec, plan, judge, *store, audit.options.repairs, JudgmentDetail::texts);
    const Store::ReadTransaction reading(*store);
    std::size_t counts[5] = {0, 0, 0, 0, 0};  // by JudgeState::Kind
    std::vector<std::size_t> rows;
    for (std::size_t start = 0; start < plan.requests.size(); start += kJudgeBlockAnswers) {
      const std::size_t end = std::min(plan.requests.size(), start + kJudgeBlockAnswers);
      rows.resize(end - start);
      for (std::size_t i = start; i < end; ++i) rows[i - start] = i;
      const std::vector<JudgeState> states = resolver.resolve(rows);
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const JudgeState& s = states[k];
        ++counts[static_cast<int>(s.kind)];
        // Only answers can be judged: requests with no answer, or a failed one, have no row.
        if (s.kind == JudgeState::Kind::no_answer) continue;
        writer.write(score_row(spec, plan, plan.requests[rows[k]], j, s, keys, s.judge_hash));
      }
    }
    using K = JudgeState::Kind;
    const std::size_t answers = plan.requests.size() - counts[static_cast<int>(K::no_answer)];
    summary = fmt::format("export {} scores of judge {}: {} answers ({} scored, {} invalid, {} pending, {} failed) to "
                          "{}; {} of {} requests have no answer (or a failed one) and were skipped\n",
                          spec.name, j.name, answers, counts[static_cast<int>(K::scored)],
                          counts[static_cast<int>(K::invalid)], counts[static_cast<int>(K::pending)],
                          counts[static_cast<int>(K::failed)], where, counts[static_cast<int>(K::no_answer)],
                          plan.requests.size());
  }
  target->flush();
  if (!*target) return Outcome::fail(kUsageError, where + ": error: write failed");
  return {};
}

}  // namespace mirac
