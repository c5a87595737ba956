// dump_ast.cpp: `dump_ast`, the syntax tree as S-expressions without source positions, for
// `mirac check --show=ast` and for tests that compare two parses.
#include <optional>

#include "interpreter/format/format.hpp"
#include "interpreter/format/expr.hpp"

namespace mirac {

namespace {

using format_detail::Columns;
using format_detail::join;
using format_detail::name_of;

// --- dump_ast -------------------------------------------------------------------------
// (head child child ...), one declaration per line. Optional parts that are absent are
// left out, so the dump reads like the source it came from.

// Built by appending: GCC 12 at -O3 warns falsely (-Wrestrict, its bug 105329) about
// `const char* + std::string&&`, which a Release build treats as an error.
std::string sx(std::string head, std::initializer_list<std::string> parts) {
  std::string out = "(";
  out += head;
  for (const auto& p : parts)
    if (!p.empty()) {
      out += ' ';
      out += p;
    }
  out += ')';
  return out;
}
template <typename T, typename F>
std::string sx_list(std::string head, const std::vector<T>& items, F&& render) {
  std::string out = "(";
  out += head;
  for (const auto& i : items) {
    out += ' ';
    out += render(i);
  }
  out += ')';
  return out;
}
template <typename T, typename F>
std::string render_if(const std::optional<T>& v, F&& render) {
  return v ? render(*v) : std::string();
}

std::string q(const ast::StringLit& s) { return quote_string(s.value); }

std::string dx(const ast::Expr& e);
std::string dx_node(const ast::NumberLit& n) { return n.text; }
std::string dx_node(const ast::StringLit& s) { return q(s); }
std::string dx_node(const ast::BoolLit& b) { return b.value ? "true" : "false"; }
std::string dx_node(const ast::NoneLit&) { return "none"; }
std::string dx_node(const ast::Name& n) { return n.name; }
std::string dx_node(const ast::Field& f) { return sx(".", {dx(*f.base), f.field.name}); }
std::string dx_node(const ast::CellSelect& c) {
  return sx("cell", {dx(*c.base), join(c.items, " ", [](const ast::CellItem& i) {
                       if (i.each) return "each:" + i.factor->name;
                       return (i.factor ? i.factor->name + "=" : std::string()) + i.level.name;
                     })});
}
std::string dx_node(const ast::Call& c) { return sx_list("call " + c.callee.name, c.args, dx); }
std::string dx_node(const ast::Unary& u) { return sx(u.op, {dx(*u.operand)}); }
std::string dx_node(const ast::Binary& b) { return sx(b.op, {dx(*b.lhs), dx(*b.rhs)}); }
std::string dx_node(const ast::IfExpr& i) { return sx("if", {dx(*i.cond), dx(*i.then_branch), dx(*i.else_branch)}); }
std::string dx_node(const ast::ListLit& l) { return sx_list("list", l.items, dx); }
std::string dx_node(const ast::RangeLit& r) { return sx("..", {dx(*r.lo), dx(*r.hi)}); }
std::string dx(const ast::Expr& e) {
  return std::visit([](const auto& n) { return dx_node(n); }, e.node);
}

std::string d_block(const ast::Block& b) {
  return sx_list("block", b.props, [](const ast::Property& p) {
    return sx(p.key.name, {render_if(p.value, dx), render_if(p.block, d_block)});
  });
}
std::string d_source(const ast::DataSource& s) { return sx(s.format.name, {q(s.path)}); }
std::string d_column(const ast::Column& c) { return quote_string(c.name); }
std::string d_columns(const Columns& cols) {
  return sx_list("columns", cols, [](const auto& c) { return sx(c.first.name, {d_column(c.second)}); });
}
std::string d_field(const ast::FieldPath& f) { return f.field.name + (f.level ? "." + f.level->name : ""); }
std::string d_values(std::string head, const std::vector<ast::FieldValue>& fields) {
  return sx_list(std::move(head), fields, [](const ast::FieldValue& f) { return sx(d_field(f.target), {dx(f.value)}); });
}
std::string d_cell(const ast::CellPath& p) { return join(p.levels, ".", name_of); }
std::string d_json(const ast::JsonTable& t) { return sx("json-table", {d_source(t.source), q(t.at), q(t.key)}); }
std::string d_texts(const ast::LangTexts& t) {
  if (t.all) return sx("all", {dx(*t.all)});
  return sx_list("texts", t.by_level, [](const auto& p) { return sx(p.first.name, {dx(p.second)}); });
}
std::string d_idents(std::string head, const std::vector<ast::Ident>& ids) { return sx_list(std::move(head), ids, name_of); }
std::string d_options(const std::vector<ast::AnalysisOption>& opts) {
  return sx_list("options", opts, [](const ast::AnalysisOption& o) {
    std::string values = join(o.values, " ", [](const ast::OptionValue& v) {
      return sx("value", {render_if(v.label, name_of) + (v.label ? ":" : ""), dx(v.value), render_if(v.versus, dx)});
    });
    return sx(o.key.name, {values, render_if(o.columns, d_columns)});
  });
}

std::string d(const ast::AuditDecl& a) {
  return sx("audit " + a.name.name, {render_if(a.extends, [](const ast::StringLit& s) { return sx("extends", {q(s)}); }),
                                     d_block(a.settings)});
}
std::string d(const ast::RemoveDecl& r) { return sx("remove " + r.kind.name, {render_if(r.name, name_of)}); }
std::string d(const ast::UseDecl& u) { return sx("use", {u.is_path ? quote_string(u.module) : u.module}); }
std::string d(const ast::FactorDecl& f) {
  return sx_list("factor " + f.name.name, f.levels, [](const ast::Level& l) {
    return l.label ? sx(l.name.name, {q(*l.label)}) : l.name.name;
  });
}
std::string d(const ast::DesignDecl& x) { return d_idents("design", x.factors); }
std::string d(const ast::SeedsDecl& s) {
  std::string maps = join(s.mappings, " ", [](const ast::FieldMapping& m) {
    std::string vm = m.has_map ? sx_list("map", m.value_map, [](const auto& e) { return sx(q(e.from), {q(e.to)}); }) : "";
    return sx("= " + d_field(m.target), {d_column(m.column), vm});
  });
  std::string seeds = join(s.inline_seeds, " ", [](const ast::InlineSeed& i) { return d_values("seed " + dx(i.id), i.fields); });
  std::string joins = join(s.joins, " ", [](const ast::SeedJoin& j) { return sx("join", {d_source(j.source), j.key.name}); });
  return sx("seeds", {render_if(s.source, d_source), joins, maps, seeds});
}
std::string d(const ast::ChecklistsDecl& c) {
  std::string lists =
      join(c.inline_checklists, " ", [](const ast::InlineChecklist& i) { return d_values("checklist " + dx(i.seed), i.fields); });
  return sx("checklists", {render_if(c.source, d_source), render_if(c.key, d_column), lists});
}
std::string d(const ast::VariantDecl& v) {
  std::string ins = join(v.instructions, " ", [](const ast::VariantInstruction& i) { return sx(d_cell(i.cell), {d_texts(i.texts)}); });
  std::string rw = render_if(v.rewriter, [](const ast::RewriterSpec& r) {
    return sx("rewriter " + r.preset.name, {q(r.model), render_if(r.settings, d_block)});
  });
  std::string lock = join(v.locks, " ", [](const ast::LockSpec& l) { return sx("lock", {d_source(l.source), d_columns(l.columns)}); });
  std::string seeds = join(v.seed_texts, " ", [](const ast::VariantSeedTexts& s) {
    return sx_list("seed " + dx(s.seed), s.texts, [](const auto& t) { return sx(d_cell(t.first), {dx(t.second)}); });
  });
  return sx("variant " + v.field.name, {d_idents("by", v.by), render_if(v.instructions_from, d_json), ins, rw, lock, seeds});
}
std::string d(const ast::TextDecl& t) {
  std::string levels = join(t.levels, " ", [](const ast::TextLevel& l) {
    std::string derived = render_if(l.derived, [](const ast::DerivedText& x) {
      return sx("from", {d_source(x.source), dx(x.where), dx(x.select)});
    });
    return sx(l.level.name, {render_if(l.texts, d_texts), derived});
  });
  std::string cells = join(t.cells, " ", [](const ast::TextCell& c) { return sx(d_cell(c.cell), {d_texts(c.texts)}); });
  return sx("text " + t.factor.name, {t.by.empty() ? "" : d_idents("by", t.by), render_if(t.from, d_json), levels, cells});
}
std::string d(const ast::PromptDecl& p) { return sx("prompt", {dx(p.id), dx(p.text)}); }
std::string d(const ast::ProviderDecl& p) { return sx("provider " + p.name.name, {d_block(p.settings)}); }
std::string d(const ast::PricesDecl& p) {
  return sx_list("prices " + p.provider.name, p.entries,
                 [](const ast::PriceEntry& e) { return sx(q(e.model), {d_block(e.price)}); });
}
std::string d(const ast::ModelDecl& m) {
  return sx("model " + m.name.name, {m.preset.name, q(m.model), render_if(m.settings, d_block)});
}
std::string d(const ast::DefaultsDecl& x) { return sx("defaults", {d_block(x.settings)}); }
std::string d(const ast::ArmDecl& a) { return sx("arm " + a.name.name, {d_block(a.settings)}); }
std::string d(const ast::JudgeDecl& j) {
  return sx("judge " + j.name.name, {j.preset.name, q(j.model), render_if(j.settings, d_block)});
}
std::string d_dim(const ast::DimDecl& x) {
  std::string anchors = join(x.anchors, " ", [](const ast::Anchor& a) { return sx("anchor", {dx(a.score), q(a.label), render_if(a.text, q)}); });
  return sx("dim " + x.name.name,
            {q(x.title), render_if(x.scale, [](const ast::Expr& e) { return sx("scale", {dx(e)}); }), render_if(x.description, q), anchors,
             render_if(x.na_when, [](const ast::Expr& e) { return sx("na", {dx(e)}); }),
             render_if(x.against, [](const ast::Expr& e) { return sx("against", {dx(e)}); }),
             join(x.notes, " ", [](const auto& n) { return sx("note", {q(n)}); }),
             render_if(x.scored_by, [](const ast::Ident& i) { return sx("scored_by", {i.name}); }),
             join(x.bands, " ", [](const ast::Band& b) {
               return sx("band", {dx(b.score), b.at_least ? dx(*b.at_least) : std::string("otherwise")});
             })});
}
std::string d_criteria(const ast::CriteriaDecl& c) {
  return sx("criteria", {dx(c.source), render_if(c.description, q), render_if(c.per, name_of)});
}
std::string d(const ast::RubricDecl& r) {
  std::string order = r.order.empty() ? "" : sx_list("order", r.order, [](const auto& s) { return d_idents("step", s); });
  return sx("rubric " + r.name.name,
            {render_if(r.scale, dx), render_if(r.worst, name_of), join(r.instructions, " ", q), join(r.dims, " ", d_dim),
             render_if(r.criteria, d_criteria), order});
}
std::string d(const ast::FlagDecl& f) {
  std::string pairs = join(f.pairings, " ", [](const ast::Pairing& p) {
    return sx("pair " + p.factor.name, {p.each_a ? "each:" : p.a.name, p.each_b ? "each:" : p.b.name});
  });
  return sx("flag " + f.name.name, {pairs, dx(f.when)});
}
std::string d(const ast::PanelDecl& p) {
  return sx("panel " + p.name.name, {p.aggregate.name, d_idents("of", p.judges)});
}
std::string d(const ast::ContrastDecl& c) {
  return sx("contrast " + c.name.name, {dx(c.value), c.by.empty() ? "" : d_idents("by", c.by),
                                        c.where ? sx("where", {dx(*c.where)}) : ""});
}
std::string d(const ast::AnalysisDecl& a) {
  std::string formula = render_if(a.formula, [](const ast::Formula& f) {
    return sx_list("~ " + f.response.name, f.terms, [](const ast::FormulaTerm& t) {
      return t.group ? sx("random", {t.group->name}) : d_idents(t.crossed ? "*" : ":", t.vars);
    });
  });
  std::string head = "analysis " + a.name.name + (a.kind.name.empty() ? "" : " " + a.kind.name);  // no kind: an extension
  return sx(head, {formula, sx_list("args", a.args, dx), d_options(a.options)});
}
std::string d(const ast::ReportDecl& r) {
  return sx_list("report " + r.name.name, r.items, [](const ast::ReportItem& i) {
    const char* change = i.change == ast::ItemChange::override_ ? "override " : "";
    return sx(change + i.kind.name + (i.name ? " " + i.name->name : ""), {render_if(i.content, dx), d_options(i.options)});
  });
}

std::string d_item(const char* key, const std::optional<ast::Expr>& e) {
  return render_if(e, [&](const ast::Expr& v) { return sx(key, {dx(v)}); });
}
std::string d(const ast::SimulateDecl& s) {
  std::string dims = join(s.dims, " ", [](const ast::SimDim& x) {
    std::string effects = join(x.effects, " ", [](const ast::SimEffect& e) { return sx("effect", {dx(e.when), dx(e.value)}); });
    std::string biases = join(x.biases, " ", [](const ast::SimEffect& e) { return sx(e.rubric ? "bias under " + e.rubric->name : "bias", {dx(e.when), dx(e.value)}); });
    std::string randoms = join(x.randoms, " ", [](const ast::SimRandom& r) { return sx("random " + d_field(r.group), {dx(r.sd)}); });
    return sx("dim " + x.dim.name, {d_item("intercept", x.intercept), effects, biases, randoms, d_item("residual", x.residual),
                                    d_item("answer", x.answer), d_item("na", x.na_rate), d_item("na_when", x.na_when), d_item("round", x.round),
                                    d_item("clip", x.clip)});
  });
  return sx("simulate", {d_item("seed", s.seed), dims});
}

}  // namespace

std::string dump_ast(const ast::Module& module) {
  std::string out;
  for (const auto& decl : module.decls) {
    if (decl.change != ast::Change::declare) out += decl.change == ast::Change::extend ? "extend " : "override ";
    out += std::visit([](const auto& n) { return d(n); }, decl.node) + "\n";
  }
  return out;
}

}  // namespace mirac
