#include "cli/cli.hpp"

#include <iostream>

namespace mirac {

int run_cli(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run_cli(args, std::cout, std::cerr);
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  (void)args;
  (void)err;
  out << "mirac " << MIRAC_VERSION << "\n";
  return 0;
}

}  // namespace mirac
