// selector.hpp: which grammar rules become nodes of the parse tree that
// interpreter/parse/parse.cpp turns into the AST. Wrapper rules of one child fold away.
#pragma once

#include <tao/pegtl/contrib/parse_tree.hpp>

#include "grammar/grammar.hpp"

namespace mirac::grammar {

namespace pt = tao::pegtl::parse_tree;

// clang-format off
template <typename Rule>
using selector = pt::selector<Rule,
  pt::store_content::on<
    ident, string_lit, number, true_lit, false_lit, none_lit, name, call, list_lit, paren_expr,
    if_expr, cell_factor, cell_level, cell_item, index_suffix, field_suffix, neg_op, not_op,
    unary_op, mul_op, add_op, range_op, cmp_op, and_op, or_op, block, property, data_source,
    column, column_binding, column_block, seed_key, field_path, field_value, cell_path, ident_list,
    factor_product, lang_text, lang_texts, json_table, model_ref, audit_decl, use_decl, module_name,
    level, level_label, factor_decl, design_decl, map_entry, value_map, field_mapping, seeds_join, seeds_from,
    inline_seed, seeds_inline, seeds_decl, checklists_from, inline_checklist, checklists_inline, checklists_decl,
    instructions_from, instruction, instructions_inline, rewriter, lock, cell_text, variant_seed,
    variant_decl, derived_text, text_level, text_from, text_cell, text_decl, prompt_decl, provider_decl, price_entry, prices_decl,
    model_decl, defaults_decl, arm_decl, judge_decl, panel_decl, scale_item, worst_item, rubric_instructions,
    anchor, describe_item, na_item, against_item, note_item, scored_item, band, bands_item, dim_decl,
    criteria_decl, criteria_per, order_item, rubric_decl,
    pairing, pair_flag, flag_decl, contrast_by, contrast_where, contrast_decl, random_term, term_op, fixed_term,
    formula, option_label, option_value, option, options_block, analysis_decl, report_entry,
    report_item_name, report_override, overridden_item, report_remove, removed_item,
    report_decl, arg_list, sim_seed, sim_intercept, sim_effect, sim_bias, sim_bias_rubric, sim_random, sim_residual, sim_answer, sim_na_rate, sim_round,
    sim_clip, sim_dim, simulate_decl, sim_group, cell_each, audit_extends, pair_each, settings_extension,
    seeds_extension, variant_extension, analysis_extension, extend_decl, override_decl, remove_decl, settings_kind,
    remove_kind, remove_name,
    // wrappers that rename a shared rule keep their own node
    field_name, property_key, source_format, option_key, source_path, json_at, json_key,
    model_string, anchor_label, anchor_text, dim_title, order_step, checklist_key, panel_aggregate, panel_members, scored_by,
    band_threshold, extends_path, extension_settings>,
  pt::fold_one::on<postfix, mul_expr, add_expr, range_expr, cmp_expr, and_expr, or_expr, expr,
    if_then, if_else, prompt_id, prompt_text, derived_where, derived_select, flag_when, unit_flag,
    option_versus, property_value, text_level_body, sim_value, sim_condition>>;
// clang-format on

}  // namespace mirac::grammar
