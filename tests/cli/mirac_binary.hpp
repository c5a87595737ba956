// mirac_binary.hpp: running the real `mirac` binary (MIRAC_BINARY, set by CTest) in a test,
// against the loopback fake provider, with its standard output and error kept apart (so
// JSON on standard output can be parsed).
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mirac::test {

/// A fresh directory under the temp dir, removed at the end of the test.
struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("mirac_t_" + name + "_" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path(const std::string& name) const { return (dir / name).string(); }
  /// Writes `text` to `name` in the directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return path(name);
  }
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A CSV file of a results directory without the `# ` provenance lines it opens with.
inline std::string csv_table(const std::string& text) {
  std::size_t at = 0;
  while (text.compare(at, 2, "# ") == 0) at = text.find('\n', at) + 1;
  return text.substr(at);
}

/// The API key invoke() gives mirac: tests check it never reaches the store or an export.
inline constexpr const char* kTestApiKey = "sk-test-cli-secret";

struct Outcome {
  int code = -1;
  std::string out, err;
};

/// Runs the mirac binary with `args`; the OpenAI preset points at `base_url` with a test key.
/// `cwd` non-empty: run it there (for the default stores, runs/<spec name>, which are relative).
inline Outcome invoke(const std::vector<std::string>& args, const std::string& base_url = "http://127.0.0.1:9/v1",
                      const std::filesystem::path& cwd = {}) {
  const char* binary = std::getenv("MIRAC_BINARY");
  REQUIRE(binary != nullptr);
  const auto tag = std::to_string(getpid()) + "_" + std::to_string(std::rand());
  const auto out_path = std::filesystem::temp_directory_path() / ("mirac_t_out_" + tag);
  const auto err_path = std::filesystem::temp_directory_path() / ("mirac_t_err_" + tag);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("OPENAI_BASE_URL", base_url.c_str(), 1);
    setenv("OPENAI_API_KEY", kTestApiKey, 1);
    unsetenv("MIRAC_DATA");
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> argv{const_cast<char*>(binary)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = read_text(out_path);
  o.err = read_text(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return o;
}

/// Starts the mirac binary with `args` without waiting for it (for tests that signal it or
/// start a second run beside it); its standard output and error both go to `log`. A
/// `file_size_limit` > 0 (bytes) sets RLIMIT_FSIZE in the child: every file it writes
/// stops growing there, as on a full disk, without root.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& base_url, const std::filesystem::path& log,
                   long file_size_limit = 0) {
  const char* binary = std::getenv("MIRAC_BINARY");
  REQUIRE(binary != nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("OPENAI_BASE_URL", base_url.c_str(), 1);
    setenv("OPENAI_API_KEY", kTestApiKey, 1);
    unsetenv("MIRAC_DATA");
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    dup2(fd, 2);
    if (file_size_limit > 0) {
      rlimit limit{static_cast<rlim_t>(file_size_limit), static_cast<rlim_t>(file_size_limit)};
      setrlimit(RLIMIT_FSIZE, &limit);
    }
    std::vector<char*> argv{const_cast<char*>(binary)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary, argv.data());
    _exit(127);
  }
  return pid;
}

/// Waits for a spawned run: its exit status, or -1 when a signal ended it.
inline int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace mirac::test
