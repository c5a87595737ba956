// header.cpp: the `audit NAME { ... }` header (name, title, data, scores) and the data
// root that the data files of the spec are found from.
#include <cmath>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// More answers per prompt than this is a typo rather than a design: 100 already multiplies
// the audit's cost a hundredfold.
constexpr int kMaxAnswers = 100;

// Where data is found: --data, then $MIRAC_DATA, then the header's `data` (relative to the
// file that writes it, a base's in a variant), then the spec's folder. For an extending spec
// that folder is its first base's: the last file read without a root of its own (modules
// come before the specs that use them, each base before the spec that extends it).
void settle_data_root(CheckContext& cx, const std::optional<std::string>& data_setting,
                      const std::filesystem::path& data_setting_dir) {
  Spec& spec = cx.spec;
  std::filesystem::path spec_dir = spec.spec_path.parent_path();
  for (auto m = cx.modules.rbegin(); m != cx.modules.rend(); ++m)
    if (!spec.data_roots.count(m->file)) {
      spec_dir = std::filesystem::path(cx.sources.path(m->file)).parent_path();
      break;
    }
  if (cx.options.data_root) spec.data_root = *cx.options.data_root;
  else if (cx.options.env_data_root) spec.data_root = *cx.options.env_data_root;
  else if (data_setting) spec.data_root = data_setting_dir / *data_setting;
  else spec.data_root = spec_dir;
}

}  // namespace

void check_header(CheckContext& cx) {
  Spec& spec = cx.spec;
  std::optional<std::string> data_setting;
  std::filesystem::path data_setting_dir;
  for (auto [d, a] : all_of<ast::AuditDecl>(cx.decls)) {
    if (d->file != cx.main_file) {
      cx.diags.error(a->name.range, "an 'audit' header belongs in the main spec, not in a used module");
      continue;
    }
    if (!spec.name.empty()) {
      cx.diags.error(a->name.range, "the spec has a second 'audit' header");
      continue;
    }
    spec.name = a->name.name;
    for (const auto& p : a->settings.props) {
      const auto* s = p.value ? std::get_if<ast::StringLit>(&p.value->node) : nullptr;
      if (p.key.name == "title" || p.key.name == "data" || p.key.name == "description" || p.key.name == "version") {
        if (!s) {
          cx.diags.error(p.key.range, fmt::format("'{}' must be a string", p.key.name));
          continue;
        }
        if (p.key.name == "title") spec.title = s->value;
        if (p.key.name == "data") {
          data_setting = s->value;
          data_setting_dir = std::filesystem::path(cx.sources.path(p.key.range.file)).parent_path();
        }
      } else if (p.key.name == "scores") {
        cx.scores_setting = &p;  // checked with the judges and panels
      } else if (p.key.name == "answers") {
        const auto* n = p.value ? std::get_if<ast::NumberLit>(&p.value->node) : nullptr;
        if (!n || n->value != std::floor(n->value) || n->value < 1 || n->value > kMaxAnswers) {
          cx.diags.error(p.value ? p.value->range : p.key.range,
                         fmt::format("'answers' must be a whole number from 1 to {}: the answers asked for each "
                                     "prompt, model and arm", kMaxAnswers));
          continue;
        }
        spec.answers = static_cast<int>(n->value);
      } else {
        cx.diags.error(p.key.range, with_suggestion(fmt::format("unknown audit setting '{}'", p.key.name), p.key.name,
                                                    {"title", "data", "description", "version", "scores", "answers"}));
      }
    }
  }
  if (cx.options.answers) spec.answers = *cx.options.answers;  // checked by the command line
  if (spec.name.empty()) spec.name = std::filesystem::path(spec.spec_path).stem().string();
  settle_data_root(cx, data_setting, data_setting_dir);
}

}  // namespace mirac
