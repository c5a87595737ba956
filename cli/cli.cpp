// cli.cpp: `mirac`: each command file (cli/*_command(s).cpp) adds its subcommands with
// their options and what runs them; this parses and runs the one given. Exit 0 ok, 1 spec
// or data errors, 2 usage, 3 internal error, 4 a run that did not complete.
#include "cli/cli.hpp"

#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"

namespace mirac {

int run_cli(int argc, char** argv) {
  // The executable owns the process: `mirac run | head` must go on storing and judging
  // after head exits, so a closed pipe is a failed write, never a silent death.
  cli::ignore_write_signals();
  std::vector<std::string> args(argv + 1, argv + argc);
  return run_cli(args, std::cout, std::cerr);
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"mirac: a declarative language and interpreter for auditing LLM answers", "mirac"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("mirac ") + MIRAC_VERSION);
  cli::Commands commands(app, out, err);
  cli::add_compile_commands(commands);
  cli::add_run_commands(commands);
  cli::add_status_command(commands);
  cli::add_transfer_commands(commands);
  cli::add_rewrite_command(commands);
  cli::add_annotate_command(commands);
  cli::add_view_command(commands);
  cli::add_simulate_command(commands);

  std::vector<std::string> storage = {"mirac"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err) == 0 ? kOk : kUsageError;
  }
  try {
    int code = commands.run_parsed();
    // Output that never reached its file or pipe (a full disk, /dev/full) is a failure,
    // whatever the command thought of its work.
    if (!out.flush()) {
      err << "mirac: error: cannot write standard output\n";
      return code == kOk ? kUsageError : code;
    }
    return code;
  } catch (const std::exception& e) {
    // A crash on any input is a bug; say so plainly rather than abort.
    err << "mirac: internal error: " << e.what() << "\nplease report this with the spec that caused it\n";
    return kInternalError;
  }
}

}  // namespace mirac
