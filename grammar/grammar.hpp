// grammar.hpp: the PEGTL grammar of .audit files. docs/language.md is the prose version.
// Rules only; error texts live in grammar/errors.hpp, the tree-to-AST step in
// interpreter/parse/parse.cpp.
#pragma once

#include <tao/pegtl.hpp>

namespace mirac::grammar {

namespace pegtl = tao::pegtl;
using namespace pegtl;

// clang-format off

// --- lexical ---------------------------------------------------------------------------
// An unterminated comment or string is reported at its opening, not at the end of file.
struct block_comment_body : until<string<'*', '/'>> {};
struct unterminated_block_comment : success {};
struct line_comment : seq<two<'/'>, until<eolf>> {};
struct block_comment : sor<seq<string<'/', '*'>, block_comment_body>,
                           seq<at<string<'/', '*'>>, raise<unterminated_block_comment>>> {};
struct ws : star<sor<plus<space>, line_comment, block_comment>> {};

struct kw_and : TAO_PEGTL_KEYWORD("and") {};
struct kw_or : TAO_PEGTL_KEYWORD("or") {};
struct kw_not : TAO_PEGTL_KEYWORD("not") {};
struct kw_if : TAO_PEGTL_KEYWORD("if") {};
struct kw_then : TAO_PEGTL_KEYWORD("then") {};
struct kw_else : TAO_PEGTL_KEYWORD("else") {};
struct kw_true : TAO_PEGTL_KEYWORD("true") {};
struct kw_false : TAO_PEGTL_KEYWORD("false") {};
struct kw_none : TAO_PEGTL_KEYWORD("none") {};
struct kw_vs : TAO_PEGTL_KEYWORD("vs") {};
// Words that can never be names, because expressions use them.
struct reserved : sor<kw_and, kw_or, kw_not, kw_if, kw_then, kw_else, kw_true, kw_false, kw_none, kw_vs> {};
struct ident : seq<not_at<reserved>, identifier> {};

// A declaration keyword at the beginning of a line starts a new declaration, so an
// expression left unfinished on the line before does not swallow it as a name.
struct declaration_keyword : sor<TAO_PEGTL_KEYWORD("audit"), TAO_PEGTL_KEYWORD("use"), TAO_PEGTL_KEYWORD("factor"),
                                 TAO_PEGTL_KEYWORD("design"), TAO_PEGTL_KEYWORD("seeds"), TAO_PEGTL_KEYWORD("checklists"),
                                 TAO_PEGTL_KEYWORD("variant"), TAO_PEGTL_KEYWORD("text"), TAO_PEGTL_KEYWORD("prompt"),
                                 TAO_PEGTL_KEYWORD("provider"), TAO_PEGTL_KEYWORD("prices"), TAO_PEGTL_KEYWORD("model"),
                                 TAO_PEGTL_KEYWORD("defaults"),
                                 TAO_PEGTL_KEYWORD("arm"), TAO_PEGTL_KEYWORD("judge"), TAO_PEGTL_KEYWORD("panel"),
                                 TAO_PEGTL_KEYWORD("rubric"),
                                 TAO_PEGTL_KEYWORD("flag"), TAO_PEGTL_KEYWORD("contrast"), TAO_PEGTL_KEYWORD("analysis"),
                                 TAO_PEGTL_KEYWORD("report"), TAO_PEGTL_KEYWORD("simulate"),
                                 TAO_PEGTL_KEYWORD("extend"), TAO_PEGTL_KEYWORD("override"), TAO_PEGTL_KEYWORD("remove")> {};

// "..." with escapes \n \t \r \" \\ \u{hex}; placeholders {...} are kept for the template step.
struct hex_digits : plus<xdigit> {};
struct unicode_escape : seq<one<'u'>, one<'{'>, must<hex_digits>, must<one<'}'>>> {};
struct escape_char : sor<one<'n', 't', 'r', '"', '\\', '0'>, unicode_escape> {};
struct escape : seq<one<'\\'>, must<escape_char>> {};
struct string_char : sor<escape, utf8::not_one<'"', '\\', '\n', '\r'>> {};
struct string_body : until<one<'"'>, string_char> {};
struct unterminated_string : success {};
struct quoted_string : sor<seq<one<'"'>, string_body>, seq<at<one<'"'>, star<string_char>, eolf>, raise<unterminated_string>>> {};
// """...""" spans lines; common indentation is removed (see docs/language.md).
struct long_string_body : until<three<'"'>, utf8::any> {};
struct unterminated_long_string : success {};
struct long_string : sor<seq<three<'"'>, long_string_body>, seq<at<three<'"'>>, raise<unterminated_long_string>>> {};
struct string_lit : sor<long_string, quoted_string> {};

struct number : seq<plus<digit>, opt<one<'.'>, plus<digit>>, opt<one<'e', 'E'>, opt<one<'+', '-'>>, plus<digit>>> {};

// --- expressions -----------------------------------------------------------------------
struct expr;
struct lparen : one<'('> {};
struct rparen : one<')'> {};
struct rbracket : one<']'> {};
struct rbrace : one<'}'> {};
struct lbrace : one<'{'> {};

struct arg_list : opt<expr, star<ws, one<','>, ws, must<expr>>> {};
struct call : seq<ident, ws, lparen, ws, arg_list, ws, must<rparen>> {};
struct name : seq<not_at<bol, declaration_keyword>, ident> {};
struct list_lit : seq<one<'['>, ws, opt<expr, star<ws, one<','>, ws, not_at<rbracket>, must<expr>>, ws, opt<one<','>, ws>>, must<rbracket>> {};
struct paren_expr : seq<lparen, ws, must<expr>, ws, must<rparen>> {};
struct if_then : seq<expr> {};
struct if_else : seq<expr> {};
struct if_expr : seq<kw_if, ws, must<expr>, ws, must<kw_then>, ws, must<if_then>, ws, must<kw_else>, ws, must<if_else>> {};
struct true_lit : kw_true {};
struct false_lit : kw_false {};
struct none_lit : kw_none {};
struct primary : sor<number, string_lit, true_lit, false_lit, none_lit, if_expr, list_lit, paren_expr, call, name> {};

struct cell_level : ident {};
struct cell_factor : ident {};
// `each language`: every level of the factor that the declaration names nowhere else (a
// contrast stands for one contrast per such level).
struct cell_each : TAO_PEGTL_KEYWORD("each") {};
struct cell_item : sor<seq<cell_each, ws, cell_factor>, seq<cell_factor, ws, one<'='>, not_at<one<'='>>, ws, must<cell_level>>, cell_level> {};
struct index_suffix : seq<one<'['>, ws, must<cell_item>, star<ws, one<','>, ws, must<cell_item>>, ws, must<rbracket>> {};
struct field_name : ident {};
struct field_suffix : seq<one<'.'>, not_at<one<'.'>>, ws, must<field_name>> {};
struct postfix : seq<primary, star<ws, sor<field_suffix, index_suffix>>> {};

struct neg_op : one<'-'> {};
struct not_op : kw_not {};
struct unary;
struct unary_op : seq<sor<neg_op, not_op>, ws, must<unary>> {};
struct unary : sor<unary_op, postfix> {};

struct mul_op : sor<one<'*'>, one<'/'>> {};
struct mul_expr : seq<unary, star<ws, mul_op, ws, must<unary>>> {};
struct add_op : sor<string<'+', '+'>, one<'+'>, seq<one<'-'>, not_at<one<'>'>>>> {};
struct add_expr : seq<mul_expr, star<ws, add_op, ws, must<mul_expr>>> {};
struct range_op : two<'.'> {};
struct range_expr : seq<add_expr, opt<ws, range_op, ws, must<add_expr>>> {};
struct cmp_op : sor<two<'='>, string<'!', '='>, string<'<', '='>, string<'>', '='>, one<'<'>, one<'>'>> {};
struct cmp_expr : seq<range_expr, opt<ws, cmp_op, ws, must<range_expr>>> {};
struct and_op : kw_and {};
struct and_expr : seq<cmp_expr, star<ws, and_op, ws, must<cmp_expr>>> {};
struct or_op : kw_or {};
struct or_expr : seq<and_expr, star<ws, or_op, ws, must<and_expr>>> {};
struct expr : or_expr {};

// --- shared pieces ---------------------------------------------------------------------
struct property;
struct block : seq<lbrace, ws, star<property, ws>, must<rbrace>> {};
struct property_key : ident {};
struct property_value : sor<block, expr> {};
struct property : seq<property_key, ws, must<property_value>> {};

struct source_format : ident {};
struct source_path : string_lit {};
struct data_source : seq<source_format, ws, lparen, ws, must<source_path>, ws, must<rparen>> {};
struct column : sor<ident, string_lit> {};
struct column_binding : seq<ident, ws, must<one<'='>>, ws, must<column>, opt<ws, one<','>>> {};
struct column_block : seq<lbrace, ws, star<column_binding, ws>, must<rbrace>> {};
struct seed_key : sor<string_lit, number, ident> {};
struct field_path : seq<ident, opt<one<'.'>, must<ident>>> {};
struct field_value : seq<field_path, ws, must<one<'='>>, ws, must<expr>> {};
struct cell_path : seq<ident, star<one<'.'>, must<ident>>> {};
struct ident_list : seq<ident, star<ws, one<','>, ws, must<ident>>> {};
struct factor_product : seq<ident, star<ws, one<'*'>, ws, must<ident>>> {};
struct lang_text : seq<ident, ws, must<expr>> {};
struct lang_texts : sor<seq<lbrace, ws, star<lang_text, ws>, must<rbrace>>, expr> {};
struct json_at : string_lit {};
struct json_key : string_lit {};
struct json_table : seq<data_source, ws, must<TAO_PEGTL_KEYWORD("at")>, ws, must<json_at>, ws, must<TAO_PEGTL_KEYWORD("key")>, ws, must<json_key>> {};
struct model_string : string_lit {};
struct model_ref : seq<ident, ws, must<lparen>, ws, must<model_string>, ws, must<rparen>> {};

// --- declarations ----------------------------------------------------------------------
// audit NAME (extends "base.audit")? { title "..." data "dir" }
struct extends_path : string_lit {};
struct audit_extends : seq<TAO_PEGTL_KEYWORD("extends"), ws, must<extends_path>> {};
struct audit_decl : seq<TAO_PEGTL_KEYWORD("audit"), ws, must<ident>, ws, opt<audit_extends, ws>, must<block>> {};

// use stdlib.providers | use "relative/file.audit"
struct module_name : seq<ident, star<one<'.'>, must<ident>>> {};
struct module_ref : sor<string_lit, module_name> {};
struct use_decl : seq<TAO_PEGTL_KEYWORD("use"), ws, must<module_ref>> {};

// factor NAME { level "label"? ... }
struct level_label : string_lit {};
struct level : seq<ident, opt<ws, level_label>> {};
struct factor_decl : seq<TAO_PEGTL_KEYWORD("factor"), ws, must<ident>, ws, must<lbrace>, ws, star<level, ws>, must<rbrace>> {};

// design f1 * f2 * ...
struct design_decl : seq<TAO_PEGTL_KEYWORD("design"), ws, must<factor_product>> {};

// seeds from csv("f") (join csv("g") on COLUMN)* { field(.level)? = column (map { "a": "b" })? }  |  seeds { seed ID { f = v } }
struct map_entry : seq<string_lit, ws, must<one<':'>>, ws, must<string_lit>, opt<ws, one<','>>> {};
struct value_map : seq<TAO_PEGTL_KEYWORD("map"), ws, must<lbrace>, ws, star<map_entry, ws>, must<rbrace>> {};
struct field_mapping : seq<field_path, ws, must<one<'='>>, ws, must<column>, opt<ws, value_map>> {};
struct seeds_join : seq<TAO_PEGTL_KEYWORD("join"), ws, must<data_source>, ws, must<TAO_PEGTL_KEYWORD("on")>, ws, must<column>> {};
struct seeds_from : seq<TAO_PEGTL_KEYWORD("from"), ws, must<data_source>, ws, star<seeds_join, ws>, must<lbrace>, ws, star<field_mapping, ws>, must<rbrace>> {};
struct inline_seed : seq<TAO_PEGTL_KEYWORD("seed"), ws, must<seed_key>, ws, must<lbrace>, ws, star<field_value, ws>, must<rbrace>> {};
struct seeds_inline : seq<lbrace, ws, star<inline_seed, ws>, must<rbrace>> {};
struct seeds_body : sor<seeds_from, seeds_inline> {};
struct seeds_decl : seq<TAO_PEGTL_KEYWORD("seeds"), ws, must<seeds_body>> {};

// checklists from jsonl("f") key COLUMN  |  checklists { checklist ID { f = v } }
struct checklist_key : column {};
struct checklists_from : seq<TAO_PEGTL_KEYWORD("from"), ws, must<data_source>, ws, must<TAO_PEGTL_KEYWORD("key")>, ws, must<checklist_key>> {};
struct inline_checklist : seq<TAO_PEGTL_KEYWORD("checklist"), ws, must<seed_key>, ws, must<lbrace>, ws, star<field_value, ws>, must<rbrace>> {};
struct checklists_inline : seq<lbrace, ws, star<inline_checklist, ws>, must<rbrace>> {};
struct checklists_body : sor<checklists_from, checklists_inline> {};
struct checklists_decl : seq<TAO_PEGTL_KEYWORD("checklists"), ws, must<checklists_body>> {};

// variant FIELD by f1 * f2 { instructions ... rewriter ... lock ... seed ID { cell "text" } }
struct instructions_from : seq<TAO_PEGTL_KEYWORD("instructions"), ws, TAO_PEGTL_KEYWORD("from"), ws, must<json_table>> {};
struct instruction : seq<cell_path, ws, must<lang_texts>> {};
struct instructions_inline : seq<TAO_PEGTL_KEYWORD("instructions"), ws, must<lbrace>, ws, star<instruction, ws>, must<rbrace>> {};
struct rewriter : seq<TAO_PEGTL_KEYWORD("rewriter"), ws, must<model_ref>, opt<ws, block>> {};
struct lock : seq<TAO_PEGTL_KEYWORD("lock"), ws, must<data_source>, opt<ws, column_block>> {};
struct cell_text : seq<cell_path, ws, must<expr>> {};
struct variant_seed : seq<TAO_PEGTL_KEYWORD("seed"), ws, must<seed_key>, ws, must<lbrace>, ws, star<cell_text, ws>, must<rbrace>> {};
struct variant_item : sor<instructions_from, instructions_inline, rewriter, lock, variant_seed> {};
struct variant_decl : seq<TAO_PEGTL_KEYWORD("variant"), ws, must<ident>, ws, must<TAO_PEGTL_KEYWORD("by")>, ws, must<factor_product>, ws, must<lbrace>, ws, star<variant_item, ws>, must<rbrace>> {};

// text FACTOR (from json("f") at "path" key "{factor}")? { LEVEL { lang "..." } | LEVEL from ... }
//   | text NAME by f1 * f2 { CELL TEXTS ... }
struct derived_where : expr {};
struct derived_select : expr {};
struct derived_text : seq<TAO_PEGTL_KEYWORD("from"), ws, must<data_source>, ws, must<TAO_PEGTL_KEYWORD("where")>, ws, must<derived_where>, ws, must<TAO_PEGTL_KEYWORD("select")>, ws, must<derived_select>> {};
struct text_level_body : sor<derived_text, lang_texts> {};
struct text_level : seq<ident, ws, must<text_level_body>> {};
struct text_from : seq<TAO_PEGTL_KEYWORD("from"), ws, must<json_table>> {};
struct factor_texts : seq<opt<text_from, ws>, must<lbrace>, ws, star<text_level, ws>, must<rbrace>> {};
// text NAME by f1 * f2 { l1.l2 "..." | l1.l2 { lang "..." } }: a text per cell of several factors
struct text_by : seq<TAO_PEGTL_KEYWORD("by"), ws, must<factor_product>> {};
struct text_cell : seq<cell_path, ws, must<lang_texts>> {};
struct keyed_texts : seq<text_by, ws, must<lbrace>, ws, star<text_cell, ws>, must<rbrace>> {};
struct text_decl : seq<TAO_PEGTL_KEYWORD("text"), ws, must<ident>, ws, sor<keyed_texts, factor_texts>> {};

// prompt { id EXPR text EXPR }
struct prompt_id : expr {};
struct prompt_text : expr {};
struct prompt_decl : seq<TAO_PEGTL_KEYWORD("prompt"), ws, must<lbrace>, ws, must<TAO_PEGTL_KEYWORD("id")>, ws, must<prompt_id>, ws, must<TAO_PEGTL_KEYWORD("text")>, ws, must<prompt_text>, ws, must<rbrace>> {};

struct provider_decl : seq<TAO_PEGTL_KEYWORD("provider"), ws, must<ident>, ws, must<block>> {};

// prices PROVIDER { "model string" { input 2.5 output 15 } ... }
// Model strings hold dots and dashes, so an entry's key is a string; a bare word there is
// reported as such rather than as a missing '}'.
struct price_key_not_string : success {};
struct price_entry : seq<string_lit, ws, must<block>> {};
struct price_item : sor<price_entry, seq<not_at<bol, declaration_keyword>, at<ident>, raise<price_key_not_string>>> {};
struct prices_decl : seq<TAO_PEGTL_KEYWORD("prices"), ws, must<ident>, ws, must<lbrace>, ws, star<price_item, ws>, must<rbrace>> {};
struct model_decl : seq<TAO_PEGTL_KEYWORD("model"), ws, must<ident>, ws, must<one<'='>>, ws, must<model_ref>, opt<ws, block>> {};
struct defaults_decl : seq<TAO_PEGTL_KEYWORD("defaults"), ws, must<block>> {};
struct arm_decl : seq<TAO_PEGTL_KEYWORD("arm"), ws, must<ident>, ws, must<block>> {};
struct judge_decl : seq<TAO_PEGTL_KEYWORD("judge"), ws, must<ident>, ws, must<one<'='>>, ws, must<model_ref>, opt<ws, block>> {};

// panel NAME = median(judge, judge, ...): several judges' scores as one rater
struct panel_aggregate : ident {};
struct panel_members : ident_list {};
struct panel_decl : seq<TAO_PEGTL_KEYWORD("panel"), ws, must<ident>, ws, must<one<'='>>, ws, must<panel_aggregate>, ws, must<lparen>, ws, must<panel_members>, ws, must<rparen>> {};

// rubric NAME { scale 1..5 worst high instructions "..." dim ... order D1 then D2, D3 }
// A dimension's own `scale 1..10` (among its items) overrides the rubric's for it.
struct scale_item : seq<TAO_PEGTL_KEYWORD("scale"), ws, must<expr>> {};
struct worst_item : seq<TAO_PEGTL_KEYWORD("worst"), ws, must<ident>> {};
struct rubric_instructions : seq<TAO_PEGTL_KEYWORD("instructions"), ws, must<string_lit>> {};
struct anchor_label : string_lit {};
struct anchor_text : string_lit {};
struct anchor : seq<number, ws, must<anchor_label>, opt<ws, anchor_text>> {};
struct describe_item : seq<TAO_PEGTL_KEYWORD("describe"), ws, must<string_lit>> {};
struct na_item : seq<TAO_PEGTL_KEYWORD("na"), ws, must<TAO_PEGTL_KEYWORD("when")>, ws, must<expr>> {};
struct against_item : seq<TAO_PEGTL_KEYWORD("against"), ws, must<expr>> {};
struct note_item : seq<TAO_PEGTL_KEYWORD("note"), ws, must<string_lit>> {};
struct scored_by : ident {};
struct scored_item : seq<TAO_PEGTL_KEYWORD("scored"), ws, must<TAO_PEGTL_KEYWORD("by")>, ws, must<scored_by>> {};
// from criteria { 1 if met >= 0.9  3 if met >= 0.5  5 otherwise }: a score from the share met
struct band_threshold : number {};
struct at_least_op : string<'>', '='> {};
struct band : seq<number, ws, sor<seq<kw_if, ws, must<TAO_PEGTL_KEYWORD("met")>, ws, must<at_least_op>, ws, must<band_threshold>>,
                                  TAO_PEGTL_KEYWORD("otherwise")>> {};
struct bands_item : seq<TAO_PEGTL_KEYWORD("from"), ws, must<TAO_PEGTL_KEYWORD("criteria")>, ws, must<lbrace>, ws, star<band, ws>, must<rbrace>> {};
struct dim_item : sor<scale_item, anchor, describe_item, na_item, against_item, note_item, scored_item, bands_item> {};
struct dim_title : string_lit {};
struct dim_decl : seq<TAO_PEGTL_KEYWORD("dim"), ws, must<ident>, ws, must<dim_title>, ws, must<lbrace>, ws, star<dim_item, ws>, must<rbrace>> {};
struct order_step : ident_list {};
struct order_item : seq<TAO_PEGTL_KEYWORD("order"), ws, must<order_step>, star<ws, kw_then, ws, must<order_step>>> {};
// criteria checklist.required_elements { describe "..." per element }
struct criteria_per : ident {};
struct criteria_item : sor<describe_item, seq<TAO_PEGTL_KEYWORD("per"), ws, must<criteria_per>>> {};
struct criteria_decl : seq<TAO_PEGTL_KEYWORD("criteria"), ws, must<expr>, ws, must<lbrace>, ws, star<criteria_item, ws>, must<rbrace>> {};
struct rubric_item : sor<scale_item, worst_item, rubric_instructions, dim_decl, criteria_decl, order_item> {};
struct rubric_decl : seq<TAO_PEGTL_KEYWORD("rubric"), ws, must<ident>, ws, must<lbrace>, ws, star<rubric_item, ws>, must<rbrace>> {};

// flag NAME = pair(f: a vs b) (| pair(...))* when EXPR  |  flag NAME = EXPR
// `pair(language: each vs en)`: one pairing per level of the factor other than the one named.
struct pair_each : TAO_PEGTL_KEYWORD("each") {};
struct pair_level : sor<pair_each, ident> {};
struct pairing : seq<TAO_PEGTL_KEYWORD("pair"), ws, lparen, ws, must<ident>, ws, must<one<':'>>, ws, must<pair_level>, ws, must<kw_vs>, ws, must<pair_level>, ws, must<rparen>> {};
struct flag_when : expr {};
struct pair_flag : seq<pairing, star<ws, one<'|'>, ws, must<pairing>>, ws, must<TAO_PEGTL_KEYWORD("when")>, ws, must<flag_when>> {};
struct unit_flag : expr {};
struct flag_body : sor<pair_flag, unit_flag> {};
struct flag_decl : seq<TAO_PEGTL_KEYWORD("flag"), ws, must<ident>, ws, must<one<'='>>, ws, must<flag_body>> {};

// contrast NAME = EXPR (by a, b)? (where EXPR)?
struct contrast_by : seq<TAO_PEGTL_KEYWORD("by"), ws, must<ident_list>> {};
struct contrast_where : seq<TAO_PEGTL_KEYWORD("where"), ws, must<expr>> {};
struct contrast_decl : seq<TAO_PEGTL_KEYWORD("contrast"), ws, must<ident>, ws, must<one<'='>>, ws, must<expr>, opt<ws, contrast_by>,
                           opt<ws, contrast_where>> {};

// analysis NAME = KIND(formula | args) { option value, ... }
struct random_term : seq<lparen, ws, one<'1'>, ws, must<one<'|'>>, ws, must<ident>, ws, must<rparen>> {};
struct term_op : sor<one<'*'>, one<':'>> {};
struct fixed_term : seq<ident, star<ws, term_op, ws, must<ident>>> {};
struct formula_term : sor<random_term, fixed_term> {};
struct formula : seq<ident, ws, one<'~'>, ws, must<formula_term>, star<ws, one<'+'>, ws, must<formula_term>>> {};
struct analysis_args : sor<formula, arg_list> {};
struct option_label : seq<ident, ws, one<':'>> {};
struct option_versus : expr {};
struct option_value : seq<opt<option_label, ws>, expr, opt<ws, kw_vs, ws, must<option_versus>>> {};
struct option_key : ident {};
struct option : seq<option_key, ws, must<option_value>, star<ws, one<','>, ws, must<option_value>>, opt<ws, column_block>> {};
struct options_block : seq<lbrace, ws, star<option, ws>, must<rbrace>> {};
struct analysis_decl : seq<TAO_PEGTL_KEYWORD("analysis"), ws, must<ident>, ws, must<one<'='>>, ws, must<ident>, ws, must<lparen>, ws, must<analysis_args>, ws, must<rparen>, opt<ws, options_block>> {};

// report NAME { table means(D3) { by model }  table table3 = means(D1, D3) ... }: an item may
// be named, as analyses are, so that a variant's `extend report NAME { ... }` can replace it
// (`override table table3 = means(D3)`) or drop it (`remove table3`).
struct report_item_name : ident {};
struct report_entry : seq<ident, ws, opt<report_item_name, ws, one<'='>, not_at<one<'='>>, ws>, must<expr>, opt<ws, options_block>> {};
struct overridden_item : ident {};
struct override_equals : one<'='> {};
struct report_override : seq<TAO_PEGTL_KEYWORD("override"), ws, must<ident>, ws, must<overridden_item>, ws, must<override_equals>, ws,
                             must<expr>, opt<ws, options_block>> {};
struct removed_item : ident {};
// The name is on the line of `remove`: one left out is reported there, not at the next
// line's `}`, and the next item's keyword (`table`) is never taken for the name.
struct report_remove : seq<TAO_PEGTL_KEYWORD("remove"), star<sor<blank, block_comment>>, must<removed_item>> {};
struct report_item : sor<report_override, report_remove, report_entry> {};
struct report_decl : seq<TAO_PEGTL_KEYWORD("report"), ws, must<ident>, ws, must<lbrace>, ws, star<report_item, ws>, must<rbrace>> {};

// simulate { seed N  dim D3 { intercept 2.36  effect hls == low: 0.117  random seed 0.64
//            bias language == zh: -0.2  residual 0.6  answer 0.3  na 0.02  na when EXPR  round true  clip true } }
// The truth a simulated audit draws its scores from (docs/simulation.md).
struct sim_value : expr {};
struct sim_condition : expr {};
struct sim_seed : seq<TAO_PEGTL_KEYWORD("seed"), ws, must<sim_value>> {};
struct sim_intercept : seq<TAO_PEGTL_KEYWORD("intercept"), ws, must<sim_value>> {};
struct sim_effect_colon : one<':'> {};
struct sim_effect : seq<TAO_PEGTL_KEYWORD("effect"), ws, must<sim_condition>, ws, must<sim_effect_colon>, ws, must<sim_value>> {};
// `bias language == zh: -0.3`: what the judge adds to text where the condition holds;
// `bias language == zh under mira_zh: -0.3` only when it scores with that rubric.
struct sim_bias_rubric : ident {};
struct sim_bias : seq<TAO_PEGTL_KEYWORD("bias"), ws, must<sim_condition>, ws,
                      opt<TAO_PEGTL_KEYWORD("under"), ws, must<sim_bias_rubric>, ws>, must<sim_effect_colon>, ws,
                      must<sim_value>> {};
struct sim_group : field_path {};
struct sim_random : seq<TAO_PEGTL_KEYWORD("random"), ws, must<sim_group>, ws, must<sim_value>> {};
struct sim_residual : seq<TAO_PEGTL_KEYWORD("residual"), ws, must<sim_value>> {};
struct sim_answer : seq<TAO_PEGTL_KEYWORD("answer"), ws, must<sim_value>> {};
struct sim_na_rate : seq<TAO_PEGTL_KEYWORD("na"), ws, not_at<TAO_PEGTL_KEYWORD("when")>, must<sim_value>> {};
struct sim_round : seq<TAO_PEGTL_KEYWORD("round"), ws, must<sim_value>> {};
struct sim_clip : seq<TAO_PEGTL_KEYWORD("clip"), ws, must<sim_value>> {};
struct sim_dim_item
    : sor<sim_intercept, sim_effect, sim_bias, sim_random, sim_residual, sim_answer, sim_na_rate, na_item, sim_round, sim_clip> {};
struct sim_dim : seq<TAO_PEGTL_KEYWORD("dim"), ws, must<ident>, ws, must<lbrace>, ws, star<sim_dim_item, ws>, must<rbrace>> {};
struct sim_item : sor<sim_seed, sim_dim> {};
struct simulate_decl : seq<TAO_PEGTL_KEYWORD("simulate"), ws, must<lbrace>, ws, star<sim_item, ws>, must<rbrace>> {};

// --- changes to a base spec (a spec that `extends` another) ----------------------------
// extend KIND NAME { ... }: adds to the base's declaration of that kind and name (levels,
// seed columns, variant items, texts, settings, analysis options, report items).
struct extension_settings : block {};
struct settings_kind : sor<TAO_PEGTL_KEYWORD("model"), TAO_PEGTL_KEYWORD("judge"), TAO_PEGTL_KEYWORD("arm"), TAO_PEGTL_KEYWORD("provider")> {};
struct settings_extension : seq<settings_kind, ws, must<ident>, ws, must<extension_settings>> {};
struct seeds_extension_item : sor<seq<at<TAO_PEGTL_KEYWORD("seed"), ws, not_at<one<'='>>>, inline_seed>, field_mapping> {};
struct seeds_extension : seq<TAO_PEGTL_KEYWORD("seeds"), ws, star<seeds_join, ws>, must<lbrace>, ws, star<seeds_extension_item, ws>, must<rbrace>> {};
struct variant_extension : seq<TAO_PEGTL_KEYWORD("variant"), ws, must<ident>, ws, must<lbrace>, ws, star<variant_item, ws>, must<rbrace>> {};
struct analysis_extension : seq<TAO_PEGTL_KEYWORD("analysis"), ws, must<ident>, ws, must<options_block>> {};
struct extension : sor<factor_decl, seeds_extension, variant_extension, text_decl, settings_extension, defaults_decl,
                       analysis_extension, report_decl> {};
struct extend_decl : seq<TAO_PEGTL_KEYWORD("extend"), ws, must<extension>> {};

// override DECLARATION: replaces the base's declaration of that kind and name.
struct overridable : sor<factor_decl, design_decl, seeds_decl, checklists_decl, variant_decl, text_decl, prompt_decl,
                         provider_decl, model_decl, defaults_decl, arm_decl, judge_decl, panel_decl, rubric_decl,
                         flag_decl, contrast_decl, analysis_decl, report_decl, simulate_decl> {};
struct override_decl : seq<TAO_PEGTL_KEYWORD("override"), ws, must<overridable>> {};

// remove KIND NAME? : drops the base's declaration (`remove model llama`, `remove simulate`).
// Neither part is taken from the next line's declaration keyword (`remove` cut short).
struct remove_kind : seq<not_at<bol, declaration_keyword>, ident> {};
struct remove_name : seq<not_at<bol, declaration_keyword>, ident> {};
struct remove_decl : seq<TAO_PEGTL_KEYWORD("remove"), ws, must<remove_kind>, opt<ws, remove_name>> {};

struct declaration : sor<audit_decl, use_decl, factor_decl, design_decl, seeds_decl, checklists_decl,
                         variant_decl, text_decl, prompt_decl, provider_decl, prices_decl, model_decl, defaults_decl,
                         arm_decl, judge_decl, panel_decl, rubric_decl, flag_decl, contrast_decl, analysis_decl,
                         report_decl, simulate_decl, extend_decl, override_decl, remove_decl> {};

/// One top-level declaration; the parser calls this once per declaration so that it can
/// recover from a syntax error at the next one.
struct one_declaration : seq<must<declaration>, ws> {};

// clang-format on

}  // namespace mirac::grammar
