#include "cli/analyze_command.hpp"

#include <cstdlib>
#include <fstream>
#include <ostream>

#include <fmt/format.h>

#include "cli/run_command.hpp"
#include "interpreter/analyze/analyze.hpp"
#include "interpreter/driver.hpp"
#include "runtime/judge/judge_phase.hpp"
#include "runtime/report/report.hpp"

namespace mirac {

namespace {

constexpr int kOk = 0, kSpecError = 1, kUsageError = 2;

// Computes and writes the analysis of `table`, read from `scores_path` (whose bytes are
// `scores_text`, hashed into the manifest).
int analyze_table(Compilation& c, const analyze::ScoreTable& table, const std::filesystem::path& scores_path,
                  const std::string& scores_text, const std::filesystem::path& dir, const AnalyzeCommandOptions& o,
                  std::ostream& out, std::ostream& err) {
  analyze::AnalyzeOptions ao;
  ao.resamples = static_cast<std::size_t>(o.resamples);
  ao.seed = o.seed;
  Diagnostics diags;  // the compile's own were printed already
  analyze::Output result = analyze::analyze_scores(c.spec, table, ao, c.sources, diags);
  nlohmann::ordered_json json{{"manifest", analyze::manifest(c.spec, scores_path, scores_text, table, ao)}};
  json.update(result.json);
  result.json = std::move(json);
  if (!diags.all().empty()) diags.print(err, c.sources);
  if (std::string problem = analyze::write_output(result, dir); !problem.empty()) {
    err << "mirac analyze: " << problem << '\n';
    return kUsageError;
  }
  const report::ReportFiles reports = report::render_reports(c.spec, result.json);
  if (std::string problem = report::write_reports(reports, dir); !problem.empty()) {
    err << "mirac analyze: " << problem << '\n';
    return kUsageError;
  }
  out << fmt::format("{}: {} score rows; wrote {}/results.json, {} tables and {}/report.html\n", c.spec.name,
                     table.rows.size(), dir.string(), result.tables.size(), dir.string());
  return diags.has_errors() ? kSpecError : kOk;
}

}  // namespace

int analyze_run_store(Compilation& c, const std::filesystem::path& run_dir, const std::filesystem::path& out_dir,
                      const AnalyzeCommandOptions& o, std::ostream& out, std::ostream& err) {
  if (c.spec.judges.empty()) {
    err << fmt::format("mirac: {} declares no judge, so the store holds no scores to analyze\n", c.spec.name);
    return kUsageError;
  }
  if (!std::filesystem::exists(run_dir / "store.sqlite")) {
    err << fmt::format("mirac: no run store at {} (run `mirac run` first, or pass --store DIR or --scores FILE)\n",
                       run_dir.string());
    return kUsageError;
  }
  std::string error;
  auto store = Store::open(run_dir, error);
  if (!store) {
    err << "mirac: " << error << '\n';
    return kUsageError;
  }
  JudgeBuilder judge(c.spec, c.sources, 0);
  analyze::ScoreTable table = scores_from_store(c.spec, c.plan, judge, *store, o.repairs);
  if (table.rows.empty()) {
    err << fmt::format("mirac: nothing in {} is scored by judge '{}' yet\n", run_dir.string(), judge.judge().name);
    return kUsageError;
  }
  // The scores as read go next to the results: the analysis can be repeated from them
  // (`mirac analyze --scores`) and the manifest hashes them.
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  const std::filesystem::path scores_path = out_dir / "scores.csv";
  const std::string text = scores_csv(c.spec, table);
  std::ofstream file(scores_path, std::ios::binary);
  if (!(file << text) || !file.flush()) {
    err << fmt::format("mirac: cannot write {}\n", scores_path.string());
    return kUsageError;
  }
  table.path = scores_path.string();
  return analyze_table(c, table, scores_path, text, out_dir, o, out, err);
}

int cmd_analyze(const AnalyzeCommandOptions& o, std::ostream& out, std::ostream& err) {
  if (o.resamples < 1) {
    err << "mirac analyze: --resamples must be at least 1\n";
    return kUsageError;
  }
  RunCommandOptions r;
  r.spec = o.spec;
  r.data = o.data;
  r.store = o.store;
  r.offline = o.offline;
  auto c = compile_spec(r, err);
  if (!c->ok()) return kSpecError;
  if (o.scores.empty()) {
    std::filesystem::path dir = run_dir(c->spec, r);
    return analyze_run_store(*c, dir, o.out_dir.empty() ? dir / "results" : std::filesystem::path(o.out_dir), o, out,
                             err);
  }
  Diagnostics diags;
  std::optional<analyze::ScoreTable> table = analyze::load_scores(c->spec, o.scores, c->sources, diags);
  if (!table) {
    diags.print(err, c->sources);
    return kSpecError;
  }
  std::ifstream in(o.scores, std::ios::binary);
  std::string scores_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return analyze_table(*c, *table, o.scores, scores_text, o.out_dir.empty() ? "results" : o.out_dir, o, out, err);
}

}  // namespace mirac
