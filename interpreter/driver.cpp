#include "interpreter/driver.hpp"

#include "interpreter/eval/placeholder_range.hpp"
#include "interpreter/merge/modules.hpp"
#include "interpreter/scores/plan_analyses.hpp"

namespace mirac {

namespace {

// Phase 1 on what was read: the changes of extending specs merged into their bases.
void adopt(LoadedSpec loaded, Compilation& c) {
  c.modules = std::move(loaded.modules);
  c.chain = std::move(loaded.chain);
  if (!c.modules.empty()) c.merged = merge_changes(c.modules, c.chain, c.sources, c.diags);
}

// The plan's diagnostics into `out`, each template error's caret moved from the whole string
// to the placeholder it names: the planner evaluates prompts without the sources, which
// only the compilation holds.
void locate_placeholders(const Diagnostics& planned, const SourceManager& sources, Diagnostics& out) {
  for (const Diagnostic& d : planned.all()) {
    if (d.severity == Severity::error && !d.range.valid() && !d.where.empty()) out.error_at(d.where, d.message);
    else if (d.severity == Severity::error) out.error(placeholder_range(sources, d.range, d.message), d.message);
    else if (d.severity == Severity::warning) out.warning(d.range, d.message);
    else out.remark(d.range, d.message);
    for (const auto& note : d.notes) out.note(note);
  }
}

// Phases 2 and 3 on what phase 1 read.
std::unique_ptr<Compilation> check_and_plan(std::unique_ptr<Compilation> c, const CheckOptions& options) {
  if (c->modules.empty() || !c->ok()) return c;
  c->spec = check(c->modules, options, c->sources, c->diags, c->merged.data_roots);  // phase 2: resolve and check
  if (!c->ok()) return c;
  if (options.offline) use_offline_provider(c->spec);
  Diagnostics planned;
  c->plan = build_plan(c->spec, planned);  // phase 3: plan
  locate_placeholders(planned, c->sources, c->diags);
  // Can each analysis run on what is paid for? A command that selects requests asks that of
  // the selection instead (engine/selection.hpp).
  if (c->ok() && options.check_analyses && !options.analyses_on_selection) check_plan_analyses(c->spec, c->plan, c->diags);
  return c;
}

}  // namespace

void load_merged(const std::filesystem::path& spec_path, Compilation& c) {
  adopt(load_spec(spec_path, c.sources, c.diags), c);
}

std::unique_ptr<Compilation> compile(const std::filesystem::path& spec_path, const CheckOptions& options) {
  auto c = std::make_unique<Compilation>();
  load_merged(spec_path, *c);  // phase 1: parse
  return check_and_plan(std::move(c), options);
}

std::unique_ptr<Compilation> compile_text(const std::filesystem::path& spec_path, std::string text,
                                          const CheckOptions& options) {
  auto c = std::make_unique<Compilation>();
  adopt(load_spec_from_text(spec_path.string(), std::move(text), c->sources, c->diags), *c);  // phase 1
  return check_and_plan(std::move(c), options);
}

void replan_offline(Compilation& c) {
  if (!c.ok()) return;
  use_offline_provider(c.spec);
  // The first planning reported its diagnostics; the offline provider changes only providers
  // and model strings, which planning does not diagnose.
  Diagnostics planned_again;
  c.plan = build_plan(c.spec, planned_again);
}

}  // namespace mirac
