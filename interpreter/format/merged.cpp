// format_merged.cpp: `mirac fmt --show=merged`, an extending spec and its bases as the one
// spec the checker sees. Used modules that no change reached stay `use` lines; the others
// are printed in place of their `use`, so that the output reads as one spec.
#include <set>

#include <fmt/format.h>

#include "interpreter/format/format.hpp"
#include "interpreter/merge/merge.hpp"
#include "interpreter/merge/parts.hpp"
#include "interpreter/parse/parse.hpp"

namespace mirac {

namespace {

std::string formatted(std::vector<ast::Decl> decls, FileId file, const SourceManager& sources) {
  ast::Module m;
  m.file = file;
  m.decls = std::move(decls);
  return format_module(m, sources);
}

}  // namespace

std::string format_merged(const std::vector<ast::Module>& modules, const SpecChain& chain, const MergedSpec& merged,
                          const SourceManager& sources) {
  if (modules.empty() || chain.specs.empty()) return "";
  const FileId main = chain.specs.back();
  std::string out = fmt::format("// {}", sources.path(main));
  if (chain.extends()) {
    out += ", merged with what it extends:";
    for (std::size_t i = chain.specs.size() - 1; i-- > 0;) out += " " + sources.path(chain.specs[i]);
  }
  out += "\n// (mirac fmt --show=merged; a comment names the file of each group of declarations)\n";
  auto inlined = [&](FileId f) { return chain.owner.count(f) && chain.owner.at(f) != f && merged.changed_files.count(f); };
  // "// factor language: extended by FILE:LINE:COL", naming the declaration it is about
  // (canonical layout may join it to the one-liners that follow).
  auto change_comment = [&](const ast::Decl& d) {
    const auto key = merge_detail::key_of(d);
    const std::string what = !key ? "" : key->name.empty() ? key->kind + ": " : key->kind + " " + key->name + ": ";
    return fmt::format("// {}{} by {}\n", what, d.changed_by == ast::Change::extend ? "extended" : "replaced",
                       merge_detail::place(sources, d.change_range));
  };
  // The header first, as a spec begins; the settings a base gave say so (a base's `data` is
  // relative to that base).
  for (const auto& m : modules)
    if (m.file == main)
      for (const auto& d : m.decls)
        if (const auto* audit = std::get_if<ast::AuditDecl>(&d.node)) {
          out += "\n";
          for (const auto& p : audit->settings.props)
            if (p.key.range.valid() && p.key.range.file != main)
              out += fmt::format("// {} from {}\n", p.key.name, merge_detail::place(sources, p.key.range));
          out += formatted({d}, m.file, sources);
        }
  for (const auto& m : modules) {
    const bool spec_file = chain.owner.count(m.file) && chain.owner.at(m.file) == m.file;
    if (!spec_file && !inlined(m.file)) continue;
    std::vector<ast::Decl> run;
    std::string group;
    auto flush = [&] {
      if (!run.empty()) group += (group.empty() ? "" : "\n") + formatted(std::move(run), m.file, sources);
      run.clear();
    };
    for (const auto& d : m.decls) {
      if (std::holds_alternative<ast::AuditDecl>(d.node)) continue;
      if (const auto* use = std::get_if<ast::UseDecl>(&d.node)) {
        auto target = chain.used.find({m.file, use->module_range.begin.byte});
        if (target != chain.used.end() && inlined(target->second)) continue;
      }
      if (d.changed_by == ast::Change::declare) {
        run.push_back(d);
        continue;
      }
      flush();
      group += (group.empty() ? "" : "\n") + change_comment(d) + formatted({d}, m.file, sources);
    }
    flush();
    if (!group.empty()) out += fmt::format("\n// from {}\n{}", sources.path(m.file), group);
  }
  // Once more through the printer, so that the whole is in canonical layout (groups of
  // one-liners join across the comments above), as `mirac fmt` would leave it.
  SourceManager printed;
  Diagnostics problems;
  const ast::Module whole = parse_module(printed.add(sources.path(main), out), printed, problems);
  return problems.has_errors() ? out : format_module(whole, printed);
}

}  // namespace mirac
