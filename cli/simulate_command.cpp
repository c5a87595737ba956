// simulate_command.cpp: `mirac simulate`: a power and recovery study from the spec's
// declared truth (engine/simulate), printed as a table and written as files.
#include <chrono>
#include <cmath>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "engine/simulate/power_report.hpp"

namespace mirac::cli {

namespace {

struct SimulateOptions {
  AuditOptions audit;
  PowerOptions power;
  std::string seeds, models, arms, only, out;
  std::vector<std::string> levels;  ///< FACTOR=LEVEL,LEVEL, one per --levels
  std::uint64_t seed = 0;
  bool json = false;
  bool answers_from_spec = false;  ///< no --answers: the spec's `answers`
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string cell(double x, double mcse) {
  if (!std::isfinite(x)) return "-";
  return std::isfinite(mcse) ? fmt::format("{:.3f}±{:.3f}", x, mcse) : fmt::format("{:.3f}", x);
}

void print_table(const PowerStudy& s, std::ostream& out) {
  std::size_t width = 8;
  for (const auto& q : s.quantities) width = std::max(width, q.source.size() + 1 + q.label.size());
  out << fmt::format("{:<{}} {:>5} {:>7} {:>8} {:>13} {:>13} {:>13} {:>13}\n", "quantity", width, "seeds", "truth",
                     "estimate", "bias", "rmse", "coverage", "rejected");
  for (const auto& q : s.quantities)
    out << fmt::format("{:<{}} {:>5} {:>+7.3f} {:>8.3f} {:>13} {:>13} {:>13} {:>13}{}\n", q.source + " " + q.label, width,
                       q.seeds, q.truth, q.mean_estimate, cell(q.bias, q.bias_mcse), cell(q.rmse, q.rmse_mcse),
                       cell(q.coverage, q.coverage_mcse), cell(q.rejection, q.rejection_mcse),
                       q.null ? "  (type I)" : "");
}

int run_simulate(SimulateOptions& o, std::ostream& out, std::ostream& err) {
  o.audit.offline = true;  // nothing is sent; the models' keys and prices do not matter
  Audit audit = open_audit(o.audit);
  if (int code = print_compiled(audit, err); code != kOk) return code;
  if (o.answers_from_spec) o.power.answers = static_cast<std::size_t>(audit.spec().answers);
  try {
    for (const auto& n : split(o.seeds)) {
      std::size_t used = 0;
      unsigned long long v = std::stoull(n, &used);
      if (used != n.size()) throw std::invalid_argument("");
      o.power.seeds.push_back(v);
    }
  } catch (const std::exception&) {
    err << fmt::format("error: --seeds takes numbers of seeds separated by commas (30,60,120), not '{}'\n", o.seeds);
    return kUsageError;
  }
  for (const auto& l : o.levels) {
    const auto eq = l.find('=');
    if (eq == std::string::npos || eq == 0 || split(l.substr(eq + 1)).empty()) {
      err << fmt::format("error: --levels takes FACTOR=LEVEL,LEVEL (language=zh,en), not '{}'\n", l);
      return kUsageError;
    }
    o.power.levels.emplace_back(l.substr(0, eq), split(l.substr(eq + 1)));
  }
  o.power.models = split(o.models);
  o.power.arms = split(o.arms);
  o.power.only = split(o.only);
  InterruptGuard interrupt;
  RunHooks hooks = progress_hooks("simulate", err);
  const auto started = std::chrono::steady_clock::now();
  PowerStudy study;
  try {
    study = simulate_power(audit.spec(), o.power, audit.sources(), interrupt.cancelled(),
                           [&](std::size_t done, std::size_t total) {
                             if (!hooks.on_progress) return;
                             Progress p;
                             p.done = done, p.total = total;
                             p.final = done == total;
                             p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                             p.rate_per_s = p.elapsed_s > 0 ? static_cast<double>(done) / p.elapsed_s : 0;
                             p.eta_s = p.rate_per_s > 0 ? static_cast<double>(total - done) / p.rate_per_s : -1;
                             hooks.on_progress(p);
                           });
  } catch (const std::invalid_argument& e) {
    err << "error: " << e.what() << '\n';
    return kUsageError;
  }
  const std::filesystem::path dir = o.out.empty() ? audit.run_dir / "simulation" : std::filesystem::path(o.out);
  if (std::string e = report::write_reports(power_files(audit.spec(), study), dir); !e.empty()) {
    err << "error: " << e << '\n';
    return kRunError;
  }
  if (o.json) {
    out << study.to_json().dump(2) << '\n';
  } else {
    print_table(study, out);
    for (const auto& why : study.skipped) out << "not simulated: " << why << '\n';
    for (const auto& [message, count] : study.warnings)
      out << fmt::format("warning in {} replicates: {}\n", count, message);
    out << fmt::format("{} replicates per design in {:.1f} s; wrote {}/power.json, power.csv and power.html\n",
                       study.replicates, study.seconds, dir.string());
  }
  return interrupt.cancelled().load() ? kRunError : kOk;
}

}  // namespace

void add_simulate_command(Commands& commands) {
  auto o = std::make_shared<SimulateOptions>();
  std::ostream& out = commands.out;
  std::ostream& err = commands.err;
  auto answers_given = std::make_shared<CLI::Option*>(nullptr);
  CLI::App* cmd = commands.add("simulate", "power and recovery: many audits drawn from the spec's simulate block",
                               [o, &out, &err, answers_given] {
                                 if (o->seed) o->power.seed = o->seed;
                                 o->answers_from_spec = *answers_given && (*answers_given)->count() == 0;
                                 return run_simulate(*o, out, err);
                               });
  add_spec(cmd, o->audit);
  add_data(cmd, o->audit);
  cmd->add_option("--replicates", o->power.replicates, "simulated audits per design (default 200)");
  cmd->add_option("--seeds", o->seeds, "designs by number of seeds, e.g. 30,60,120 (default: the spec's seeds)");
  cmd->add_option("--models", o->models, "only these models, e.g. gpt,llama");
  cmd->add_option("--arms", o->arms, "only these arms");
  cmd->add_option("--levels", o->levels, "fewer cells: only these levels of a factor, e.g. condition=B (repeatable)")
      ->allow_extra_args(false);
  *answers_given = cmd->add_option("--answers", o->power.answers,
                                   "answers per prompt, their mean scored (default: the spec's `answers`, else 1)")
                       ->check(CLI::PositiveNumber);
  cmd->add_option("--only", o->only, "only these contrasts and analyses, e.g. DTI_hls,rq1_d3");
  cmd->add_option("--alpha", o->power.alpha, "significance level (default 0.05)");
  cmd->add_option("--resamples", o->power.resamples, "bootstrap resamples per contrast interval (default 500)");
  cmd->add_option("--seed", o->seed, "random seed (default: the simulate block's)");
  cmd->add_option("--threads", o->power.threads, "threads (default 2)");
  cmd->add_option("--out", o->out, "output directory (default <run dir>/simulation)");
  cmd->add_flag("--json", o->json, "print power.json instead of the table");
}

}  // namespace mirac::cli
