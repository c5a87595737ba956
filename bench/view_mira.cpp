// view_mira.cpp: `mirac view` on a full offline MIRA store (43,200 answers and 43,200
// judgments): the time to build the index the server answers from, the first page, and
// typical filters and pair queries (each page's texts read from the store), each the median
// of repeated runs, and the memory held after compiling and after building the index. Run
// from the source root after `build/mirac run specs/mira.audit --offline`:
//   cmake --build build --target bench_view_mira && build/bench/bench_view_mira [STORE_DIR [SPEC]]
// Prints timings only; nothing is asserted (docs/performance.md records the figures).
#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "engine/session.hpp"
#include "engine/view/index.hpp"
#include "engine/view/json.hpp"
#include "engine/view/query.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Median wall time of `runs` calls of `work`, in milliseconds.
double median_ms(int runs, const std::function<void()>& work) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    times.push_back(seconds_since(t0) * 1000.0);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The process's resident memory now, in MB (Linux: /proc/self/statm's second field, in pages).
double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  mirac::AuditOptions options;
  options.spec = argc > 2 ? argv[2] : "specs/mira.audit";
  options.offline = true;
  options.check_analyses = false;  // as `mirac view` compiles (cli/commands.cpp, open_read_audit)
  options.store = argc > 1 ? argv[1] : "runs/mira.offline";
  if (!std::filesystem::exists(std::filesystem::path(options.store) / "store.sqlite")) {
    std::cerr << "bench_view_mira: no store in " << options.store
              << " (run `build/mirac run specs/mira.audit --offline` first, or pass the run directory)\n";
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();
  mirac::Audit audit = mirac::open_audit(options);
  if (!audit.compilation || !audit.compilation->ok()) {
    std::cerr << "bench_view_mira: " << options.spec.string() << " does not compile\n";
    return 1;
  }
  const double compile_s = seconds_since(t0);
  const double compiled_mb = resident_mb();
  t0 = std::chrono::steady_clock::now();
  mirac::Outcome outcome;
  auto index = mirac::view::AnswerIndex::build(audit, outcome);
  if (!index) {
    std::cerr << "bench_view_mira: cannot read the store\n";
    return 1;
  }
  const double build_s = seconds_since(t0);
  const double indexed_mb = resident_mb();
  std::size_t scored = 0;
  for (const auto& r : index->rows()) scored += r.judging == mirac::view::Judging::scored;

  using mirac::view::Params;
  auto page = [&](const Params& params) {
    std::string error;
    const auto filter = mirac::view::parse_filter(*index, params, error);
    const auto rows = mirac::view::filter_rows(*index, filter);
    return mirac::view::answers_json(*index, rows, 0, 50).dump().size();
  };
  auto pairs = [&](const Params& params) {
    std::string error;
    const auto q = mirac::view::parse_pairs(*index, params, error);
    const auto result = mirac::view::find_pairs(*index, q);
    return mirac::view::pairs_json(*index, q, result, 0, 20).dump().size();
  };

  fmt::print("mirac view on {}: {} requests, {} scored\n", options.store, index->rows().size(), scored);
  fmt::print("  compile spec and plan          {:8.1f} ms\n", compile_s * 1000);
  fmt::print("  build the index from the store {:8.1f} ms\n", build_s * 1000);
  fmt::print("  first page (compile + index + page) {:.2f} s\n",
             compile_s + build_s + median_ms(1, [&] { page({}); }) / 1000.0);
  const std::vector<std::pair<const char*, Params>> answer_queries = {
      {"all answers, first page", {}},
      {"model=gpt", {{"model", "gpt"}}},
      {"language=zh&hls=low&register=colloquial", {{"language", "zh"}, {"hls", "low"}, {"register", "colloquial"}}},
      {"flag=UNDERINF_SIMP_SEVERE", {{"flag", "UNDERINF_SIMP_SEVERE"}}},
      {"model=qwen&arm=baseline&scored_on=D3", {{"model", "qwen"}, {"arm", "baseline"}, {"scored_on", "D3"}}},
      {"seed=seed_01", {{"seed", "seed_01"}}},
  };
  for (const auto& [name, params] : answer_queries)
    fmt::print("  answers {:46} {:8.2f} ms\n", name, median_ms(21, [&] { page(params); }));
  const std::vector<std::pair<const char*, Params>> pair_queries = {
      {"flag=DID_FLAG", {{"flag", "DID_FLAG"}}},
      {"flag=LANG_FLAG&model=llama", {{"flag", "LANG_FLAG"}, {"model", "llama"}}},
      {"factor=hls&a=low&b=high", {{"factor", "hls"}, {"a", "low"}, {"b", "high"}}},
  };
  for (const auto& [name, params] : pair_queries)
    fmt::print("  pairs   {:46} {:8.2f} ms\n", name, median_ms(21, [&] { pairs(params); }));
  fmt::print("  resident after compiling        {:8.0f} MB\n", compiled_mb);
  fmt::print("  resident with the index         {:8.0f} MB\n", indexed_mb);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  fmt::print("  peak resident memory           {:8.0f} MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
