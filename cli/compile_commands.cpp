// compile_commands.cpp: the commands that compile and send nothing: check, fmt, prompts,
// plan (docs/cli.md).
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "interpreter/format/format.hpp"
#include "interpreter/parse/parse.hpp"
#include "interpreter/summary/plan_summary.hpp"

namespace mirac::cli {

namespace {

struct CompileOptions {
  AuditOptions audit;
  std::string show, output, format = "text", fmt_show;
  bool json = false, in_place = false, check_only = false;
};

int check_spec(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  Audit audit = open_selected_audit(o.audit);
  if (int code = check_selection(audit, err); code != kOk) return code;
  // What an extending spec's changes did, as notes among the problems (docs/language.md, "Variants").
  Diagnostics shown = audit.compilation->merged.explanations;
  shown.append(audit.diagnostics());
  if (o.format == "json") {  // for editors: every diagnostic, on standard output
    out << shown.json(audit.sources()) << '\n';
    return audit.ok() ? kOk : kSpecError;
  }
  shown.print(err, audit.sources());
  int code = audit.ok() ? kOk : kSpecError;
  if (o.show == "ast") {
    for (const auto& m : audit.compilation->modules)
      out << "; " << audit.sources().path(m.file) << '\n' << dump_ast(m);
  } else if (o.show == "plan" && code == kOk) {
    out << plan_dump(audit.spec(), audit.plan()).dump(2) << '\n';
  }
  if (code == kOk && o.show.empty()) {
    out << fmt::format("{}: ok ({} seeds, {} prompts, {} requests)", o.audit.spec.string(), audit.spec().seeds.size(),
                       audit.plan().prompts.size(), audit.plan().requests.size());
    if (const std::string said = selection_said(o.audit); !said.empty()) {
      Selection selection;
      select_requests(audit, selection);
      out << fmt::format("; {} requests selected by {}", selection.rows.size(), said);
    }
    out << '\n';
  }
  return code;
}

// An extending spec and its bases as one spec; parses and merges, reads no data.
int show_merged(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  Compilation c;
  load_merged(o.audit.spec, c);
  if (!c.ok() || c.modules.empty()) {
    c.diags.print(err, c.sources);
    return kSpecError;
  }
  out << format_merged(c.modules, c.chain, c.merged, c.sources);
  return kOk;
}

// Only parses: a spec whose data is absent can still be formatted.
int format_spec(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  if (o.fmt_show == "merged") return show_merged(o, out, err);
  const std::string path = o.audit.spec.string();
  std::string why;
  const std::optional<std::string> read = read_regular_file(path, why);
  if (!read) {
    err << path << ": error: cannot read spec file: " << why << '\n';
    return kSpecError;
  }
  const std::string& original = *read;
  // A byte order mark is not part of the spec; fmt's output has none.
  const bool bom = original.rfind("\xEF\xBB\xBF", 0) == 0;
  SourceManager sources;
  Diagnostics diags;
  const FileId file = sources.add(path, bom ? original.substr(3) : original);
  ast::Module module;
  if (require_utf8(sources, file, "the spec", diags)) module = parse_module(file, sources, diags);
  if (diags.has_errors()) {
    diags.print(err, sources);
    return kSpecError;
  }
  const std::string formatted = format_module(module, sources);
  if (o.check_only) {
    if (formatted == original) return kOk;
    err << path << ": not formatted (run 'mirac fmt -i " << path << "')\n";
    return kSpecError;
  }
  if (!o.in_place) {
    out << formatted;
  } else if (formatted != original) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!(f << formatted) || !f.flush()) {
      err << path << ": error: cannot write the formatted spec\n";
      return kUsageError;
    }
  }
  return kOk;
}

nlohmann::ordered_json prompt_json(const Spec& spec, const PromptRow& p) {
  nlohmann::ordered_json row{{"id", p.id}, {"text", p.text}, {"seed", p.seed}};
  for (std::size_t f = 0; f < spec.factors.size(); ++f) row[spec.factors[f].name] = spec.factors[f].levels[p.levels[f]].name.name;
  return row;
}

int write_prompts(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  Audit audit = open_audit(o.audit);
  if (int code = print_compiled(audit, err); code != kOk) return code;
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
  for (const auto& p : audit.plan().prompts) *target << prompt_json(audit.spec(), p).dump() << '\n';
  // A full disk fails the write, not the open: without this check the file is left empty
  // and the command says nothing.
  if (!target->flush()) {
    err << (target == &out ? std::string("standard output") : o.output) << ": error: write failed\n";
    return kUsageError;
  }
  return kOk;
}

int show_plan(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  Audit audit = open_selected_audit(o.audit);
  if (int code = check_selection(audit, err); code != kOk) return code;
  if (int code = print_compiled(audit, err); code != kOk) return code;
  // A selection's summary counts and prices what `mirac run` would send, beside the plan's counts.
  std::optional<SummarySelection> selected;
  if (std::string said = selection_said(o.audit); !said.empty() && o.show.empty()) {
    Plan& plan = audit.compilation->plan;
    selected = SummarySelection{std::move(said), planned_seeds(plan), plan.prompts.size(), plan.requests.size(),
                                plan.judge_tasks.size()};
    Selection selection;
    select_requests(audit, selection);
    plan = selected_plan(plan, selection.rows);
  }
  const SummarySelection* said = selected ? &*selected : nullptr;
  if (o.show == "plan") out << plan_dump(audit.spec(), audit.plan()).dump(2) << '\n';
  else if (o.json) out << plan_summary(audit.spec(), audit.plan(), &audit.sources(), said).dump(2) << '\n';
  else out << plan_summary_text(audit.spec(), audit.plan(), &audit.sources(), said);
  return kOk;
}

}  // namespace

void add_compile_commands(Commands& commands) {
  auto o = std::make_shared<CompileOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  CLI::App* check = commands.add("check", "check a spec and its data; print every problem",
                                 [o, &out, &err] { return check_spec(*o, out, err); });
  add_spec(check, o->audit);
  add_data(check, o->audit);
  add_answers(check, o->audit);
  check->add_option("--show", o->show, "also print an intermediate form")->check(CLI::IsMember({"ast", "plan"}));
  add_selection(check, o->audit);
  check->add_option("--format", o->format, "text (default), or json: the diagnostics as JSON on standard output")
      ->check(CLI::IsMember({"text", "json"}));

  CLI::App* fmt_cmd = commands.add("fmt", "print a spec in canonical layout",
                                   [o, &out, &err] { return format_spec(*o, out, err); });
  add_spec(fmt_cmd, o->audit);
  fmt_cmd->add_flag("-i,--in-place", o->in_place, "rewrite the file instead of printing");
  fmt_cmd->add_flag("--check", o->check_only, "exit 1 if the file is not in canonical layout");
  fmt_cmd->add_option("--show", o->fmt_show,
                      "merged: print the spec with what it extends resolved into one spec (reads no data)")
      ->check(CLI::IsMember({"merged"}));

  CLI::App* prompts = commands.add("prompts", "write the compiled prompts as JSONL",
                                   [o, &out, &err] { return write_prompts(*o, out, err); });
  add_spec(prompts, o->audit);
  add_data(prompts, o->audit);
  prompts->add_option("-o,--output", o->output, "output file (default: standard output)");

  CLI::App* plan = commands.add("plan", "show the execution plan: counts of prompts, requests and judge calls",
                                [o, &out, &err] { return show_plan(*o, out, err); });
  add_spec(plan, o->audit);
  add_data(plan, o->audit);
  add_answers(plan, o->audit);
  add_selection(plan, o->audit);
  plan->add_flag("--json", o->json, "print the summary as JSON");
  plan->add_option("--show", o->show, "print the whole plan (prompts, requests, judge tasks) as JSON")
      ->check(CLI::IsMember({"plan"}));
}

}  // namespace mirac::cli
