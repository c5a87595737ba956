#include "cli/run_command.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>
#include <unistd.h>

#include <fmt/format.h>

#include "interpreter/driver.hpp"
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

// --only key=value,key=value: every key must be a factor, model, arm or seed.
bool select_requests(const Spec& spec, const Plan& plan, const RunCommandOptions& o, Selected& out, std::ostream& err) {
  std::map<std::string, std::set<std::string>> only;
  for (std::size_t start = 0; start < o.only.size();) {
    std::size_t comma = o.only.find(',', start);
    std::string item = o.only.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? o.only.size() : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      err << fmt::format("mirac: --only expects key=value items, got '{}'\n", item);
      return false;
    }
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key != "model" && key != "arm" && key != "seed" && spec.factor_index(key) < 0) {
      err << fmt::format("mirac: --only: '{}' is neither a factor nor model, arm or seed\n", key);
      return false;
    }
    only[key].insert(value);
  }
  for (const auto& r : plan.requests) {
    const PromptRow& p = plan.prompts[r.prompt];
    auto keep = [&](const std::string& key, const std::string& value) {
      auto it = only.find(key);
      return it == only.end() || it->second.count(value);
    };
    bool ok = keep("model", spec.models[r.model].name) && keep("arm", spec.arms[r.arm].name) && keep("seed", p.seed);
    for (std::size_t f = 0; ok && f < spec.factors.size(); ++f)
      ok = keep(spec.factors[f].name, spec.factors[f].levels[p.levels[f]].name.name);
    if (!ok) continue;
    out.calls.push_back(r.call);
    out.rows.push_back(&r);
    if (o.limit > 0 && out.calls.size() >= o.limit) break;
  }
  return true;
}

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
  // Prices: a model's settings may carry `price { input 2.5 output 10 }` (USD per million tokens).
  for (const auto& m : spec.models) {
    if (!m.params.contains("price")) continue;
    const auto& p = m.params["price"];
    s.prices[m.model] = ModelPrice{p.value("input", 0.0), p.value("output", 0.0)};
  }
  s.budget_usd = o.budget_usd;
  return s;
}

}  // namespace

std::filesystem::path run_dir(const Spec& spec, const RunCommandOptions& o) {
  return o.store.empty() ? std::filesystem::path("runs") / spec.name : std::filesystem::path(o.store);
}

std::unique_ptr<Compilation> compile_spec(const RunCommandOptions& o, std::ostream& err) {
  CheckOptions c;
  if (!o.data.empty()) c.data_root = o.data;
  if (const char* env = std::getenv("MIRAC_DATA"); env && *env) c.env_data_root = env;
  auto compilation = compile(o.spec, c);
  compilation->diags.print(err, compilation->sources);
  return compilation;
}

int cmd_run(const RunCommandOptions& o, std::ostream& out, std::ostream& err) {
  auto c = compile_spec(o, err);
  if (!c->ok()) return kSpecError;
  Selected selected;
  if (!select_requests(c->spec, c->plan, o, selected, err)) return kUsageError;
  std::filesystem::path dir = run_dir(c->spec, o);
  out << fmt::format("run {}: {} requests, store {}\n", c->spec.name, selected.calls.size(), dir.string());

  g_cancel.store(false);
  auto previous = std::signal(SIGINT, on_sigint);
  bool terminal = isatty(STDERR_FILENO) != 0;
  RunHooks hooks;
  hooks.on_progress = [&](const Progress& p) {
    if (terminal) err << '\r' << format_progress_bar(p, 30) << (p.final ? "\n" : "") << std::flush;
    else if (p.final || static_cast<long>(p.elapsed_s) % 10 == 0) err << format_progress(p) << '\n';
  };
  hooks.log = [&](const std::string& line) { err << (terminal ? "\n" : "") << line << '\n'; };
  RunSummary summary = run_plan(selected.calls, dir, scheduler_options(c->spec, o), g_cancel, hooks);
  std::signal(SIGINT, previous);
  out << format_summary(summary);
  if (!summary.fatal_error.empty()) return kRunError;
  return summary.failed > 0 || summary.cancelled ? kRunError : kOk;
}

int cmd_status(const RunCommandOptions& o, std::ostream& out, std::ostream& err) {
  auto c = compile_spec(o, err);
  if (!c->ok()) return kSpecError;
  std::filesystem::path dir = run_dir(c->spec, o);
  if (!std::filesystem::exists(dir / "store.sqlite")) {
    out << fmt::format("{}: nothing run yet ({} requests pending; store {})\n", c->spec.name, c->plan.requests.size(),
                       dir.string());
    return kOk;
  }
  std::string error;
  auto store = Store::open(dir, error);
  if (!store) {
    err << "mirac: " << error << '\n';
    return kRunError;
  }
  std::vector<std::string> all;
  for (const auto& r : c->plan.requests) all.push_back(r.call.hash);
  out << "all        " << format_status(store->status(all)) << '\n';
  for (std::size_t m = 0; m < c->spec.models.size(); ++m) {
    for (std::size_t a = 0; a < c->spec.arms.size(); ++a) {
      std::vector<std::string> hashes;
      for (const auto& r : c->plan.requests)
        if (r.model == static_cast<int>(m) && r.arm == static_cast<int>(a)) hashes.push_back(r.call.hash);
      out << fmt::format("{:<10} {}\n", c->spec.models[m].name + "/" + c->spec.arms[a].name, format_status(store->status(hashes)));
    }
  }
  out << fmt::format("spend so far: ${:.2f}\n", store->total_spend());
  return kOk;
}

}  // namespace mirac
