// check.cpp: the driver of phase 2. Each kind of declaration is checked by a function in
// the file of its kind (context.hpp lists them in order); this file calls them in the order
// in which one kind reads another, and ends with what needs the whole spec.
#include "interpreter/check/check.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interpreter/check/context.hpp"
#include "runtime/hash/hash.hpp"

namespace mirac {

bool NameTable::add(const ast::Ident& id) {
  auto [it, fresh] = seen_.emplace(id.name, id.range);
  if (!fresh) {
    diags_.error(id.range, fmt::format("{} '{}' is already defined", what_, id.name));
    diags_.note(fmt::format("first defined at line {}", it->second.begin.line));
  }
  return fresh;
}

std::vector<std::string> NameTable::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : seen_) out.push_back(k);
  return out;
}

namespace {

// A spec without a prompt plans no request: `check` would say ok and `run` send nothing.
// An error that lists the missing parts, so an empty or a header-only file is not taken
// for a finished audit. (The header is optional: the spec is then named after its file.)
void report_nothing_to_send(const CheckContext& cx) {
  if (cx.spec.prompt || cx.diags.has_errors()) return;  // a spec with errors is not mistaken for a finished one
  std::vector<std::string> missing;
  bool has_seeds = std::any_of(cx.decls.begin(), cx.decls.end(),
                               [](const ast::Decl* d) { return std::holds_alternative<ast::SeedsDecl>(d->node); });
  if (!has_seeds) missing.emplace_back("'seeds'");
  missing.emplace_back("a 'prompt { id ... text ... }'");
  if (cx.spec.models.empty()) missing.emplace_back("a 'model'");
  cx.diags.error(cx.sources.range(cx.main_file, 0, 0),
                 fmt::format("the spec declares no prompt, so there is nothing to send; it lacks {}",
                             fmt::join(missing, ", ")));
}

// Every file read (spec, modules, data), once, with its hash: the reproducibility manifest.
void record_inputs(CheckContext& cx) {
  std::set<std::string> recorded;
  for (std::size_t f = 0; f < cx.sources.size(); ++f) {
    FileId id = static_cast<FileId>(f);
    if (recorded.insert(cx.sources.path(id)).second)
      cx.spec.inputs.emplace_back(cx.sources.path(id), sha256_hex(cx.sources.text(id)));
  }
}

}  // namespace

Spec check(const std::vector<ast::Module>& modules, const CheckOptions& options, SourceManager& sources,
           Diagnostics& diags, const std::map<FileId, std::filesystem::path>& data_roots) {
  Spec spec;
  spec.data_roots = data_roots;
  std::vector<const ast::Decl*> decls;
  for (const auto& m : modules)
    for (const auto& d : m.decls) decls.push_back(&d);
  if (modules.empty()) return spec;
  CheckContext cx{spec, diags, options, sources, modules, decls, modules.back().file};
  spec.spec_path = sources.path(cx.main_file);

  check_header(cx);
  check_factors(cx);
  check_providers(cx);
  check_prices(cx);
  check_defaults(cx);
  check_models(cx);
  check_arms(cx);
  check_rubrics(cx);
  check_judges(cx);
  check_panels(cx);
  warn_prices_by_model_string(cx);
  bind_seeds(spec, decls, options, sources, diags);  // seeds, checklists, variants
  bind_texts(spec, decls, sources, diags);  // texts and the prompt
  check_flags(cx);
  check_contrasts(cx);
  check_analyses(cx);
  check_reports(cx);
  // What needs every flag, contrast, analysis and report at once.
  expand_ranges(spec, sources, diags);
  check_analysis_blocks(spec, diags);
  check_analysis_files(spec, sources, diags);
  check_criteria(spec, diags);
  check_simulate_block(cx);
  report_nothing_to_send(cx);
  record_inputs(cx);
  return spec;
}

}  // namespace mirac
