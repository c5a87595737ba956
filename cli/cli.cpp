// cli.cpp: the `mirac` commands. Each parses its options, runs the pipeline as far as it
// needs (see interpreter/driver.hpp), and prints. Exit 0 ok, 1 spec or data errors, 2 usage.
#include "cli/cli.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/analyze_command.hpp"
#include "cli/export_command.hpp"
#include "cli/rewrite_command.hpp"
#include "cli/run_command.hpp"
#include "cli/status_command.hpp"
#include "interpreter/driver.hpp"
#include "interpreter/format.hpp"
#include "interpreter/modules.hpp"
#include "interpreter/parse.hpp"

namespace mirac {

namespace {

constexpr int kOk = 0, kSpecError = 1, kUsageError = 2;

struct Options {
  std::string spec;
  std::string data;
  std::string show;
  std::string output;
  bool json = false;
  bool in_place = false;
  bool check_only = false;
  std::string scores;
  std::string out_dir;
  int resamples = 2000;
  std::uint64_t seed = 20260101;
};

CheckOptions check_options(const Options& o) {
  CheckOptions c;
  if (!o.data.empty()) c.data_root = o.data;
  if (const char* env = std::getenv("MIRAC_DATA"); env && *env) c.env_data_root = env;
  return c;
}

// Prints diagnostics; returns the exit code for them.
int report(const Compilation& c, std::ostream& err) {
  c.diags.print(err, c.sources);
  return c.ok() ? kOk : kSpecError;
}

std::unique_ptr<Compilation> compile_for(const Options& o, std::ostream& err, int& code) {
  auto c = compile(o.spec, check_options(o));
  code = report(*c, err);
  return c;
}

int cmd_check(const Options& o, std::ostream& out, std::ostream& err) {
  int code = kOk;
  auto c = compile_for(o, err, code);
  if (o.show == "ast") {
    for (const auto& m : c->modules) out << "; " << c->sources.path(m.file) << '\n' << dump_ast(m);
  } else if (o.show == "plan" && code == kOk) {
    out << plan_dump(c->spec, c->plan).dump(2) << '\n';
  }
  if (code == kOk && o.show.empty()) {
    out << fmt::format("{}: ok ({} seeds, {} prompts, {} requests)\n", o.spec, c->spec.seeds.size(),
                       c->plan.prompts.size(), c->plan.requests.size());
  }
  return code;
}

int cmd_fmt(const Options& o, std::ostream& out, std::ostream& err) {
  SourceManager sources;
  Diagnostics diags;
  std::ifstream in(o.spec, std::ios::binary);
  if (!in) {
    err << o.spec << ": error: cannot read spec file\n";
    return kSpecError;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string original = buffer.str();
  FileId file = sources.add(o.spec, original);
  ast::Module module = parse_module(file, sources, diags);
  if (diags.has_errors()) {
    diags.print(err, sources);
    return kSpecError;
  }
  std::string formatted = format_module(module, sources);
  if (o.check_only) {
    if (formatted == original) return kOk;
    err << o.spec << ": not formatted (run 'mirac fmt -i " << o.spec << "')\n";
    return kSpecError;
  }
  if (o.in_place) {
    if (formatted != original) {
      std::ofstream f(o.spec, std::ios::binary | std::ios::trunc);
      f << formatted;
    }
    return kOk;
  }
  out << formatted;
  return kOk;
}

nlohmann::ordered_json prompt_json(const Spec& spec, const PromptRow& p) {
  nlohmann::ordered_json row{{"id", p.id}, {"text", p.text}, {"seed", p.seed}};
  for (std::size_t f = 0; f < spec.factors.size(); ++f) row[spec.factors[f].name] = spec.factors[f].levels[p.levels[f]].name.name;
  return row;
}

int cmd_prompts(const Options& o, std::ostream& out, std::ostream& err) {
  int code = kOk;
  auto c = compile_for(o, err, code);
  if (code != kOk) return code;
  std::ofstream file;
  std::ostream* target = &out;
  if (!o.output.empty() && o.output != "-") {
    file.open(o.output, std::ios::binary | std::ios::trunc);
    if (!file) {
      err << o.output << ": error: cannot write output file\n";
      return kUsageError;
    }
    target = &file;
  }
  for (const auto& p : c->plan.prompts) *target << prompt_json(c->spec, p).dump() << '\n';
  return kOk;
}

int cmd_plan(const Options& o, std::ostream& out, std::ostream& err) {
  int code = kOk;
  auto c = compile_for(o, err, code);
  if (code != kOk) return code;
  if (o.show == "plan") out << plan_dump(c->spec, c->plan).dump(2) << '\n';
  else if (o.json) out << plan_summary(c->spec, c->plan).dump(2) << '\n';
  else out << plan_summary_text(c->spec, c->plan);
  return kOk;
}

}  // namespace

int run_cli(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run_cli(args, std::cout, std::cerr);
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"mirac: a declarative language and interpreter for auditing LLM answers", "mirac"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("mirac ") + MIRAC_VERSION);
  Options o;
  auto add_spec = [&](CLI::App* cmd) {
    cmd->add_option("spec", o.spec, "the .audit spec file")->required();
  };
  auto add_data = [&](CLI::App* cmd) {
    cmd->add_option("--data", o.data, "data root for relative data paths (overrides $MIRAC_DATA and the spec)");
  };
  CLI::App* check = app.add_subcommand("check", "check a spec and its data; print every problem");
  add_spec(check);
  add_data(check);
  check->add_option("--show", o.show, "also print an intermediate form")->check(CLI::IsMember({"ast", "plan"}));
  CLI::App* fmt_cmd = app.add_subcommand("fmt", "print a spec in canonical layout");
  add_spec(fmt_cmd);
  fmt_cmd->add_flag("-i,--in-place", o.in_place, "rewrite the file instead of printing");
  fmt_cmd->add_flag("--check", o.check_only, "exit 1 if the file is not in canonical layout");
  CLI::App* prompts = app.add_subcommand("prompts", "write the compiled prompts as JSONL");
  add_spec(prompts);
  add_data(prompts);
  prompts->add_option("-o,--output", o.output, "output file (default: standard output)");
  CLI::App* plan = app.add_subcommand("plan", "show the execution plan: counts of prompts, requests and judge calls");
  add_spec(plan);
  add_data(plan);
  plan->add_flag("--json", o.json, "print the summary as JSON");
  plan->add_option("--show", o.show, "print the whole plan (prompts, requests, judge tasks) as JSON")
      ->check(CLI::IsMember({"plan"}));

  CLI::App* analyze = app.add_subcommand("analyze", "compute means, contrasts, flags and analyses from scores");
  add_spec(analyze);
  add_data(analyze);
  analyze->add_option("--scores", o.scores, "scores CSV (seed, model, arm, one column per factor and per dimension)");
  analyze->add_option("--out", o.out_dir, "output directory (default: results)");
  analyze->add_option("--resamples", o.resamples, "bootstrap resamples per contrast interval (default 2000)");
  analyze->add_option("--seed", o.seed, "bootstrap seed (default 20260101)");
  AnalyzeCommandOptions a;
  analyze->add_option("--store", a.store, "without --scores: the run directory to read scores from (default: runs/<spec name>)");
  analyze->add_flag("--offline", a.offline, "without --scores: the scores of an --offline run");

  RunCommandOptions r;
  double budget = 0;
  CLI::App* run = app.add_subcommand("run", "send the plan's requests to the providers; answers go to the run store");
  CLI::App* status = app.add_subcommand("status", "what is done, failed and pending in the run store");
  for (CLI::App* cmd : {run, status}) {
    cmd->add_option("spec", r.spec, "the .audit spec file")->required();
    cmd->add_option("--data", r.data, "data root for relative data paths");
    cmd->add_option("--store", r.store, "run directory holding store.sqlite (default: runs/<spec name>)");
    cmd->add_flag("--offline", r.offline, "use the built-in offline provider for every model and judge (no keys, no network)");
  }
  run->add_flag("--answers-only", r.answers_only, "stop after the answers: no judging, no analysis");
  run->add_option("--repairs", r.repairs, "ask a judge again this often when its reply breaks the rubric (default 2)");
  run->add_option("--out", r.out_dir, "results directory (default: <run dir>/results)");
  run->add_option("--only", r.only, "only requests matching key=value,... (factors, model, arm, seed)");
  run->add_option("--limit", r.limit, "send at most N requests (a pilot)");
  run->add_option("--concurrency", r.concurrency, "requests in flight per provider (overrides the provider's setting)");
  CLI::Option* budget_option = run->add_option("--budget", budget, "stop sending before spending more than USD this run");
  bool status_json = false;
  status->add_option("--only", r.only, "only requests matching key=value,... (factors, model, arm, seed)");
  status->add_flag("--json", status_json, "print the counts as JSON");

  std::string what, import_file, export_format = "jsonl";
  CLI::App* export_cmd =
      app.add_subcommand("export", "write the stored answers of the plan, or a judge's scores of them, as JSONL or CSV");
  CLI::App* import_cmd = app.add_subcommand("import", "store answers produced elsewhere (JSONL) as done answers of the plan");
  for (CLI::App* cmd : {export_cmd, import_cmd}) {
    cmd->add_option("spec", r.spec, "the .audit spec file")->required();
    const bool exporting = cmd == export_cmd;
    cmd->add_option("what", what, exporting ? "what to write: responses or scores" : "what to move: responses")
        ->required()
        ->check(CLI::IsMember(exporting ? std::vector<std::string>{"responses", "scores"}
                                        : std::vector<std::string>{"responses"}));
    cmd->add_option("--store", r.store, "run directory holding store.sqlite (default: runs/<spec name>)");
    cmd->add_option("--data", r.data, "data root for relative data paths");
    cmd->add_flag("--offline", r.offline, "the store of an --offline run");
  }
  export_cmd->add_option("-o,--output", o.output, "output file (default: standard output)");
  export_cmd->add_option("--format", export_format, "jsonl (default) or csv")->check(CLI::IsMember({"jsonl", "csv"}));
  std::string export_judge;
  export_cmd->add_option("--judge", export_judge, "export scores: the judge whose scores to write (default: the spec's first)");
  import_cmd->add_option("file", import_file, "JSONL file of answers")->required();

  // `mirac rewrite`: the variants' missing texts from their rewriter, into a lock file.
  RunCommandOptions rw;
  std::string rewrite_output;
  CLI::App* rewrite = app.add_subcommand("rewrite", "ask the rewriter model for the variant texts no lock holds yet; "
                                                    "write them to a JSONL lock file for review");
  rewrite->add_option("spec", rw.spec, "the .audit spec file")->required();
  rewrite->add_option("--data", rw.data, "data root for relative data paths");
  rewrite->add_option("--store", rw.store, "run directory holding store.sqlite (default: runs/<spec name>)");
  rewrite->add_option("-o,--output", rewrite_output, "lock file to write (default: <run dir>/<field>.lock.jsonl)");
  rewrite->add_option("--only", rw.only, "only rewrites matching key=value,... (seed, the variant's factors)");
  rewrite->add_option("--limit", rw.limit, "request at most N rewrites (a pilot)");

  std::vector<std::string> storage = {"mirac"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? kOk : kUsageError;
  }
  try {
    if (check->parsed()) return cmd_check(o, out, err);
    if (fmt_cmd->parsed()) return cmd_fmt(o, out, err);
    if (prompts->parsed()) return cmd_prompts(o, out, err);
    if (plan->parsed()) return cmd_plan(o, out, err);
    if (run->parsed()) {
      if (budget_option->count() > 0) r.budget_usd = budget;
      return cmd_run(r, out, err);
    }
    if (status->parsed()) return cmd_status(r, status_json, out, err);
    if (export_cmd->parsed()) return cmd_export(r, what, o.output, export_format, export_judge, out, err);
    if (import_cmd->parsed()) return cmd_import(r, what, import_file, out, err);
    if (rewrite->parsed()) return cmd_rewrite(rw, rewrite_output, out, err);
    if (analyze->parsed()) {
      a.spec = o.spec, a.data = o.data, a.scores = o.scores, a.out_dir = o.out_dir;
      a.resamples = o.resamples, a.seed = o.seed;
      return cmd_analyze(a, out, err);
    }
  } catch (const std::exception& e) {
    // A crash on any input is a bug; say so plainly rather than abort.
    err << "mirac: internal error: " << e.what() << "\nplease report this with the spec that caused it\n";
    return 3;
  }
  return kUsageError;
}

}  // namespace mirac
