#include "engine/analyze/analyze_step.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <fstream>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/judge/judge_phase.hpp"
#include "runtime/hash/hash.hpp"
#include "engine/analyze/coverage.hpp"
#include "engine/analyze/freshness.hpp"
#include "engine/analyze/manifest.hpp"
#include "engine/judge/raters.hpp"
#include "engine/send/answer_marks.hpp"
#include "runtime/hash/hash.hpp"

namespace mirac {

namespace {

// Every rater an agreement analysis compares, a criteria analysis reads, a corrected
// analysis corrects (`judge`) and corrects with (`people`, by default human), or an
// invariance analysis compares with its judge's scores of translations, in order of first
// mention.
std::vector<std::string> compared_raters(const Spec& spec) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& a : spec.analyses) {
    if (a.kind.name == "invariance") {
      // Its judge's scores of the answers, and of their translations (the analysis's name).
      const ast::AnalysisOption* judge = nullptr;
      for (const auto& o : a.options)
        if (o.key.name == "judge" && o.values.size() == 1) judge = &o;
      add(judge ? rater_name(judge->values[0].value) : spec.scores_rater);
      add(a.name.name);
      continue;
    }
    const bool corrected = a.kind.name == "corrected";
    if (a.kind.name != "agreement" && a.kind.name != "criteria" && !corrected) continue;
    bool people_named = false;
    for (const auto& o : a.options) {
      people_named = people_named || o.key.name == "people";
      const bool names_raters = o.key.name == "raters" || o.key.name == "rater" ||
                                (corrected && (o.key.name == "judge" || o.key.name == "people"));
      if (!names_raters) continue;
      for (const auto& v : o.values)
        for (const ast::Expr* e : {&v.value, v.versus ? &*v.versus : nullptr})
          if (e) add(rater_name(*e));
    }
    if (corrected && !people_named) add("human");
  }
  return out;
}

// What the analysis reads of the store's answers besides their scores.
struct StoredAnswers {
  HashSet done;
  std::unordered_map<std::string, Store::Marks> marked;  ///< those the servers did not treat as asked
  analyze::AnswerFacts facts;  ///< as what and when the plan's answers came back
};

// The scores the analyses' rater gave in the store, written to `<out_dir>/scores.csv` after
// the `preamble` (its provenance lines).
Outcome scores_from_run(Audit& audit, const std::filesystem::path& out_dir, const std::string& preamble,
                        analyze::ScoreTable& table, std::filesystem::path& path, std::string& sha256,
                        StoredAnswers& stored) {
  const Spec& spec = audit.spec();
  if (spec.judges.empty())
    return Outcome::fail(kUsageError,
                         fmt::format("mirac: {} declares no judge, so the store holds no scores to analyze", spec.name));
  if (!audit.has_store())
    return Outcome::fail(kUsageError, fmt::format("mirac analyze: {} (or give --scores FILE to analyze a scores file)",
                                                  missing_store_advice(audit)));
  std::string error;
  auto store = Store::open(audit.run_dir, error);
  if (!store) return Outcome::fail(kUsageError, "mirac: " + error);
  table = rater_scores(spec, audit.plan(), audit.sources(), *store, spec.scores_rater, audit.options.repairs);
  // People's scores are read once, and only when something needs them.
  std::optional<analyze::ScoreTable> people;
  auto people_scores = [&]() -> const analyze::ScoreTable& {
    if (!people) people = rater_scores(spec, audit.plan(), audit.sources(), *store, "human", audit.options.repairs);
    return *people;
  };
  const ast::RubricDecl* rubric = spec.scored_rubric();
  const bool people_only = rubric && std::any_of(rubric->dims.begin(), rubric->dims.end(),
                                                  [](const ast::DimDecl& d) { return d.human_only(); });
  if (people_only && !is_human_rater(spec.scores_rater))  // what only people score comes from their annotations
    fill_human_dimensions(spec, table, people_scores());
  stored.done = store->done_hashes();
  stored.marked = store->marked_answers();
  stored.facts = analyze::answer_facts(audit.plan(), spec.models.size(), *store);
  // The other raters that agreement analyses compare.
  for (const std::string& rater : compared_raters(spec)) {
    if (rater == spec.scores_rater) continue;
    if (rater == "human") add_other_rater(table, people_scores());
    else add_other_rater(table, rater_scores(spec, audit.plan(), audit.sources(), *store, rater, audit.options.repairs));
  }
  if (table.rows.empty())
    return Outcome::fail(kUsageError, fmt::format("mirac: nothing in {} is scored by {} '{}' yet", audit.run_dir.string(),
                                                  spec.find_panel(spec.scores_rater) ? "panel" : "judge",
                                                  spec.scores_rater));
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  path = out_dir / "scores.csv";
  // Written and hashed a line at a time, never held whole.
  std::ofstream file(path, std::ios::binary);
  Sha256 hash;
  auto write_text = [&](std::string_view text) {
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    hash.update(text);
  };
  write_text(preamble);
  write_scores_csv(spec, table, write_text);
  if (!file.flush()) return Outcome::fail(kUsageError, fmt::format("mirac: cannot write {}", path.string()));
  sha256 = hash.hex();
  // Each row's line in the file, for the messages that point at it, moves down past the preamble.
  const auto preamble_lines = static_cast<std::size_t>(std::count(preamble.begin(), preamble.end(), '\n'));
  for (auto& row : table.rows) row.line += preamble_lines;
  table.path = path.string();
  return {};
}

// A scores CSV given with `--scores`; its problems go to `diags`.
Outcome scores_from_file(Audit& audit, analyze::ScoreTable& table, std::string& text, Diagnostics& diags) {
  Compilation& c = *audit.compilation;
  std::optional<analyze::ScoreTable> loaded = analyze::load_scores(c.spec, audit.options.scores, c.sources, diags);
  if (!loaded) return Outcome::fail(kSpecError);
  table = std::move(*loaded);
  std::ifstream in(audit.options.scores, std::ios::binary);
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return {};
}

// The manifest's time of the analysis: the options' pinned time, else now.
double analyzed_at(const AuditOptions& options) {
  if (options.analyzed_at) return *options.analyzed_at;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count();
}

}  // namespace

Outcome analyze_audit(Audit& audit, Analysis& analysis) {
  const AuditOptions& o = audit.options;
  const bool from_file = !o.scores.empty();
  analysis.out_dir = analysis_out_dir(audit);
  Compilation& c = *audit.compilation;
  analyze::ScoreTable table;
  std::filesystem::path scores_path = o.scores;
  std::string scores_text;    // a scores file's (`--scores`); a run's is written, not kept
  std::string scores_sha256;  // the scores file's, either way
  StoredAnswers stored;  // empty when the scores come from a file
  analysis.analyzed_at = analyzed_at(o);
  analyze::RunFacts run{c.plan, c.sources, o.offline, analysis.analyzed_at};
  analyze::Provenance provenance{c.spec.name, analyze::spec_sha256(c.spec), "", analyze::answers_simulated(c.spec, run),
                                 analyze::simulated_models(c.spec)};
  Outcome read = from_file ? scores_from_file(audit, table, scores_text, analysis.diagnostics)
                           : scores_from_run(audit, analysis.out_dir, analyze::csv_provenance(provenance), table,
                                             scores_path, scores_sha256, stored);
  if (!read.ok()) return read;
  if (from_file) scores_sha256 = sha256_hex(scores_text);
  if (from_file) run.scores_simulated = analyze::csv_says_simulated(scores_text);
  else run.answers = &stored.facts;

  analyze::AnalyzeOptions ao;
  ao.resamples = static_cast<std::size_t>(o.resamples);
  ao.seed = o.seed;
  ao.partial = table.rows.size() < c.plan.requests.size();
  // What needs the answers' marks and a scores file's text is taken before the analyses
  // run, and those are let go: the analyses' own peak would otherwise sit on them.
  nlohmann::ordered_json manifest = analyze::manifest(c.spec, scores_path, scores_sha256, table, ao);
  analyze::add_run_facts(manifest, c.spec, run, ao);
  provenance.scores_sha256 = scores_sha256;
  provenance.simulated = analyze::answers_simulated(c.spec, run);
  nlohmann::ordered_json marked;
  if (!from_file) {
    std::vector<std::size_t> rows(c.plan.requests.size());
    for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = r;
    marked = marks_json(c.spec, count_marks(c.spec, c.plan, rows, done_rows(stored.done, c.plan, rows), stored.marked));
  }
  run.answers = nullptr;
  stored.marked = {};
  std::string().swap(scores_text);

  analyze::Output result = analyze::analyze_scores(c.spec, table, ao, c.sources, analysis.diagnostics);
  analyze::add_late_inputs(manifest, c.sources);  // a table an analysis read (`against csv(...)`)
  nlohmann::ordered_json json{{"manifest", std::move(manifest)}};
  json.update(result.json);
  // Which stored answers the table scores, found once for the coverage and the unused answers.
  const std::vector<analyze::AnswerState> states = analyze::answer_states(c.spec, c.plan, stored.done, table);
  if (!from_file) {
    json["coverage"] = analyze::score_coverage(c.spec, c.plan, states, table, analysis.diagnostics);
    json["answers_marked"] = std::move(marked);
  }
  if (json.contains("analyses"))
    analyze::add_unused_answers(c.spec, c.plan, states, table, c.sources, json["analyses"]);
  result.json = std::move(json);
  result.csv_preamble = analyze::csv_provenance(provenance);
  analysis.output = std::move(result);
  analysis.score_rows = table.rows.size();
  return {};
}

}  // namespace mirac
