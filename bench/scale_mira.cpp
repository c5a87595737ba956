// scale_mira.cpp: issue 29's figures, every command's cost at 1x and at FACTOR x MIRA. The
// larger audit is specs/mira.audit grown by models: a spec extending it declares
// 5 (FACTOR - 1) more models, so at 10x it asks 432,000 answers and judges them. Each
// command is run on the mirac binary as a user runs it (bench/measure_process.hpp): the
// whole offline run, `mirac analyze`, a warm rerun (everything stored), `mirac status`,
// `mirac export ... scores` and `mirac plan`, with wall time and peak memory, then the
// FACTORx / 1x ratios. `mirac view` is measured by bench_view_mira on either store.
// Run from the source root:
//   cmake --build build --target mirac bench_scale_mira
//   build/bench/bench_scale_mira [MIRAC [DATA [WORK_DIR [FACTOR]]]]
// (defaults build/mirac, ../shared/mira-release, /tmp/mirac-bench-scale, 10). FACTOR
// `780k` runs issue 29's realistic larger audit instead, its whole run only: 20 models x
// 3 arms x 4,320 prompts x 3 answers (777,600 answers and as many judgments). Prints
// figures only; nothing is asserted (docs/performance.md records them).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/measure_process.hpp"

namespace {

namespace fs = std::filesystem;

// The audit at `factor` times MIRA's answers: MIRA's spec (factor 1) or a spec extending
// it with 5 (factor - 1) models of its own names, written into `dir`.
fs::path scaled_spec(const fs::path& base, const fs::path& dir, int factor) {
  if (factor == 1) return base;
  const fs::path path = dir / fmt::format("mira{}x.audit", factor);
  std::ofstream out(path);
  out << fmt::format("audit mira{}x extends \"{}\" {{\n  title \"MIRA with {} times its models\"\n}}\n\n", factor,
                     fs::absolute(base).string(), factor);
  for (int i = 0; i < 5 * (factor - 1); ++i)
    out << fmt::format("model extra{} = openai(\"gpt-5.4-extra{}\") {{ groups {{ family \"Non-GPT\" }} }}\n", i, i);
  return path;
}

// Issue 29's larger audit: MIRA with 15 more models and a third arm, asked 3 answers a prompt.
fs::path spec_780k(const fs::path& base, const fs::path& dir) {
  const fs::path path = dir / "mira780k.audit";
  std::ofstream out(path);
  out << fmt::format("audit mira780k extends \"{}\" {{\n  title \"MIRA at 20 models, 3 arms and 3 answers a prompt\"\n}}\n",
                     fs::absolute(base).string());
  for (int i = 0; i < 15; ++i)
    out << fmt::format("model extra{} = openai(\"gpt-5.4-extra{}\") {{ groups {{ family \"Non-GPT\" }} }}\n", i, i);
  out << "arm concise { system \"Answer in at most three sentences.\" }\n";
  return path;
}

struct Figures {
  std::map<std::string, bench::Measured> by_command;
  std::vector<std::string> order;
  void add(const std::string& name, const bench::Measured& m) {
    by_command[name] = m;
    order.push_back(name);
  }
};

Figures measure(const std::string& mirac, const fs::path& spec, const std::string& data, const fs::path& work) {
  const fs::path store = work / (spec.stem().string() + ".store");
  std::error_code ec;
  fs::remove_all(store, ec);
  const std::vector<std::string> where = {"--data", data, "--store", store.string()};
  auto with = [&](std::vector<std::string> args, bool offline = true) {
    if (offline) args.push_back("--offline");
    args.insert(args.end(), where.begin(), where.end());
    return args;
  };
  Figures f;
  f.add("whole run", bench::run(with({mirac, "run", spec.string()})));
  f.add("analyze", bench::median_of(3, with({mirac, "analyze", spec.string()})));
  f.add("warm rerun", bench::median_of(3, with({mirac, "run", spec.string()})));
  f.add("status", bench::median_of(3, with({mirac, "status", spec.string()})));
  f.add("export scores", bench::median_of(3, with({mirac, "export", spec.string(), "scores"})));
  f.add("plan", bench::median_of(3, {mirac, "plan", spec.string(), "--data", data}));
  for (const auto& name : f.order) {
    const bench::Measured& m = f.by_command[name];
    fmt::print("  {:14} exit {}  {:8.2f} s wall  {:8.2f} s CPU  peak {:7.0f} MiB\n", name, m.status, m.wall_s,
               m.user_s + m.system_s, static_cast<double>(m.peak_kib) / 1024.0);
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mirac = fs::absolute(argc > 1 ? argv[1] : "build/mirac").string();
  const std::string data = argc > 2 ? argv[2] : "../shared/mira-release";
  const fs::path work = argc > 3 ? argv[3] : "/tmp/mirac-bench-scale";
  const std::string factor_arg = argc > 4 ? argv[4] : "10";
  const int factor = factor_arg == "780k" ? 2 : std::atoi(factor_arg.c_str());
  const fs::path base = "specs/mira.audit";
  if (!fs::exists(mirac) || !fs::exists(base) || !fs::exists(data) || factor < 2) {
    std::cerr << "bench_scale_mira: needs " << mirac << ", " << base.string() << " and " << data
              << " and a factor of at least 2 (run from the source root, or pass them)\n";
    return 1;
  }
  std::error_code ec;
  fs::create_directories(work, ec);
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  if (factor_arg == "780k") {
    const fs::path spec = spec_780k(base, work);
    const fs::path store = work / "mira780k.store";
    fs::remove_all(store, ec);
    fmt::print("mirac {}, {} with {}; load average {:.2f} {:.2f} {:.2f}\n", mirac, spec.string(), data, load[0], load[1],
               load[2]);
    const bench::Measured m = bench::run({mirac, "run", spec.string(), "--offline", "--answers", "3", "--data", data,
                                          "--store", store.string()});
    fmt::print("  whole run      exit {}  {:8.2f} s wall  {:8.2f} s CPU  peak {:7.0f} MiB\n", m.status, m.wall_s,
               m.user_s + m.system_s, static_cast<double>(m.peak_kib) / 1024.0);
    return m.status == 0 ? 0 : 1;
  }
  fmt::print("mirac {}, MIRA at 1x and {}x with {}; load average {:.2f} {:.2f} {:.2f}\n", mirac, factor, data, load[0],
             load[1], load[2]);
  fmt::print("\n1x (specs/mira.audit):\n");
  const Figures one = measure(mirac, base, data, work);
  const fs::path big = scaled_spec(base, work, factor);
  fmt::print("\n{}x ({}):\n", factor, big.string());
  const Figures many = measure(mirac, big, data, work);
  fmt::print("\n{}x / 1x:\n", factor);
  for (const auto& name : one.order) {
    const bench::Measured& a = one.by_command.at(name);
    const bench::Measured& b = many.by_command.at(name);
    fmt::print("  {:14} time {:5.1f}   peak memory {:5.1f}\n", name, a.wall_s > 0 ? b.wall_s / a.wall_s : 0.0,
               a.peak_kib > 0 ? static_cast<double>(b.peak_kib) / static_cast<double>(a.peak_kib) : 0.0);
  }
  return 0;
}
