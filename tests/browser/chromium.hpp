// chromium.hpp: headless Chromium (Debian's `chromium`) for the tests of the pages people
// look at: one way to start it, so that every page is opened alike.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "tests/cli/mirac_binary.hpp"

namespace browser_test {

inline std::string chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(path)) return path;
  FAIL("headless Chromium is needed for this test: apt-get install chromium (scripts/bootstrap installs it)");
  return "";
}

/// Runs headless Chromium on `url` with `flags` (--dump-dom, --screenshot=..., and what a
/// test adds), its profile and output under `dir`. Returns stdout (the DOM with --dump-dom);
/// `log` gets its stderr, where console messages and uncaught errors appear.
inline std::string run_chromium(const std::string& url, const std::string& flags, const std::filesystem::path& dir,
                                std::string& log) {
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string command = "timeout 120 " + chromium() +
                              " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                              " --disable-background-networking --disable-component-update --disable-sync"
                              " --enable-logging=stderr --v=0 --user-data-dir=" +
                              (dir / "profile").string() + " " + flags + " '" + url + "' > " + out.string() +
                              " 2> " + err.string();
  const int rc = std::system(command.c_str());
  log = mirac::test::read_text(err);
  INFO(log);
  REQUIRE(rc == 0);
  return mirac::test::read_text(out);
}

}  // namespace browser_test
