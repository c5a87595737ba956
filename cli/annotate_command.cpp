// annotate_command.cpp: `mirac annotate sample` (a stratified sample of stored answers as an
// annotation sheet and page) and `mirac annotate import` (a filled sheet into the store):
// engine/annotate.
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "engine/annotate/import.hpp"
#include "engine/annotate/sample.hpp"

namespace mirac::cli {

namespace {

struct AnnotateOptions {
  AuditOptions audit;
  SampleOptions sample;
  std::string stratify, out_dir, file, annotator;
  bool adjudicated = false;
};

bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  return static_cast<bool>(f << text) && static_cast<bool>(f.flush());
}

int sample(AnnotateOptions& o, std::ostream& out, std::ostream& err) {
  Audit audit;
  if (int code = open_read_audit(o.audit, audit, err); code != kOk) return code;
  if (!audit.has_store()) return finish(Outcome::fail(kUsageError, "mirac annotate sample: " + missing_store_advice(audit)), err);
  Outcome opened;
  auto store = open_store(audit, opened);
  if (!store) return finish(opened, err);
  std::stringstream list(o.stratify);
  for (std::string v; std::getline(list, v, ',');)
    if (!v.empty()) o.sample.stratify.push_back(v);
  AnnotationSample drawn;
  if (Outcome s = sample_answers(audit, *store, o.sample, drawn); !s.ok()) return finish(s, err);
  const std::filesystem::path dir = o.out_dir.empty() ? audit.run_dir / "annotation" : std::filesystem::path(o.out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  nlohmann::ordered_json manifest{{"spec", audit.spec().name},
                                  {"n", drawn.rows.size()},
                                  {"population", drawn.population},
                                  {"stratify", o.sample.stratify},
                                  {"allocation", o.sample.equal ? "equal" : "proportional"},
                                  {"seed", o.sample.seed},
                                  {"strata", nlohmann::ordered_json::array()}};
  for (const auto& s : drawn.strata)
    manifest["strata"].push_back({{"values", s.values}, {"population", s.population}, {"sampled", s.sampled}});
  const nlohmann::ordered_json data = annotation_data(audit, *store, drawn);
  if (!write_file(dir / "sheet.csv", annotation_sheet(audit, drawn)) ||
      !write_file(dir / "annotate.html", annotation_page(data)) || !write_file(dir / "sample.json", manifest.dump(2) + "\n"))
    return finish(Outcome::fail(kUsageError, fmt::format("mirac annotate: cannot write into {}", dir.string())), err);
  out << fmt::format("annotate {}: {} of {} stored answers, {} allocation over {} strata ({}), seed {}\n",
                     audit.spec().name, drawn.rows.size(), drawn.population, o.sample.equal ? "equal" : "proportional",
                     drawn.strata.size(), o.sample.stratify.empty() ? "none" : fmt::format("{}", fmt::join(o.sample.stratify, " x ")),
                     o.sample.seed);
  for (const auto& s : drawn.strata)
    out << fmt::format("  {:<24} {:>5} of {:>6}\n", s.values.empty() ? "all" : fmt::format("{}", fmt::join(s.values, " / ")),
                       s.sampled, s.population);
  out << fmt::format("wrote {0}/annotate.html (score in a browser, then Save CSV), {0}/sheet.csv and {0}/sample.json\n",
                     dir.string());
  return kOk;
}

int import(const AnnotateOptions& o, std::ostream& out, std::ostream& err) {
  if (o.adjudicated == !o.annotator.empty())
    return finish(Outcome::fail(kUsageError, "mirac annotate import: give --annotator NAME or --adjudicated"), err);
  Audit audit;
  if (int code = open_read_audit(o.audit, audit, err); code != kOk) return code;
  const std::string who = o.adjudicated ? "adjudicated" : o.annotator;
  AnnotationImport imported;
  Outcome done = import_annotations(audit, o.file, who, imported);
  if (!imported.diagnostics.all().empty()) imported.diagnostics.print(err, audit.sources());
  if (!done.ok()) return finish(done, err);
  out << fmt::format("annotate import {}: {} scores of {} answers stored for {}; store {}\n", o.file, imported.scores,
                     imported.answers, o.adjudicated ? "the adjudicated value" : "annotator " + who,
                     audit.run_dir.string());
  return kOk;
}

}  // namespace

void add_annotate_command(Commands& commands) {
  auto o = std::make_shared<AnnotateOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  CLI::App* annotate = commands.group("annotate", "human scores of stored answers: draw a sample to score, import the scores");
  CLI::App* sample_cmd = commands.add(annotate, "sample", "a stratified sample of stored answers as an annotation page and sheet",
                                      [o, &out, &err] { return sample(*o, out, err); });
  CLI::App* import_cmd = commands.add(annotate, "import", "a filled annotation sheet into the run store",
                                      [o, &out, &err] { return import(*o, out, err); });
  for (CLI::App* cmd : {sample_cmd, import_cmd}) {
    add_spec(cmd, o->audit);
    add_data(cmd, o->audit);
    add_answers(cmd, o->audit);
    add_read_store(cmd, o->audit);
    add_read_only(cmd, o->audit, cmd == sample_cmd ? "sample from" : "import the scores of");
  }
  sample_cmd->add_option("--n", o->sample.n, "answers to sample (default 230)");
  sample_cmd->add_option("--stratify", o->stratify, "variables to stratify by, e.g. model,language,hls");
  sample_cmd->add_flag("--equal", o->sample.equal, "equal allocation per stratum (default: proportional)");
  sample_cmd->add_option("--seed", o->sample.seed, "sampling seed (default 20260101)");
  sample_cmd->add_option("-o,--out", o->out_dir, "output directory (default: <run dir>/annotation)");
  import_cmd->add_option("file", o->file, "the filled sheet (CSV)")->required();
  import_cmd->add_option("--annotator", o->annotator, "who scored it");
  import_cmd->add_flag("--adjudicated", o->adjudicated, "the sheet holds the adjudicated values");
}

}  // namespace mirac::cli
