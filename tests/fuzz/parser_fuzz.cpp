// parser_fuzz.cpp: libFuzzer entry point. Any byte string must parse without crashing or
// throwing; when it parses cleanly, `mirac fmt` of it must parse cleanly to the same AST.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "interpreter/format/format.hpp"
#include "interpreter/parse/parse.hpp"

namespace {

// Fails loudly with both texts, so that a crash report is enough to reproduce.
[[noreturn]] void fail(const char* what, const std::string& input, const std::string& detail) {
  std::fprintf(stderr, "parser_fuzz: %s\n--- input ---\n%s\n--- detail ---\n%s\n", what, input.c_str(), detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  mirac::SourceManager sources;
  mirac::Diagnostics diags;
  mirac::FileId file = sources.add("fuzz.audit", text);
  mirac::ast::Module module = mirac::parse_module(file, sources, diags);
  std::ostringstream printed;
  diags.print(printed, sources);  // the caret code walks arbitrary bytes too
  if (diags.has_errors()) return 0;

  std::string formatted = mirac::format_module(module, sources);
  mirac::Diagnostics again;
  mirac::FileId file2 = sources.add("formatted.audit", formatted);
  mirac::ast::Module reparsed = mirac::parse_module(file2, sources, again);
  if (again.has_errors()) {
    std::ostringstream errors;
    again.print(errors, sources);
    fail("formatted text does not parse", text, formatted + "\n" + errors.str());
  }
  if (mirac::dump_ast(reparsed) != mirac::dump_ast(module))
    fail("formatting changed the AST", text, mirac::dump_ast(module) + "\n" + mirac::dump_ast(reparsed));
  if (mirac::format_module(reparsed, sources) != formatted) fail("formatting is not idempotent", text, formatted);
  return 0;
}
