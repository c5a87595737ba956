#include <doctest/doctest.h>

#include <sstream>

#include "cli/cli.hpp"
#include "interpreter/merge/stdlib_modules.hpp"

TEST_CASE("cli prints its version") {
  std::ostringstream out, err;
  CHECK(mirac::run_cli({"--version"}, out, err) == 0);
  CHECK(out.str().find("mirac") != std::string::npos);
}
