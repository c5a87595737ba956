// transfer_commands.cpp: `mirac export` (stored answers or a judge's scores out of the run
// store) and `mirac import` (answers from elsewhere into it): engine/transfer.
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/transfer/export.hpp"
#include "engine/transfer/import.hpp"

namespace mirac::cli {

namespace {

struct TransferOptions {
  AuditOptions audit;
  ExportOptions exporting;
  std::string file;  ///< import: the JSONL file
};

int export_rows(const TransferOptions& o, std::ostream& out, std::ostream& err) {
  Audit audit;
  if (int code = open_read_audit(o.audit, audit, err); code != kOk) return code;
  std::string summary;
  Outcome exported = export_table(audit, o.exporting, out, summary);
  if (exported.ok()) err << summary;
  return finish(exported, err);
}

int import_rows(const TransferOptions& o, std::ostream& out, std::ostream& err) {
  AuditOptions writing = o.audit;  // shared with export, which reads
  writing.reads_run_store = false;  // answers from elsewhere go where named, never into an offline run's store unasked
  Audit audit = open_audit(writing);
  if (int code = print_compiled(audit, err); code != kOk) return code;
  ImportSummary s;
  Outcome imported = import_responses(audit, o.file, s);
  if (!s.diagnostics.all().empty()) s.diagnostics.print(err, audit.sources());
  if (!imported.ok()) return finish(imported, err);
  out << fmt::format("import {}: {} answers stored, {} skipped (already answered)", o.file, s.stored, s.already);
  if (s.not_done > 0) out << fmt::format(", {} rows not done skipped", s.not_done);
  if (s.mira_rows > 0) out << fmt::format(", {} rows read as MIRA judge input", s.mira_rows);
  out << fmt::format("; store {}\n", audit.run_dir.string());
  return kOk;
}

}  // namespace

void add_transfer_commands(Commands& commands) {
  auto o = std::make_shared<TransferOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  CLI::App* export_cmd =
      commands.add("export", "write the stored answers of the plan, or a judge's scores of them, as JSONL or CSV",
                   [o, &out, &err] { return export_rows(*o, out, err); });
  CLI::App* import_cmd = commands.add("import", "store answers produced elsewhere (JSONL) as done answers of the plan",
                                      [o, &out, &err] { return import_rows(*o, out, err); });
  for (CLI::App* cmd : {export_cmd, import_cmd}) {
    add_spec(cmd, o->audit);
    const bool exporting = cmd == export_cmd;
    cmd->add_option("what", o->exporting.what, exporting ? "what to write: responses or scores" : "what to move: responses")
        ->required()
        ->check(CLI::IsMember(exporting ? std::vector<std::string>{"responses", "scores"}
                                        : std::vector<std::string>{"responses"}));
    if (exporting) {
      add_read_store(cmd, o->audit);
      add_read_only(cmd, o->audit, "write");
    }
    else add_store(cmd, o->audit, "the store of an --offline run");
    add_data(cmd, o->audit);
    add_answers(cmd, o->audit);
  }
  export_cmd->add_option("-o,--output", o->exporting.output, "output file (default: standard output)");
  export_cmd->add_option("--format", o->exporting.format, "jsonl (default) or csv")->check(CLI::IsMember({"jsonl", "csv"}));
  export_cmd
      ->add_option("--csv-formulas", o->exporting.csv_formulas,
                   "csv: neutralise (default: a text cell a spreadsheet would run as a formula gets a ' in front) "
                   "or keep (every cell as it is, for programs)")
      ->check(CLI::IsMember({"neutralise", "keep"}));
  export_cmd->add_option("--judge", o->exporting.judge,
                         "export scores: the judge whose scores to write (default: the spec's first)");
  import_cmd->add_option("file", o->file, "JSONL file of answers")->required();
}

}  // namespace mirac::cli
