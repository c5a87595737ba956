// arms.cpp: `arm NAME { system ... }`, one condition of the run applied to every model; a
// spec without arms has one, `baseline`, with no system prompt.
#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// `system file("path")`: read now and registered as a source, so that a byte that is not
// UTF-8 is shown at its line and column, not found when the first request is built after
// others were paid.
void read_system_file(CheckContext& cx, Arm& arm, const ast::Expr& path_arg) {
  std::string rel = std::get<ast::StringLit>(path_arg.node).value;
  std::string why;
  const std::filesystem::path path = cx.spec.data_path(path_arg.range, rel);
  std::optional<std::string> text = read_regular_file(path, why);
  if (!text) {
    cx.diags.error(path_arg.range, fmt::format("cannot read system prompt file '{}': {}", path.string(), why));
  } else {
    FileId file = cx.sources.add(rel, std::move(*text));
    require_utf8(cx.sources, file, fmt::format("system prompt file '{}'", rel), cx.diags);
    arm.system = cx.sources.text(file);
  }
  arm.system_source = rel;
}

void read_system(CheckContext& cx, Arm& arm, const ast::Property& p) {
  const ast::Expr* v = p.value ? &*p.value : nullptr;
  if (v && std::holds_alternative<ast::NoneLit>(v->node)) return;
  if (const auto* s = v ? std::get_if<ast::StringLit>(&v->node) : nullptr) {
    arm.system = s->value;
    arm.system_source = "inline";
  } else if (const auto* c = v ? std::get_if<ast::Call>(&v->node) : nullptr;
             c && c->callee.name == "file" && c->args.size() == 1 &&
             std::holds_alternative<ast::StringLit>(c->args[0].node)) {
    read_system_file(cx, arm, c->args[0]);
  } else {
    cx.diags.error(v ? v->range : p.key.range, "'system' must be none, a string, or file(\"path\")");
  }
}

}  // namespace

void check_arms(CheckContext& cx) {
  NameTable arm_names("arm", cx.diags);
  for (auto [d, a] : all_of<ast::ArmDecl>(cx.decls)) {
    if (!arm_names.add(a->name)) continue;
    Arm arm{a->name.name, std::nullopt, "none", a->name.range};
    for (const auto& p : a->settings.props) {
      if (p.key.name != "system") {
        cx.diags.error(p.key.range,
                       with_suggestion(fmt::format("unknown arm setting '{}'", p.key.name), p.key.name, {"system"}));
        continue;
      }
      read_system(cx, arm, p);
    }
    cx.spec.arms.push_back(std::move(arm));
  }
  if (cx.spec.arms.empty()) cx.spec.arms.push_back(Arm{"baseline", std::nullopt, "none", {}});
}

}  // namespace mirac
