// cli.hpp: the command-line interface, as a library function so tests can drive it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace mirac {

/// Runs `mirac ARGS...` and returns the process exit code: 0 ok, 1 spec or data errors,
/// 2 usage errors.
int run_cli(int argc, char** argv);

/// The same, with explicit streams (for golden tests).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mirac
