// parse_changes.cpp: the declarations that change a base spec: `extend KIND NAME { ... }`,
// `override DECLARATION` and `remove KIND NAME?` (docs/language.md, "Variants"). An override
// is an ordinary declaration marked as such; an extension reuses the AST of its kind with
// only the parts it adds. Also the items of a report, which a variant can replace or remove
// by name.
#include "interpreter/parse/builder.hpp"

namespace mirac::parse_detail {

ast::Decl Builder::change(const Node& n) const {
  const Node& body = *n.children.at(0);
  ast::Decl d;
  if (n.is_type<g::remove_decl>()) {
    ast::RemoveDecl r{ident(body), {}};
    if (n.children.size() > 1) r.name = ident(*n.children[1]);
    d.node = std::move(r);
  } else if (n.is_type<g::override_decl>()) {
    d = decl(body);
    d.change = ast::Change::override_;
  } else if (body.is_type<g::settings_extension>()) {
    // `extend model gpt { max_tokens 2048 }`: the settings to add or change.
    const std::string kind = text(*body.children.at(0));
    const ast::Ident name = ident(*body.children.at(1));
    ast::Block settings = block(*body.children.at(2));
    if (kind == "model") d.node = ast::ModelDecl{name, {}, {}, settings};
    else if (kind == "judge") d.node = ast::JudgeDecl{name, {}, {}, settings};
    else if (kind == "arm") d.node = ast::ArmDecl{name, settings};
    else d.node = ast::ProviderDecl{name, settings};
    d.change = ast::Change::extend;
  } else if (body.is_type<g::seeds_extension>()) {
    d.node = seeds(body);
    d.change = ast::Change::extend;
  } else if (body.is_type<g::variant_extension>()) {
    d.node = variant(body);
    d.change = ast::Change::extend;
  } else if (body.is_type<g::analysis_extension>()) {
    ast::AnalysisDecl a;
    a.name = ident(*body.children.at(0));
    a.options = options(*body.children.at(1));
    d.node = std::move(a);
    d.change = ast::Change::extend;
  } else {  // factor, text, defaults and report extensions are written like their declarations
    d = decl(body);
    d.change = ast::Change::extend;
  }
  d.range = range(n);
  d.file = file_;
  return d;
}

// `KIND (NAME =)? EXPR { options }?`, and in a variant's `extend report`, `override KIND NAME =
// EXPR { options }?` and `remove NAME`.
ast::ReportItem Builder::report_item(const Node& item) const {
  ast::ReportItem ri;
  ri.range = range(item);
  const auto& parts = item.children;
  if (item.is_type<g::report_remove>()) {
    const std::size_t begin = item.begin().byte;
    ri.kind = {"remove", sources_.range(file_, begin, begin + 6)};
    ri.name = ident(*parts.at(0));
    ri.change = ast::ItemChange::remove;
    return ri;
  }
  if (item.is_type<g::report_override>()) ri.change = ast::ItemChange::override_;
  std::size_t i = 0;
  ri.kind = ident(*parts.at(i++));
  if (parts.at(i)->is_type<g::report_item_name>() || parts.at(i)->is_type<g::overridden_item>()) ri.name = ident(*parts[i++]);
  ri.content = expr(*parts.at(i++));
  if (i < parts.size()) ri.options = options(*parts[i]);
  return ri;
}

}  // namespace mirac::parse_detail
