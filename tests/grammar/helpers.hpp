// helpers.hpp: parse text in memory and render its diagnostics, for the grammar tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "interpreter/format/format.hpp"
#include "interpreter/parse/parse.hpp"

namespace mirac::test {

/// One parse of one text, keeping the sources alive for later formatting.
struct Parsed {
  SourceManager sources;
  Diagnostics diags;
  ast::Module module;
  std::string errors;  ///< Diagnostics::print output, "" when clean
};

inline std::unique_ptr<Parsed> parse_text(std::string text, std::string path = "t.audit") {
  auto p = std::make_unique<Parsed>();
  FileId id = p->sources.add(std::move(path), std::move(text));
  p->module = parse_module(id, p->sources, p->diags);
  std::ostringstream out;
  if (!p->diags.all().empty()) p->diags.print(out, p->sources);
  p->errors = out.str();
  return p;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::filesystem::path source_dir() {
  const char* dir = std::getenv("MIRAC_SOURCE_DIR");
  // Run by hand outside CTest: this file sits at <source>/tests/grammar/helpers.hpp.
  return dir ? std::filesystem::path(dir) : std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
}

}  // namespace mirac::test
