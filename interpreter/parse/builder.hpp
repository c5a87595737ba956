// parse_builder.hpp: the parse-tree-to-AST step of interpreter/parse/parse.cpp, as a class of its
// own so that the builders of newer constructs live in files of their own
// (parse_changes.cpp: extend, override, remove). Internal to the parser.
#pragma once

#include <cstdlib>
#include <string>

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "grammar/grammar.hpp"
#include "interpreter/model/ast.hpp"
#include "interpreter/model/diagnostics.hpp"
#include "interpreter/parse/parse.hpp"

namespace mirac::parse_detail {

namespace g = grammar;
namespace pegtl = tao::pegtl;
using Node = pegtl::parse_tree::node;

class Builder {
 public:
  Builder(FileId file, const SourceManager& sources, Diagnostics& diags) : file_(file), sources_(sources), diags_(diags) {}

  SourceRange range(const Node& n) const {
    std::size_t begin = n.begin().byte;
    std::size_t end = n.end().byte;
    // A node's end may include trailing blanks; the caret should not.
    const std::string& text = sources_.text(file_);
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    return sources_.range(file_, begin, end);
  }
  static std::string text(const Node& n) { return std::string(n.string_view()); }

  ast::Ident ident(const Node& n) const { return {text(n), range(n)}; }

  ast::StringLit string(const Node& n) const {
    std::string written = text(n);
    bool escapes = written.rfind("\"\"\"", 0) != 0;  // """ strings are raw
    for (std::size_t at = written.find("\\u{"); escapes && at != std::string::npos; at = written.find("\\u{", at + 1)) {
      if (at > 0 && written[at - 1] == '\\') continue;
      std::size_t close = written.find('}', at);
      std::size_t digits = close - at - 3;
      unsigned long cp = digits <= 6 ? std::stoul(written.substr(at + 3, digits), nullptr, 16) : 0x110000;
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        std::size_t begin = n.begin().byte + at;
        diags_.error(sources_.range(file_, begin, begin + close - at + 1),
                     "'" + written.substr(at, close - at + 1) + "' is not a Unicode scalar value");
      }
    }
    return {decode_string_literal(written), written.rfind("\"\"\"", 0) == 0};
  }

  // --- expressions ---------------------------------------------------------------------
  ast::Expr expr(const Node& n) const {
    ast::Expr e;
    e.range = range(n);
    if (n.is_type<g::number>()) {
      e.node = ast::NumberLit{std::strtod(text(n).c_str(), nullptr), text(n)};  // strtod: 1e999 is inf, not a throw
    } else if (n.is_type<g::string_lit>()) {
      e.node = string(n);
    } else if (n.is_type<g::true_lit>()) {
      e.node = ast::BoolLit{true};
    } else if (n.is_type<g::false_lit>()) {
      e.node = ast::BoolLit{false};
    } else if (n.is_type<g::none_lit>()) {
      e.node = ast::NoneLit{};
    } else if (n.is_type<g::name>()) {
      e.node = ast::Name{text(n)};
    } else if (n.is_type<g::call>()) {
      ast::Call c{ident(*n.children.at(0)), {}};
      for (const auto& a : n.children.at(1)->children) c.args.push_back(expr(*a));
      e.node = std::move(c);
    } else if (n.is_type<g::list_lit>()) {
      ast::ListLit l;
      for (const auto& a : n.children) l.items.push_back(expr(*a));
      e.node = std::move(l);
    } else if (n.is_type<g::paren_expr>()) {
      ast::Expr inner = expr(*n.children.at(0));
      inner.range = e.range;
      return inner;
    } else if (n.is_type<g::if_expr>()) {
      e.node = ast::IfExpr{expr(*n.children.at(0)), expr(*n.children.at(1)), expr(*n.children.at(2))};
    } else if (n.is_type<g::unary_op>()) {
      e.node = ast::Unary{n.children.at(0)->is_type<g::neg_op>() ? "-" : "not", expr(*n.children.at(1))};
    } else if (n.is_type<g::postfix>()) {
      return postfix(n);
    } else if (n.children.size() >= 3 && n.children.size() % 2 == 1) {
      return chain(n);
    } else if (n.children.size() == 1) {
      return expr(*n.children[0]);
    } else {
      throw std::logic_error("parse: unexpected expression node " + std::string(n.type));
    }
    return e;
  }

  // primary (.field | [cells])*
  ast::Expr postfix(const Node& n) const {
    ast::Expr base = expr(*n.children[0]);
    for (std::size_t i = 1; i < n.children.size(); ++i) {
      const Node& s = *n.children[i];
      ast::Expr next;
      next.range = sources_.range(file_, n.begin().byte, range(s).end.byte);
      if (s.is_type<g::field_suffix>()) {
        next.node = ast::Field{std::move(base), ident(*s.children.at(0))};
      } else {
        ast::CellSelect sel{std::move(base), {}};
        for (const auto& item : s.children) {
          ast::CellItem ci;
          for (const auto& part : item->children) {
            if (part->is_type<g::cell_factor>()) {
              ci.factor = ident(*part);
            } else {
              ci.level = ident(*part);
              ci.each = part->is_type<g::cell_each>();
            }
          }
          if (ci.each) ci.level.range = range(*item);  // `each language`, replaced by a level as a whole
          sel.items.push_back(std::move(ci));
        }
        next.node = std::move(sel);
      }
      base = std::move(next);
    }
    return base;
  }

  // operand (op operand)*, left-associative.
  ast::Expr chain(const Node& n) const {
    ast::Expr lhs = expr(*n.children[0]);
    for (std::size_t i = 1; i + 1 < n.children.size(); i += 2) {
      std::string op = text(*n.children[i]);
      ast::Expr rhs = expr(*n.children[i + 1]);
      ast::Expr b;
      b.range = SourceRange{file_, lhs.range.begin, rhs.range.end};
      if (op == "..") b.node = ast::RangeLit{std::move(lhs), std::move(rhs)};
      else b.node = ast::Binary{op, std::move(lhs), std::move(rhs)};
      lhs = std::move(b);
    }
    return lhs;
  }

  // --- shared pieces -------------------------------------------------------------------
  ast::Block block(const Node& n) const {
    ast::Block b;
    b.range = range(n);
    for (const auto& p : n.children) {
      ast::Property prop;
      prop.range = range(*p);
      prop.key = ident(*p->children.at(0));
      const Node& v = *p->children.at(1);
      if (v.is_type<g::block>()) prop.block = block(v);
      else prop.value = expr(v);
      b.props.push_back(std::move(prop));
    }
    return b;
  }

  ast::DataSource source(const Node& n) const {
    return {ident(*n.children.at(0)), string(*n.children.at(1)), range(n)};
  }

  ast::Column column(const Node& n) const {
    const Node& c = n.children.empty() ? n : *n.children[0];
    if (c.is_type<g::string_lit>()) return {string(c).value, range(c)};
    return {text(c), range(c)};
  }

  std::vector<std::pair<ast::Ident, ast::Column>> column_block(const Node& n) const {
    std::vector<std::pair<ast::Ident, ast::Column>> out;
    for (const auto& b : n.children) out.emplace_back(ident(*b->children.at(0)), column(*b->children.at(1)));
    return out;
  }

  ast::FieldPath field_path(const Node& n) const {
    ast::FieldPath f{ident(*n.children.at(0)), {}, range(n)};
    if (n.children.size() > 1) f.level = ident(*n.children[1]);
    return f;
  }

  ast::FieldValue field_value(const Node& n) const {
    return {field_path(*n.children.at(0)), expr(*n.children.at(1)), range(n)};
  }

  ast::Expr seed_key(const Node& n) const {
    const Node& c = *n.children.at(0);
    if (c.is_type<g::ident>()) {  // a bare word is a string id
      ast::Expr e;
      e.range = range(c);
      e.node = ast::StringLit{text(c), false, true};
      return e;
    }
    return expr(c);
  }

  ast::CellPath cell_path(const Node& n) const {
    ast::CellPath p;
    p.range = range(n);
    for (const auto& c : n.children) p.levels.push_back(ident(*c));
    return p;
  }

  std::vector<ast::Ident> idents(const Node& n) const {
    std::vector<ast::Ident> out;
    for (const auto& c : n.children) out.push_back(ident(*c));
    return out;
  }

  ast::LangTexts lang_texts(const Node& n) const {
    ast::LangTexts t;
    t.range = range(n);
    bool braced = n.children.empty() || n.children[0]->is_type<g::lang_text>();
    if (!braced) {
      t.all = expr(*n.children[0]);
      return t;
    }
    for (const auto& c : n.children) t.by_level.emplace_back(ident(*c->children.at(0)), expr(*c->children.at(1)));
    return t;
  }

  ast::JsonTable json_table(const Node& n) const {
    return {source(*n.children.at(0)), string(*n.children.at(1)), string(*n.children.at(2)), range(n)};
  }

  std::vector<ast::AnalysisOption> options(const Node& n) const {
    std::vector<ast::AnalysisOption> out;
    for (const auto& o : n.children) {
      ast::AnalysisOption opt;
      opt.range = range(*o);
      opt.key = ident(*o->children.at(0));
      for (std::size_t i = 1; i < o->children.size(); ++i) {
        const Node& v = *o->children[i];
        if (v.is_type<g::column_block>()) {
          opt.columns = column_block(v);
          continue;
        }
        ast::OptionValue ov;
        ov.range = range(v);
        std::size_t k = 0;
        if (v.children.at(0)->is_type<g::option_label>()) {
          ov.label = ident(*v.children[0]->children.at(0));
          k = 1;
        }
        ov.value = expr(*v.children.at(k));
        if (v.children.size() > k + 1) ov.versus = expr(*v.children[k + 1]);
        opt.values.push_back(std::move(ov));
      }
      out.push_back(std::move(opt));
    }
    return out;
  }

  // --- declarations --------------------------------------------------------------------
  /// `extend ...`, `override ...` and `remove ...` (parse_changes.cpp).
  ast::Decl change(const Node& n) const;

  ast::Decl decl(const Node& n) const {
    ast::Decl d;
    d.range = range(n);
    d.file = file_;
    const auto& c = n.children;
    if (n.is_type<g::extend_decl>() || n.is_type<g::override_decl>() || n.is_type<g::remove_decl>()) {
      return change(n);
    } else if (n.is_type<g::audit_decl>()) {
      ast::AuditDecl a{ident(*c.at(0)), block(*c.back()), {}, {}};
      if (c.at(1)->is_type<g::audit_extends>()) {
        a.extends = string(*c[1]->children.at(0));
        a.extends_range = range(*c[1]->children.at(0));
      }
      d.node = std::move(a);
    } else if (n.is_type<g::use_decl>()) {
      const Node& m = *c.at(0);
      bool is_path = m.is_type<g::string_lit>();
      d.node = ast::UseDecl{is_path ? string(m).value : text(m), is_path, range(m)};
    } else if (n.is_type<g::factor_decl>()) {
      ast::FactorDecl f{ident(*c.at(0)), {}};
      for (std::size_t i = 1; i < c.size(); ++i) {
        ast::Level l{ident(*c[i]->children.at(0)), {}, range(*c[i])};
        if (c[i]->children.size() > 1) l.label = string(*c[i]->children[1]);
        f.levels.push_back(std::move(l));
      }
      d.node = std::move(f);
    } else if (n.is_type<g::design_decl>()) {
      d.node = ast::DesignDecl{idents(*c.at(0))};
    } else if (n.is_type<g::seeds_decl>()) {
      d.node = seeds(*c.at(0));
    } else if (n.is_type<g::checklists_decl>()) {
      d.node = checklists(*c.at(0));
    } else if (n.is_type<g::variant_decl>()) {
      d.node = variant(n);
    } else if (n.is_type<g::text_decl>()) {
      d.node = text_decl(n);
    } else if (n.is_type<g::prompt_decl>()) {
      d.node = ast::PromptDecl{expr(*c.at(0)), expr(*c.at(1))};
    } else if (n.is_type<g::provider_decl>()) {
      d.node = ast::ProviderDecl{ident(*c.at(0)), block(*c.at(1))};
    } else if (n.is_type<g::prices_decl>()) {
      ast::PricesDecl p{ident(*c.at(0)), {}};
      for (std::size_t i = 1; i < c.size(); ++i) {
        const Node& e = *c[i];
        const Node& model = *e.children.at(0);
        p.entries.push_back({string(model), range(model), block(*e.children.at(1)), range(e)});
      }
      d.node = std::move(p);
    } else if (n.is_type<g::model_decl>() || n.is_type<g::judge_decl>()) {
      const Node& ref = *c.at(1);
      std::optional<ast::Block> settings;
      if (c.size() > 2) settings = block(*c[2]);
      if (n.is_type<g::model_decl>())
        d.node = ast::ModelDecl{ident(*c[0]), ident(*ref.children.at(0)), string(*ref.children.at(1)), settings};
      else
        d.node = ast::JudgeDecl{ident(*c[0]), ident(*ref.children.at(0)), string(*ref.children.at(1)), settings};
    } else if (n.is_type<g::panel_decl>()) {
      d.node = ast::PanelDecl{ident(*c.at(0)), ident(*c.at(1)), idents(*c.at(2))};
    } else if (n.is_type<g::defaults_decl>()) {
      d.node = ast::DefaultsDecl{block(*c.at(0))};
    } else if (n.is_type<g::arm_decl>()) {
      d.node = ast::ArmDecl{ident(*c.at(0)), block(*c.at(1))};
    } else if (n.is_type<g::rubric_decl>()) {
      d.node = rubric(n);
    } else if (n.is_type<g::flag_decl>()) {
      ast::FlagDecl f{ident(*c.at(0)), {}, {}};
      const Node& body = *c.at(1);
      if (body.is_type<g::pair_flag>()) {
        for (std::size_t i = 0; i + 1 < body.children.size(); ++i) {
          const Node& p = *body.children[i];
          const Node& a = *p.children.at(1);
          const Node& b = *p.children.at(2);
          f.pairings.push_back({ident(*p.children.at(0)), ident(a), ident(b), range(p), a.is_type<g::pair_each>(),
                                b.is_type<g::pair_each>()});
        }
        f.when = expr(*body.children.back());
      } else {
        f.when = expr(body);
      }
      d.node = std::move(f);
    } else if (n.is_type<g::contrast_decl>()) {
      ast::ContrastDecl k{ident(*c.at(0)), expr(*c.at(1)), {}, std::nullopt};
      for (std::size_t i = 2; i < c.size(); ++i) {
        if (c[i]->is_type<g::contrast_by>()) k.by = idents(*c[i]->children.at(0));
        else if (c[i]->is_type<g::contrast_where>()) k.where = expr(*c[i]->children.at(0));
      }
      d.node = std::move(k);
    } else if (n.is_type<g::analysis_decl>()) {
      d.node = analysis(n);
    } else if (n.is_type<g::simulate_decl>()) {
      d.node = simulate(n);
    } else if (n.is_type<g::report_decl>()) {
      ast::ReportDecl r{ident(*c.at(0)), {}};
      for (std::size_t i = 1; i < c.size(); ++i) r.items.push_back(report_item(*c[i]));
      d.node = std::move(r);
    } else {
      throw std::logic_error("parse: unexpected declaration node " + std::string(n.type));
    }
    return d;
  }

  /// A report item, named or not, or a variant's change to one (parse_changes.cpp).
  ast::ReportItem report_item(const Node& item) const;

  ast::SeedsDecl seeds(const Node& n) const {
    // seeds_from (source, joins, mappings), seeds_inline (seeds) or, after `extend`,
    // seeds_extension (joins, then mappings and seeds).
    ast::SeedsDecl s;
    std::size_t i = 0;
    if (n.is_type<g::seeds_from>()) s.source = source(*n.children.at(i++));
    for (; i < n.children.size(); ++i) {
      const Node& m = *n.children[i];
      if (m.is_type<g::seeds_join>()) {
        s.joins.push_back({source(*m.children.at(0)), column(*m.children.at(1)), range(m)});
      } else if (m.is_type<g::inline_seed>()) {
        ast::InlineSeed is{seed_key(*m.children.at(0)), {}, range(m)};
        for (std::size_t k = 1; k < m.children.size(); ++k) is.fields.push_back(field_value(*m.children[k]));
        s.inline_seeds.push_back(std::move(is));
      } else {
        ast::FieldMapping fm{field_path(*m.children.at(0)), column(*m.children.at(1)), {}, false, range(m)};
        if (m.children.size() > 2) {
          fm.has_map = true;
          for (const auto& e : m.children[2]->children)
            fm.value_map.push_back({string(*e->children.at(0)), string(*e->children.at(1)), range(*e)});
        }
        s.mappings.push_back(std::move(fm));
      }
    }
    return s;
  }

  ast::ChecklistsDecl checklists(const Node& n) const {
    ast::ChecklistsDecl k;
    if (n.is_type<g::checklists_from>()) {
      k.source = source(*n.children.at(0));
      k.key = column(*n.children.at(1));
    } else {
      for (const auto& cl : n.children) {
        ast::InlineChecklist ic{seed_key(*cl->children.at(0)), {}, range(*cl)};
        for (std::size_t i = 1; i < cl->children.size(); ++i) ic.fields.push_back(field_value(*cl->children[i]));
        k.inline_checklists.push_back(std::move(ic));
      }
    }
    return k;
  }

  ast::VariantDecl variant(const Node& n) const {
    ast::VariantDecl v;
    v.field = ident(*n.children.at(0));
    std::size_t first_item = 1;
    if (n.children.size() > 1 && n.children[1]->is_type<g::factor_product>()) v.by = idents(*n.children[first_item++]);
    for (std::size_t i = first_item; i < n.children.size(); ++i) {
      const Node& item = *n.children[i];
      if (item.is_type<g::instructions_from>()) {
        v.instructions_from = json_table(*item.children.at(0));
      } else if (item.is_type<g::instructions_inline>()) {
        for (const auto& ins : item.children)
          v.instructions.push_back({cell_path(*ins->children.at(0)), lang_texts(*ins->children.at(1))});
      } else if (item.is_type<g::rewriter>()) {
        const Node& ref = *item.children.at(0);
        ast::RewriterSpec r{ident(*ref.children.at(0)), string(*ref.children.at(1)), {}, range(item)};
        if (item.children.size() > 1) r.settings = block(*item.children[1]);
        v.rewriter = std::move(r);
      } else if (item.is_type<g::lock>()) {
        ast::LockSpec l{source(*item.children.at(0)), {}, range(item)};
        if (item.children.size() > 1) l.columns = column_block(*item.children[1]);
        v.locks.push_back(std::move(l));
      } else if (item.is_type<g::variant_seed>()) {
        ast::VariantSeedTexts st{seed_key(*item.children.at(0)), {}, range(item)};
        for (std::size_t k = 1; k < item.children.size(); ++k) {
          const Node& ct = *item.children[k];
          st.texts.emplace_back(cell_path(*ct.children.at(0)), expr(*ct.children.at(1)));
        }
        v.seed_texts.push_back(std::move(st));
      }
    }
    return v;
  }

  ast::TextDecl text_decl(const Node& n) const {
    ast::TextDecl t;
    t.factor = ident(*n.children.at(0));
    for (std::size_t i = 1; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (c.is_type<g::text_from>()) {
        t.from = json_table(*c.children.at(0));
        continue;
      }
      if (c.is_type<g::factor_product>()) {
        t.by = idents(c);
        continue;
      }
      if (c.is_type<g::text_cell>()) {
        t.cells.push_back({cell_path(*c.children.at(0)), lang_texts(*c.children.at(1))});
        continue;
      }
      ast::TextLevel tl{ident(*c.children.at(0)), {}, {}, range(c)};
      const Node& body = *c.children.at(1);
      if (body.is_type<g::derived_text>()) {
        tl.derived = ast::DerivedText{source(*body.children.at(0)), expr(*body.children.at(1)),
                                      expr(*body.children.at(2)), range(body)};
      } else {
        tl.texts = lang_texts(body);
      }
      t.levels.push_back(std::move(tl));
    }
    return t;
  }

  ast::RubricDecl rubric(const Node& n) const {
    ast::RubricDecl r;
    r.name = ident(*n.children.at(0));
    for (std::size_t i = 1; i < n.children.size(); ++i) {
      const Node& item = *n.children[i];
      if (item.is_type<g::scale_item>()) {
        r.scale = expr(*item.children.at(0));
      } else if (item.is_type<g::worst_item>()) {
        r.worst = ident(*item.children.at(0));
      } else if (item.is_type<g::rubric_instructions>()) {
        r.instructions.push_back(string(*item.children.at(0)));
      } else if (item.is_type<g::order_item>()) {
        r.order_range = range(item);
        for (const auto& step : item.children) r.order.push_back(idents(*step));
      } else if (item.is_type<g::criteria_decl>()) {
        ast::CriteriaDecl c{expr(*item.children.at(0)), {}, {}, range(item)};
        for (std::size_t k = 1; k < item.children.size(); ++k) {
          const Node& ci = *item.children[k];
          if (ci.is_type<g::describe_item>()) c.description = string(*ci.children.at(0));
          else if (ci.is_type<g::criteria_per>()) c.per = ident(ci);
        }
        r.criteria = std::move(c);
      } else if (item.is_type<g::dim_decl>()) {
        ast::DimDecl dim;
        dim.range = range(item);
        dim.name = ident(*item.children.at(0));
        dim.title = string(*item.children.at(1));
        for (std::size_t k = 2; k < item.children.size(); ++k) {
          const Node& di = *item.children[k];
          if (di.is_type<g::scale_item>()) {
            dim.scale = expr(*di.children.at(0));
          } else if (di.is_type<g::anchor>()) {
            ast::Anchor a{expr(*di.children.at(0)), string(*di.children.at(1)), {}, range(di)};
            if (di.children.size() > 2) a.text = string(*di.children[2]);
            dim.anchors.push_back(std::move(a));
          } else if (di.is_type<g::describe_item>()) {
            dim.description = string(*di.children.at(0));
          } else if (di.is_type<g::na_item>()) {
            dim.na_when = expr(*di.children.at(0));
          } else if (di.is_type<g::against_item>()) {
            dim.against = expr(*di.children.at(0));
          } else if (di.is_type<g::note_item>()) {
            dim.notes.push_back(string(*di.children.at(0)));
          } else if (di.is_type<g::scored_item>()) {
            dim.scored_by = ident(*di.children.at(0));
          } else if (di.is_type<g::bands_item>()) {
            dim.bands_range = range(di);
            for (const auto& b : di.children) {
              ast::Band band{expr(*b->children.at(0)), {}, range(*b)};
              if (b->children.size() > 1) {
                const Node& t = *b->children[1];
                band.at_least = ast::Expr{ast::NumberLit{std::strtod(text(t).c_str(), nullptr), text(t)}, range(t)};
              }
              dim.bands.push_back(std::move(band));
            }
          }
        }
        r.dims.push_back(std::move(dim));
      }
    }
    return r;
  }

  ast::SimulateDecl simulate(const Node& n) const {
    ast::SimulateDecl s;
    for (const auto& item : n.children) {
      if (item->is_type<g::sim_seed>()) {
        s.seed = expr(*item->children.at(0));
        continue;
      }
      ast::SimDim dim;
      dim.range = range(*item);
      dim.dim = ident(*item->children.at(0));
      for (std::size_t k = 1; k < item->children.size(); ++k) {
        const Node& di = *item->children[k];
        const Node& first = *di.children.at(0);
        if (di.is_type<g::sim_intercept>()) dim.intercept = expr(first);
        else if (di.is_type<g::sim_effect>()) dim.effects.push_back({expr(first), expr(*di.children.at(1)), range(di)});
        else if (di.is_type<g::sim_bias>()) {
          const bool under = di.children.size() == 3;  // condition, rubric, value
          dim.biases.push_back({expr(first), expr(*di.children.back()), range(di),
                                under ? std::optional<ast::Ident>(ident(*di.children[1])) : std::nullopt});
        }
        else if (di.is_type<g::sim_random>()) dim.randoms.push_back({field_path(first), expr(*di.children.at(1)), range(di)});
        else if (di.is_type<g::sim_residual>()) dim.residual = expr(first);
        else if (di.is_type<g::sim_answer>()) dim.answer = expr(first);
        else if (di.is_type<g::na_item>()) dim.na_when = expr(first);
        else if (di.is_type<g::sim_na_rate>()) dim.na_rate = expr(first);
        else if (di.is_type<g::sim_round>()) dim.round = expr(first);
        else if (di.is_type<g::sim_clip>()) dim.clip = expr(first);
      }
      s.dims.push_back(std::move(dim));
    }
    return s;
  }

  ast::AnalysisDecl analysis(const Node& n) const {
    ast::AnalysisDecl a;
    a.name = ident(*n.children.at(0));
    a.kind = ident(*n.children.at(1));
    for (std::size_t i = 2; i < n.children.size(); ++i) {
      const Node& c = *n.children[i];
      if (c.is_type<g::formula>()) {
        ast::Formula f;
        f.range = range(c);
        f.response = ident(*c.children.at(0));
        for (std::size_t k = 1; k < c.children.size(); ++k) {
          const Node& t = *c.children[k];
          ast::FormulaTerm term;
          term.range = range(t);
          if (t.is_type<g::random_term>()) {
            term.group = ident(*t.children.at(0));
          } else {
            for (const auto& part : t.children) {
              if (part->is_type<g::term_op>()) term.crossed = term.crossed || text(*part) == "*";
              else term.vars.push_back(ident(*part));
            }
          }
          f.terms.push_back(std::move(term));
        }
        a.formula = std::move(f);
      } else if (c.is_type<g::arg_list>()) {
        for (const auto& e : c.children) a.args.push_back(expr(*e));
      } else if (c.is_type<g::options_block>()) {
        a.options = options(c);
      }
    }
    return a;
  }

 private:
  FileId file_;
  const SourceManager& sources_;
  Diagnostics& diags_;
};

}  // namespace mirac::parse_detail
