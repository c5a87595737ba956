// simulate_mira.cpp: `mirac simulate` on specs/mira.audit: R replicates of the whole MIRA
// analysis (3 contrasts x 5 models with bootstrap intervals, three LMMs, the Wilcoxon
// family, the paired comparison) on 43,200 drawn scores each. Run from the source root:
//   cmake --build build --target bench_simulate_mira
//   build/bench/bench_simulate_mira [RELEASE_DIR] [REPLICATES] [THREADS]
// Prints timings only; nothing is asserted (docs/performance.md records the figures).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>

#include "engine/audit.hpp"
#include "engine/simulate/power.hpp"

int main(int argc, char** argv) {
  const std::filesystem::path release = argc > 1 ? argv[1] : "../shared/mira-release";
  const std::size_t replicates = argc > 2 ? std::stoul(argv[2]) : 200;
  const unsigned threads = argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 2;
  if (!std::filesystem::exists(release / "seedfinal.csv")) {
    std::cerr << "bench_simulate_mira: no release at " << release << " (pass its directory)\n";
    return 1;
  }
  mirac::AuditOptions o;
  o.spec = "specs/mira.audit";
  o.data = release.string();
  o.offline = true;
  mirac::Audit audit = mirac::open_audit(o);
  if (!audit.ok()) {
    audit.diagnostics().print(std::cerr, audit.sources());
    return 1;
  }
  mirac::PowerOptions options;
  options.replicates = replicates;
  options.threads = threads;
  std::atomic<bool> cancel{false};
  const auto t0 = std::chrono::steady_clock::now();
  const mirac::PowerStudy study = mirac::simulate_power(audit.spec(), options, audit.sources(), cancel);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << replicates << " replicates of the MIRA analysis on " << threads << " threads: " << s << " s ("
            << s / static_cast<double>(replicates) << " s per replicate, " << study.quantities.size()
            << " quantities, " << options.resamples << " bootstrap resamples per contrast interval)\n";
  return 0;
}
