// errors.hpp: the message raised when a rule under must<> fails. One line each,
// lower case, saying what was expected.
#pragma once

#include "grammar/grammar.hpp"

namespace mirac::grammar {

template <typename Rule>
inline constexpr const char* error_message = nullptr;

#define MIRAC_ERROR(rule, text) \
  template <>                   \
  inline constexpr const char* error_message<rule> = text

// clang-format off
MIRAC_ERROR(unterminated_block_comment, "unterminated block comment: no '*/' closes this '/*'");
MIRAC_ERROR(hex_digits, "expected hexadecimal digits in '\\u{...}'");
MIRAC_ERROR(one<'}'>, "expected '}'");
MIRAC_ERROR(escape_char, "unknown escape sequence: use \\n, \\t, \\r, \\\", \\\\, \\0 or \\u{hex}");
MIRAC_ERROR(unterminated_string, "unterminated string: a \"...\" string ends on the line it starts (use \"\"\"...\"\"\" for text over several lines)");
MIRAC_ERROR(unterminated_long_string, "unterminated string: no '\"\"\"' closes this one");
MIRAC_ERROR(expr, "expected an expression");
MIRAC_ERROR(rparen, "expected ')'");
MIRAC_ERROR(rbracket, "expected ']'");
MIRAC_ERROR(rbrace, "expected '}'");
MIRAC_ERROR(lbrace, "expected '{'");
MIRAC_ERROR(lparen, "expected '('");
MIRAC_ERROR(if_then, "expected an expression after 'then'");
MIRAC_ERROR(if_else, "expected an expression after 'else'");
MIRAC_ERROR(kw_then, "expected 'then'");
MIRAC_ERROR(kw_else, "expected 'else'");
MIRAC_ERROR(kw_vs, "expected 'vs'");
MIRAC_ERROR(cell_level, "expected a level name");
MIRAC_ERROR(cell_item, "expected a level name or factor=level");
MIRAC_ERROR(field_name, "expected a field name after '.'");
MIRAC_ERROR(unary, "expected an operand after the operator");
MIRAC_ERROR(mul_expr, "expected an operand after the operator");
MIRAC_ERROR(add_expr, "expected an operand after '..'");
MIRAC_ERROR(range_expr, "expected an operand after the comparison");
MIRAC_ERROR(cmp_expr, "expected an operand after 'and'/'or'");
MIRAC_ERROR(and_expr, "expected an operand after 'or'");
MIRAC_ERROR(property_value, "expected a value or '{'");
MIRAC_ERROR(source_path, "expected a file path string");
MIRAC_ERROR(one<'='>, "expected '='");
MIRAC_ERROR(one<':'>, "expected ':'");
MIRAC_ERROR(one<'|'>, "expected '|'");
MIRAC_ERROR(column, "expected a column name");
MIRAC_ERROR(ident, "expected a name");
MIRAC_ERROR(lang_texts, "expected a text, or '{' with one text per language");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("at"), "expected 'at' and the path of the object in the JSON file");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("key"), "expected 'key'");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("on"), "expected 'on' and the column that holds the seed id");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("by"), "expected 'by' and the factors the variant depends on");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("id"), "expected 'id' and the prompt id template");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("text"), "expected 'text' and the prompt text expression");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("when"), "expected 'when' and a condition");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("where"), "expected 'where' and a row condition");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("select"), "expected 'select' and the text expression");
MIRAC_ERROR(json_at, "expected a string: the path of the object, e.g. \"conditions\"");
MIRAC_ERROR(json_key, "expected a string: the key template, e.g. \"{condition}\"");
MIRAC_ERROR(model_string, "expected the model string, e.g. openai(\"gpt-5.4\")");
MIRAC_ERROR(module_name, "expected a module name such as stdlib.providers");
MIRAC_ERROR(module_ref, "expected a module name (stdlib.providers) or a file path string");
MIRAC_ERROR(factor_product, "expected a factor name");
MIRAC_ERROR(data_source, "expected a data source such as csv(\"file.csv\") or jsonl(\"file.jsonl\")");
MIRAC_ERROR(seeds_body, "expected 'from' and a data source, or '{' with inline seeds");
MIRAC_ERROR(seed_key, "expected a seed id");
MIRAC_ERROR(checklist_key, "expected the column that holds the seed id");
MIRAC_ERROR(checklists_body, "expected 'from' and a data source, or '{' with inline checklists");
MIRAC_ERROR(json_table, "expected a JSON data source: json(\"file.json\") at \"path\" key \"{factor}\"");
MIRAC_ERROR(model_ref, "expected a provider preset and a model string, e.g. openai(\"gpt-5.4\")");
MIRAC_ERROR(text_level_body, "expected a text, '{' with one text per language, or 'from'");
MIRAC_ERROR(prompt_id, "expected the prompt id template");
MIRAC_ERROR(prompt_text, "expected the prompt text expression");
MIRAC_ERROR(block, "expected '{'");
MIRAC_ERROR(dim_title, "expected the dimension's title, a string");
MIRAC_ERROR(anchor_label, "expected the anchor's label, a string");
MIRAC_ERROR(string_lit, "expected a string");
MIRAC_ERROR(order_step, "expected dimension names");
MIRAC_ERROR(pairing, "expected 'pair(factor: a vs b)'");
MIRAC_ERROR(flag_when, "expected the flag's condition");
MIRAC_ERROR(flag_body, "expected 'pair(factor: a vs b) when ...' or a condition");
MIRAC_ERROR(ident_list, "expected a name");
MIRAC_ERROR(scored_by, "expected who scores the dimension: judge, human or both");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("met"), "expected 'met >= share', e.g. 3 if met >= 0.5");
MIRAC_ERROR(TAO_PEGTL_KEYWORD("criteria"), "expected 'criteria' and the bands, e.g. from criteria { 1 if met >= 0.9  5 otherwise }");
MIRAC_ERROR(at_least_op, "expected '>=': a band gives its score where the share met is at least a threshold");
MIRAC_ERROR(band_threshold, "expected a share from 0 to 1, e.g. 0.5");
MIRAC_ERROR(criteria_per, "expected how the criteria are graded: per answer (one reply) or per element (one call each)");
MIRAC_ERROR(panel_aggregate, "expected how the panel combines its judges: mean(...) or median(...)");
MIRAC_ERROR(panel_members, "expected the names of the panel's judges");
MIRAC_ERROR(formula_term, "expected a term: a name, a:b, a*b or (1 | group)");
MIRAC_ERROR(analysis_args, "expected a formula or arguments");
MIRAC_ERROR(option_versus, "expected a level after 'vs'");
MIRAC_ERROR(option_value, "expected a value");
MIRAC_ERROR(derived_where, "expected a row condition after 'where'");
MIRAC_ERROR(derived_select, "expected a text expression after 'select'");
MIRAC_ERROR(price_key_not_string, "expected a model string in quotes, e.g. \"gpt-5.4\" { input 2.5 output 15 }");
MIRAC_ERROR(sim_value, "expected a number");
MIRAC_ERROR(sim_condition, "expected the effect's condition, e.g. effect hls == low: 0.117");
MIRAC_ERROR(sim_effect_colon, "expected ':' and the size after the condition, e.g. effect hls == low: 0.117 or bias language == zh: -0.3");
MIRAC_ERROR(sim_bias_rubric, "expected the rubric the bias applies under, e.g. bias language == zh under mira_zh: -0.3");
MIRAC_ERROR(sim_group, "expected what the random intercept varies by: seed, or a seed field such as seed.category");
MIRAC_ERROR(extends_path, "expected the base spec's path in quotes, e.g. extends \"../specs/mira.audit\"");
MIRAC_ERROR(pair_level, "expected a level name or 'each'");
MIRAC_ERROR(extension, "expected what to extend: factor, seeds, variant, text, model, judge, arm, provider, defaults, analysis or report");
MIRAC_ERROR(extension_settings, "expected '{' and the settings to add or change (to replace the whole declaration, write 'override')");
MIRAC_ERROR(overridable, "expected the declaration that replaces the base's, e.g. override contrast NAME = ...");
MIRAC_ERROR(options_block, "expected '{' and the options to add or change, e.g. { where arm == baseline }");
MIRAC_ERROR(overridden_item, "expected the name of the base's report item to replace, e.g. override table table3 = means(D3)");
MIRAC_ERROR(override_equals, "expected '=' and the item that replaces the base's, e.g. override table table3 = means(D3)");
MIRAC_ERROR(removed_item, "expected the name of the base's report item to remove, e.g. remove fig2");
MIRAC_ERROR(remove_kind, "expected what to remove, e.g. remove model llama");
MIRAC_ERROR(declaration, "expected a declaration: audit, use, factor, design, seeds, checklists, variant, text, prompt, provider, prices, model, defaults, arm, judge, panel, rubric, flag, contrast, analysis, report, simulate, extend, override or remove");
// clang-format on

#undef MIRAC_ERROR

/// The control class: rules under must<> raise parse_error with their message.
struct error_table {
  template <typename Rule>
  static constexpr const char* message = error_message<Rule>;
  // Only must<> raises; a rule that merely fails lets its alternatives be tried.
  template <typename Rule>
  static constexpr bool raise_on_failure = false;
};

}  // namespace mirac::grammar
