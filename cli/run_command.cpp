#include "cli/run_command.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/analyze_command.hpp"
#include "cli/status_command.hpp"
#include "interpreter/driver.hpp"
#include "runtime/judge/judge_phase.hpp"
#include "runtime/providers/environment.hpp"
#include "runtime/scheduler/run_plan.hpp"
#include "runtime/store/store.hpp"

namespace mirac {

namespace {

constexpr int kOk = 0, kSpecError = 1, kUsageError = 2, kRunError = 4;

// The one piece of process-wide state: a signal handler can only reach a global.
std::atomic<bool> g_cancel{false};
extern "C" void on_sigint(int) { g_cancel.store(true); }

struct Selected {
  std::vector<ModelCall> calls;
  std::vector<const RequestRow*> rows;
};

// --only key=value,...: the same filter as `mirac status` (misspelt levels are errors).
bool select_requests(const Spec& spec, const Plan& plan, const RunCommandOptions& o, Selected& out, std::ostream& err) {
  OnlyFilter only;
  std::string error;
  if (!parse_only(o.only, spec, true, only, error)) {
    err << "mirac: " << error << '\n';
    return false;
  }
  for (const auto& r : plan.requests) {
    const PromptRow& p = plan.prompts[r.prompt];
    bool ok = only.keeps("model", spec.models[r.model].name) && only.keeps("arm", spec.arms[r.arm].name) &&
              only.keeps("seed", p.seed);
    for (std::size_t f = 0; ok && f < spec.factors.size(); ++f)
      ok = only.keeps(spec.factors[f].name, spec.factors[f].levels[p.levels[f]].name.name);
    if (!ok) continue;
    out.calls.push_back(r.call);
    out.rows.push_back(&r);
    if (o.limit > 0 && out.calls.size() >= o.limit) break;
  }
  return true;
}

}  // namespace

SchedulerOptions scheduler_options(const Spec& spec, const RunCommandOptions& o) {
  SchedulerOptions s;
  for (const auto& [name, provider] : spec.providers) {
    ProviderLimits limits = s.default_limits;
    const auto& cfg = provider.settings;
    if (cfg.contains("concurrency") && cfg["concurrency"].is_number()) limits.max_in_flight = cfg["concurrency"].get<int>();
    if (cfg.contains("rpm") && cfg["rpm"].is_number()) limits.rpm = cfg["rpm"].get<double>();
    if (cfg.contains("tpm") && cfg["tpm"].is_number()) limits.tpm = cfg["tpm"].get<double>();
    if (o.concurrency > 0) limits.max_in_flight = o.concurrency;
    s.provider_limits[name] = limits;
  }
  // Prices as check resolved them (a model's own `price`, else its provider's `prices`
  // table), keyed by model string as the scheduler bills. Judges are paid calls too. One
  // model string priced twice (check warns) keeps the higher of each part, so that a
  // budget errs towards stopping early.
  auto add_price = [&](const std::string& model, const std::optional<Price>& p) {
    if (!p) return;
    auto [it, fresh] = s.prices.try_emplace(model, ModelPrice{p->input, p->output});
    if (fresh) return;
    if (p->input > it->second.input_per_mtok) it->second.input_per_mtok = p->input;
    if (p->output > it->second.output_per_mtok) it->second.output_per_mtok = p->output;
  };
  for (const auto& m : spec.models) add_price(m.model, m.price);
  for (const auto& j : spec.judges) add_price(j.model, j.price);
  // Rewriters (`mirac rewrite`) are priced from their provider's table.
  for (const auto& v : spec.variants) {
    if (!v.rewriter) continue;
    auto provider = spec.providers.find(v.rewriter->preset.name);
    if (provider == spec.providers.end()) continue;
    auto price = provider->second.prices.find(v.rewriter->model.value);
    if (price != provider->second.prices.end()) add_price(v.rewriter->model.value, price->second);
  }
  s.budget_usd = o.budget_usd;
  return s;
}


std::filesystem::path run_dir(const Spec& spec, const RunCommandOptions& o) {
  if (!o.store.empty()) return o.store;
  // Offline answers live apart, so a real run's store never mixes with simulated ones.
  return std::filesystem::path("runs") / (o.offline ? spec.name + ".offline" : spec.name);
}

std::unique_ptr<Compilation> compile_spec(const RunCommandOptions& o, std::ostream& err) {
  CheckOptions c;
  if (!o.data.empty()) c.data_root = o.data;
  if (const char* env = std::getenv("MIRAC_DATA"); env && *env) c.env_data_root = env;
  c.offline = o.offline;
  auto compilation = compile(o.spec, c);
  compilation->diags.print(err, compilation->sources);
  return compilation;
}

namespace {

// Progress of one phase: a bar on a terminal, a line every ten seconds otherwise.
RunHooks progress_hooks(const std::string& phase, std::ostream& err) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  RunHooks hooks;
  hooks.on_progress = [&err, phase, terminal](const Progress& p) {
    if (terminal)
      err << '\r' << fmt::format("{:<8} ", phase) << format_progress_bar(p, 30) << (p.final ? "\n" : "") << std::flush;
    else if (p.final || static_cast<long>(p.elapsed_s) % 10 == 0)
      err << fmt::format("{:<8} ", phase) << format_progress(p) << '\n';
  };
  hooks.log = [&err, terminal](const std::string& line) { err << (terminal ? "\n" : "") << line << '\n'; };
  return hooks;
}

std::string format_judge_summary(const std::string& judge, const JudgePhaseSummary& s) {
  std::string out = fmt::format("judge {}: {} answers, {} scored, {} unusable replies, {} failed, {} pending\n", judge,
                                s.answers, s.scored, s.invalid, s.failed, s.pending);
  for (const auto& p : s.problems) out += "  unusable reply: " + p + "\n";
  for (const auto& r : s.rounds)
    if (!r.fatal_error.empty() || r.cancelled || !r.messages.empty()) out += format_summary(r);
  return out;
}

// Scoped SIGINT handler: Ctrl-C sets g_cancel, which every phase checks.
struct InterruptGuard {
  InterruptGuard() : previous(std::signal(SIGINT, on_sigint)) { g_cancel.store(false); }
  ~InterruptGuard() { std::signal(SIGINT, previous); }
  void (*previous)(int);
};

}  // namespace

// The pipeline: answers, then judging, then the analysis of everything scored. Each
// phase reads and writes the store, so a rerun picks up wherever the last one stopped.
int cmd_run(const RunCommandOptions& o, std::ostream& out, std::ostream& err) {
  auto c = compile_spec(o, err);
  if (!c->ok()) return kSpecError;
  const Spec& spec = c->spec;
  Selected selected;
  if (!select_requests(spec, c->plan, o, selected, err)) return kUsageError;
  const std::filesystem::path dir = run_dir(spec, o);
  out << fmt::format("run {}{}: {} requests, store {}\n", spec.name, o.offline ? " (offline: simulated answers)" : "",
                     selected.calls.size(), dir.string());
  // The judges' keys are checked before any answer is paid for: a run that could not
  // judge what it bought would stop halfway.
  if (!o.answers_only) {
    std::vector<ModelCall> judge_probes;
    for (const auto& j : spec.judges) {
      auto provider = spec.providers.find(j.provider);
      if (provider == spec.providers.end()) continue;
      ModelCall probe;
      probe.provider = provider->second.name;
      probe.key_env = provider->second.key_env;
      probe.model = j.model;
      judge_probes.push_back(std::move(probe));
    }
    if (auto missing = missing_keys(judge_probes, ProcessEnvironment{}); !missing.empty()) {
      err << "mirac: judging needs API keys that are not set; nothing was sent:\n";
      for (const auto& m : missing)
        err << fmt::format("  {} (needed by the judge on {})\n", m.key_env, fmt::join(m.providers, ", "));
      err << "set them, or collect the answers alone with --answers-only\n";
      return kRunError;
    }
  }
  SchedulerOptions options = scheduler_options(spec, o);
  if (o.budget_usd && !o.answers_only) {  // likewise a budget needs the judges' prices up front
    std::vector<ModelCall> judge_calls;
    for (const auto& j : spec.judges) {
      auto provider = spec.providers.find(j.provider);
      ModelCall probe;
      probe.key_env = provider == spec.providers.end() ? "" : provider->second.key_env;
      probe.model = j.model;
      judge_calls.push_back(std::move(probe));
    }
    if (auto unpriced = unpriced_models(judge_calls, options.prices); !unpriced.empty()) {
      err << fmt::format("mirac: a budget needs a price for every judge too; no price for: {}. Nothing was sent.\n",
                         fmt::join(unpriced, ", "));
      return kRunError;
    }
  }
  InterruptGuard interrupt;

  RunSummary answers = run_plan(selected.calls, dir, options, g_cancel, progress_hooks("answers", err));
  out << format_summary(answers);
  if (!answers.fatal_error.empty() || answers.cancelled) return kRunError;
  bool complete = answers.failed == 0 && answers.not_sent.empty();
  if (o.answers_only) return complete ? kOk : kRunError;

  std::vector<std::size_t> rows;
  for (const RequestRow* r : selected.rows) rows.push_back(static_cast<std::size_t>(r - c->plan.requests.data()));
  for (std::size_t j = 0; j < spec.judges.size(); ++j) {
    if (options.budget_usd) {  // one budget for the whole run
      double spent = answers.spend_usd;
      *options.budget_usd = std::max(0.0, *o.budget_usd - spent);
    }
    JudgeBuilder judge(spec, c->sources, static_cast<int>(j));
    JudgePhaseSummary judged = run_judge_phase(spec, c->plan, judge, dir, rows, o.repairs, options, g_cancel,
                                               progress_hooks("judge", err));
    out << format_judge_summary(spec.judges[j].name, judged);
    for (const auto& r : judged.rounds) answers.spend_usd += r.spend_usd;
    if (judged.stopped) return kRunError;
    complete = complete && judged.pending == 0 && judged.failed == 0 && judged.invalid == 0;
  }
  if (!spec.judges.empty()) {
    AnalyzeCommandOptions ao;
    ao.repairs = o.repairs;
    const std::filesystem::path results = o.out_dir.empty() ? dir / "results" : std::filesystem::path(o.out_dir);
    if (int rc = analyze_run_store(*c, dir, results, ao, out, err); rc != kOk) return rc == kSpecError ? kSpecError : kRunError;
  }
  return complete ? kOk : kRunError;
}

}  // namespace mirac
