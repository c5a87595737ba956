// smoke_main.cpp: runs parser_fuzz.cpp without libFuzzer, for compilers that lack it:
// every seed file, then a fixed, seeded set of mutations of them (byte flips, insertions
// of grammar tokens, truncations, splices). Deterministic, so a failure reproduces.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

namespace {

constexpr int kMutationsPerSeed = 300;

// Pieces that steer mutations towards interesting places in the grammar.
constexpr std::array<std::string_view, 24> kTokens = {
    "\"", "\"\"\"", "{", "}", "(", ")", "[", "]", "/*", "*/", "//", "\\u{", "\\", "\n", "..", "=", "==",
    "not ", " and ", "if a then b else c", "pair(f: a vs b)", "1e999", "\xE4\xB8\xAD", "\xFF"};

std::vector<std::string> read_seeds(int argc, char** argv) {
  std::vector<std::string> seeds;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) continue;
    for (const auto& e : fs::recursive_directory_iterator(argv[i]))
      if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    seeds.push_back(s.str());
  }
  return seeds;
}

std::string mutate(const std::string& seed, const std::string& other, std::mt19937& rng) {
  std::string s = seed;
  auto pick = [&](std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  int edits = 1 + static_cast<int>(pick(4));
  for (int e = 0; e < edits; ++e) {
    std::size_t at = pick(s.size() + 1);
    switch (pick(5)) {
      case 0:  // flip a byte
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << pick(8));
        break;
      case 1:  // insert a token
        s.insert(at, kTokens[pick(kTokens.size())]);
        break;
      case 2:  // delete a run
        s.erase(at, pick(16));
        break;
      case 3:  // truncate
        s.resize(at);
        break;
      default:  // splice in a piece of another seed
        std::size_t from = pick(other.size() + 1);
        s.insert(at, other.substr(from, pick(200)));
        break;
    }
  }
  return s;
}

int run(const std::string& input) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> seeds = read_seeds(argc, argv);
  if (seeds.empty()) {
    std::fprintf(stderr, "parser_fuzz_smoke: no seed files under the given directories\n");
    return 1;
  }
  std::mt19937 rng(20260530);
  std::size_t runs = 0;
  for (const auto& s : seeds) runs += static_cast<std::size_t>(run(s) == 0);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    for (int m = 0; m < kMutationsPerSeed; ++m) {
      const std::string& other = seeds[(i + 1 + static_cast<std::size_t>(m)) % seeds.size()];
      std::string input = mutate(seeds[i], other, rng);
      try {
        run(input);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "parser_fuzz_smoke: exception '%s' on input:\n%s\n", e.what(), input.c_str());
        return 1;
      }
      ++runs;
    }
  }
  std::printf("parser_fuzz_smoke: %zu inputs, no failure\n", runs);
  return 0;
}
