// power.cpp: `mirac simulate`: replicates drawn from the declared truth, analysed, and
// summarised per quantity (power.hpp).
#include "engine/simulate/power.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/analyze/parts.hpp"
#include "engine/simulate/quantities.hpp"
#include "interpreter/model/diagnostics.hpp"
#include "interpreter/eval/cell_scope.hpp"
#include "interpreter/scores/simulate.hpp"
#include "runtime/stats/bootstrap.hpp"

namespace mirac {

namespace {

const std::set<std::string> kSimulatedKinds = {"lmm", "wilcoxon", "paired"};

std::vector<int> pick(const std::vector<std::string>& wanted, const std::vector<std::string>& names, const char* what) {
  std::vector<int> out;
  if (wanted.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (const auto& w : wanted) {
    auto it = std::find(names.begin(), names.end(), w);
    if (it == names.end())
      throw std::invalid_argument(with_suggestion(fmt::format("unknown {} '{}'", what, w), w, names));
    out.push_back(static_cast<int>(it - names.begin()));
  }
  return out;
}

// The spec with `n` seeds. Fewer than it has: every (N/n)th, so that a seed table sorted by
// category keeps its mix of categories (MIRA's first 30 seeds cover four of nine). More:
// all of them again under new ids ("12~2") until there are n, each copy keeping its fields
// and checklist.
Spec with_seeds(const Spec& spec, std::size_t n) {
  Spec out = spec;
  out.seeds.clear();
  const std::size_t have = spec.seeds.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Seed& from = n < have ? spec.seeds[i * have / n] : spec.seeds[i % have];
    Seed s = from;
    if (i >= spec.seeds.size()) {
      s.id = fmt::format("{}~{}", from.id, i / spec.seeds.size() + 1);
      if (auto c = spec.checklists.find(from.id); c != spec.checklists.end()) out.checklists[s.id] = c->second;
    }
    out.seeds.push_back(std::move(s));
  }
  return out;
}

// A replicate's warning with its numbers replaced by N, so that the same problem in many
// replicates ("not converged after 5 iterations: max |gradient| 1.2e-06") is counted as one.
std::string with_numbers_as_n(const std::string& message) {
  auto digit = [&](std::size_t k) { return k < message.size() && std::isdigit(static_cast<unsigned char>(message[k])); };
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    if (!digit(i) || (i > 0 && std::isalnum(static_cast<unsigned char>(message[i - 1])))) {
      out += message[i++];
      continue;
    }
    while (digit(i)) ++i;
    if (i < message.size() && message[i] == '.' && digit(i + 1))
      for (++i; digit(i);) ++i;
    if (i < message.size() && (message[i] == 'e' || message[i] == 'E')) {
      std::size_t k = i + 1;
      if (k < message.size() && (message[k] == '-' || message[k] == '+')) ++k;
      if (digit(k))
        for (i = k; digit(i);) ++i;
    }
    out += 'N';
  }
  return out;
}

// The design's cells with only the levels `levels` keeps of the factors it names.
std::vector<std::vector<int>> kept_cells(const Spec& spec,
                                         const std::vector<std::pair<std::string, std::vector<std::string>>>& levels) {
  std::vector<std::vector<int>> cells = cells_of(spec, spec.design);
  std::vector<std::string> factor_names;
  for (const auto& f : spec.factors) factor_names.push_back(f.name);
  for (const auto& [factor, kept] : levels) {
    const int f = pick({factor}, factor_names, "factor").front();
    const std::vector<std::string> level_names = spec.factors[static_cast<std::size_t>(f)].level_names();
    std::vector<int> keep;
    for (const auto& level : kept) {
      auto it = std::find(level_names.begin(), level_names.end(), level);
      if (it == level_names.end())
        throw std::invalid_argument(fmt::format("'{}' is not a level of '{}' ({})", level, factor,
                                                fmt::join(level_names, ", ")));
      keep.push_back(static_cast<int>(it - level_names.begin()));
    }
    std::erase_if(cells, [&](const std::vector<int>& cell) {
      return std::find(keep.begin(), keep.end(), cell[static_cast<std::size_t>(f)]) == keep.end();
    });
  }
  if (cells.empty()) throw std::invalid_argument("--levels leaves no cell of the design");
  return cells;
}

// One design: the spec with its seeds, the answers it has, the truth of every quantity.
struct Design {
  Spec spec;
  std::vector<analyze::ScoreRow> rows;
  std::unique_ptr<analyze::Simulator> simulator;
  std::vector<Estimated> truth;
};

struct ReplicateTally {
  std::vector<double> estimates;  ///< in replicate order (see by_replicate), once the work is done
  /// (replicate, estimate) as the threads finish them: sorted by replicate before any sum,
  /// so that a study gives the same numbers on any number of threads.
  std::vector<std::pair<std::size_t, double>> by_replicate;
  std::size_t with_interval = 0, covered = 0, tested = 0, rejected = 0;
};

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? Estimate::nan : s / static_cast<double>(v.size());
}

QuantitySummary summarise(const Estimated& truth, const ReplicateTally& t, std::size_t seeds) {
  QuantitySummary q;
  q.source = truth.id.source, q.kind = truth.id.kind, q.label = truth.id.label, q.seeds = seeds;
  q.truth = truth.value.estimate;
  q.null = std::abs(q.truth) < 1e-9;
  const double r = static_cast<double>(t.estimates.size());
  q.estimated = t.estimates.size();
  q.mean_estimate = mean_of(t.estimates);
  q.bias = q.mean_estimate - q.truth;
  double ss = 0, sq = 0, sq2 = 0;
  for (double e : t.estimates) {
    ss += (e - q.mean_estimate) * (e - q.mean_estimate);
    double d2 = (e - q.truth) * (e - q.truth);
    sq += d2, sq2 += d2 * d2;
  }
  q.empirical_se = r > 1 ? std::sqrt(ss / (r - 1)) : Estimate::nan;
  q.bias_mcse = r > 1 ? q.empirical_se / std::sqrt(r) : Estimate::nan;
  double mse = r > 0 ? sq / r : Estimate::nan;
  q.rmse = std::sqrt(mse);
  // Delta method on sqrt(MSE) (Morris, White and Crowther 2019, Table 6).
  double var_mse = r > 1 ? (sq2 / r - mse * mse) / (r - 1) : Estimate::nan;
  q.rmse_mcse = q.rmse > 0 ? std::sqrt(std::max(0.0, var_mse)) / (2 * q.rmse) : Estimate::nan;
  auto share = [](std::size_t k, std::size_t n, double& rate, double& mcse) {
    rate = n ? static_cast<double>(k) / static_cast<double>(n) : Estimate::nan;
    mcse = n ? std::sqrt(rate * (1 - rate) / static_cast<double>(n)) : Estimate::nan;
  };
  q.with_interval = t.with_interval;
  share(t.covered, t.with_interval, q.coverage, q.coverage_mcse);
  q.tested = t.tested;
  share(t.rejected, t.tested, q.rejection, q.rejection_mcse);
  return q;
}

// The contrasts and the analyses a simulation checks, of one table.
nlohmann::ordered_json analyse(const Spec& spec, const analyze::ScoreTable& table, const analyze::AnalyzeOptions& options,
                               SourceManager& sources, Diagnostics& diags) {
  analyze::Context ctx{spec, table, options, sources, diags};
  analyze::Output out;
  analyze::add_contrasts(ctx, out);
  analyze::add_analyses(ctx, out);
  return std::move(out.json);
}

}  // namespace

PowerStudy simulate_power(const Spec& spec, const PowerOptions& options, const SourceManager& sources,
                          const std::atomic<bool>& cancel, const PowerProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  if (!spec.simulate)
    throw std::invalid_argument("the spec declares no 'simulate' block, so there is no truth to draw from "
                                "(docs/simulation.md)");
  if (options.replicates == 0) throw std::invalid_argument("--replicates must be at least 1");
  if (spec.seeds.empty()) throw std::invalid_argument("the spec has no seeds");
  PowerStudy study;
  study.replicates = options.replicates;
  study.alpha = options.alpha;
  study.resamples = options.resamples;
  analyze::Simulator probe(spec, analyze::score_dimensions(spec));
  study.seed = options.seed.value_or(probe.seed());

  // What is studied: the contrasts, and the analyses of a kind with a truth to compare.
  Spec base = spec;
  // A ranging contrast is asked for by its own name (all its levels) or by one level's.
  std::vector<std::string> names;
  for (const auto& c : spec.contrasts) {
    for (const std::string* name : {&c.family, &c.name.name})
      if (!name->empty() && std::find(names.begin(), names.end(), *name) == names.end()) names.push_back(*name);
  }
  for (const auto& a : spec.analyses) names.push_back(a.name.name);
  pick(options.only, names, "contrast or analysis");
  auto wanted = [&](const std::string& name) {
    return options.only.empty() || std::find(options.only.begin(), options.only.end(), name) != options.only.end();
  };
  std::erase_if(base.contrasts,
                [&](const ast::ContrastDecl& c) { return !wanted(c.name.name) && (c.family.empty() || !wanted(c.family)); });
  std::erase_if(base.analyses, [&](const ast::AnalysisDecl& a) {
    if (!wanted(a.name.name)) return true;
    if (kSimulatedKinds.count(a.kind.name)) return false;
    study.skipped.push_back(fmt::format("{} ({}): {}", a.name.name, a.kind.name,
                                        a.kind.name == "clmm" ? "its coefficients are on the log-odds scale, which the "
                                                                "declared truth does not give"
                                                              : "not a model of the simulated scores"));
    return true;
  });
  std::vector<std::string> model_names, arm_names;
  for (const auto& m : spec.models) model_names.push_back(m.name);
  for (const auto& a : spec.arms) arm_names.push_back(a.name);
  const std::vector<int> models = pick(options.models, model_names, "model");
  const std::vector<int> arms = pick(options.arms, arm_names, "arm");
  const auto cells = kept_cells(spec, options.levels);
  if (options.answers == 0) throw std::invalid_argument("--answers must be at least 1");
  study.answers_per_prompt = options.answers;
  study.cells = cells.size();
  study.answers_per_design_seed = cells.size() * models.size() * arms.size() * options.answers;

  // The designs, each with its truth: the same analyses of the expected scores.
  study.designs = options.seeds.empty() ? std::vector<std::size_t>{spec.seeds.size()} : options.seeds;
  std::vector<Design> designs;
  SourceManager truth_sources = sources;
  for (std::size_t n : study.designs) {
    if (n < 2) throw std::invalid_argument("a design needs at least 2 seeds");
    Design d{with_seeds(base, n), {}, nullptr, {}};
    // K answers per prompt are K rows, as a run stores them, so that every analysis (pair
    // flags, noise floors, a `(1 | prompt)` term) sees what it would see in the audit.
    d.spec.answers = static_cast<int>(options.answers);
    for (std::size_t s = 0; s < n; ++s)
      for (const auto& cell : cells)
        for (int m : models)
          for (int a : arms)
            for (std::size_t k = 0; k < options.answers; ++k) {
              analyze::ScoreRow row;
              row.seed = static_cast<int>(s), row.model = m, row.arm = a, row.levels = cell;
              row.answer = static_cast<int>(k);
              d.rows.push_back(std::move(row));
            }
    d.simulator = std::make_unique<analyze::Simulator>(d.spec, analyze::score_dimensions(d.spec));
    d.simulator->prepare(d.rows);
    analyze::ScoreTable expected;
    d.simulator->expected(expected);
    Diagnostics quiet;
    analyze::AnalyzeOptions truth_options{.resamples = 10, .seed = study.seed, .partial = false};
    d.truth = read_quantities(analyse(d.spec, expected, truth_options, truth_sources, quiet));
    analyze::Context ctx{d.spec, expected, truth_options, truth_sources, quiet};
    for (const auto& a : d.spec.analyses) {
      if (a.kind.name != "lmm") continue;
      std::erase_if(d.truth, [&](const Estimated& e) { return e.id.source == a.name.name; });
      try {
        for (auto& e : least_squares_truth(ctx, a)) d.truth.push_back(std::move(e));
      } catch (const std::invalid_argument& e) {
        study.skipped.push_back(fmt::format("{} (lmm): {}", a.name.name, e.what()));
      }
    }
    designs.push_back(std::move(d));
  }

  // The replicates, shared out between threads; replicate r of every design draws from the
  // same stream, so a seed's scores are the same in a design of 30 seeds and one of 60.
  std::vector<std::unordered_map<std::string, ReplicateTally>> tallies(designs.size());
  std::map<std::string, std::size_t> warnings;
  std::mutex mutex;
  std::atomic<std::size_t> next{0}, done{0};
  const std::size_t total = designs.size() * options.replicates;
  auto work = [&] {
    SourceManager own = sources;
    analyze::ScoreTable table;
    for (std::size_t job; (job = next++) < total && !cancel.load();) {
      const std::size_t di = job / options.replicates, r = job % options.replicates;
      const Design& d = designs[di];
      const std::uint64_t stream = stats::stream_seed(study.seed, fmt::format("replicate/{}", r));
      d.simulator->draw(stream, table);
      Diagnostics diags;
      analyze::AnalyzeOptions ao{.resamples = options.resamples, .seed = stream, .partial = false};
      auto found = read_quantities(analyse(d.spec, table, ao, own, diags));
      std::lock_guard lock(mutex);
      for (const auto& dg : diags.all()) ++warnings[with_numbers_as_n(dg.message)];
      for (const auto& e : found) {
        ReplicateTally& t = tallies[di][e.id.key()];
        if (std::isnan(e.value.estimate)) continue;
        t.by_replicate.emplace_back(r, e.value.estimate);
        auto truth = std::find_if(d.truth.begin(), d.truth.end(), [&](const Estimated& x) { return x.id.key() == e.id.key(); });
        bool has_interval = !std::isnan(e.value.lower) && !std::isnan(e.value.upper);
        if (has_interval && truth != d.truth.end()) {
          ++t.with_interval;
          if (e.value.lower <= truth->value.estimate && truth->value.estimate <= e.value.upper) ++t.covered;
        }
        // Declared different from zero: by its p-value, or (a contrast) by an interval
        // that leaves zero out.
        if (!std::isnan(e.value.p)) {
          ++t.tested;
          if (e.value.p < options.alpha) ++t.rejected;
        } else if (has_interval) {
          ++t.tested;
          if (e.value.lower > 0 || e.value.upper < 0) ++t.rejected;
        }
      }
      const std::size_t finished = ++done;
      if (progress) progress(finished, total);
    }
  };
  std::vector<std::thread> pool;
  const unsigned threads = std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(total)));
  for (unsigned i = 1; i < threads; ++i) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the calling thread does the rest
    }
  }
  work();
  for (auto& t : pool) t.join();

  for (auto& design_tallies : tallies)
    for (auto& [key, t] : design_tallies) {
      std::sort(t.by_replicate.begin(), t.by_replicate.end());
      for (const auto& [replicate, estimate] : t.by_replicate) t.estimates.push_back(estimate);
    }
  for (std::size_t di = 0; di < designs.size(); ++di)
    for (const auto& truth : designs[di].truth)
      if (auto it = tallies[di].find(truth.id.key()); it != tallies[di].end())
        study.quantities.push_back(summarise(truth, it->second, study.designs[di]));
  for (const auto& [message, count] : warnings) study.warnings.emplace_back(message, count);
  study.replicates = done.load() / std::max<std::size_t>(1, designs.size());
  study.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return study;
}

nlohmann::ordered_json PowerStudy::to_json() const {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(); };
  nlohmann::ordered_json q = nlohmann::ordered_json::array();
  for (const auto& s : quantities)
    q.push_back({{"source", s.source}, {"kind", s.kind}, {"label", s.label}, {"seeds", s.seeds},
                 {"truth", num(s.truth)}, {"null", s.null}, {"estimated", s.estimated},
                 {"mean_estimate", num(s.mean_estimate)}, {"bias", num(s.bias)}, {"bias_mcse", num(s.bias_mcse)},
                 {"empirical_se", num(s.empirical_se)}, {"rmse", num(s.rmse)}, {"rmse_mcse", num(s.rmse_mcse)},
                 {"with_interval", s.with_interval}, {"coverage", num(s.coverage)},
                 {"coverage_mcse", num(s.coverage_mcse)}, {"tested", s.tested}, {"rejection", num(s.rejection)},
                 {"rejection_mcse", num(s.rejection_mcse)}});
  nlohmann::ordered_json w = nlohmann::ordered_json::array();
  for (const auto& [message, count] : warnings) w.push_back({{"message", message}, {"replicates", count}});
  return {{"replicates", replicates}, {"seed", seed}, {"alpha", alpha}, {"resamples", resamples},
          {"designs", designs}, {"answers_per_seed", answers_per_design_seed}, {"cells", cells},
          {"answers_per_prompt", answers_per_prompt}, {"seconds", num(seconds)},
          {"skipped", skipped}, {"warnings", w}, {"quantities", q}};
}

}  // namespace mirac
