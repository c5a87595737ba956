// cli_calls.hpp: `mirac export` and `mirac import` called in-process through run_cli, for
// tests that read what a command printed without starting the binary.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace cli_call {

struct SpecStore {
  std::string spec, store;
};

inline int export_rows(const SpecStore& o, const std::string& what, const std::string& output,
                       const std::string& format, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args = {"export", o.spec, what, "--store", o.store};
  if (!output.empty()) args.insert(args.end(), {"-o", output});
  if (!format.empty()) args.insert(args.end(), {"--format", format});
  return mirac::run_cli(args, out, err);
}

inline int import_rows(const SpecStore& o, const std::string& what, const std::string& file, std::ostream& out,
                       std::ostream& err) {
  return mirac::run_cli({"import", o.spec, what, file, "--store", o.store}, out, err);
}

}  // namespace cli_call
