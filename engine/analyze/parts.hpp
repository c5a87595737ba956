// parts.hpp: the pieces of `mirac analyze`, one file each. Every piece adds its section to
// results.json and its CSV tables to the output.
#pragma once

#include "engine/analyze/context.hpp"

namespace mirac::analyze {

/// Means of every dimension by model x arm, N/A left out, with n (means.cpp).
void add_means(const Context& ctx, Output& out);
/// The same by model x arm x design cell (`cell_means` of results.json), for finer report groupings.
void add_cell_means(const Context& ctx, Output& out);
/// Every declared flag: unit flags per row, pair flags over matched pairs (flags.cpp).
void add_flags(const Context& ctx, Output& out);
/// Every contrast with its cluster-bootstrap interval over seeds (contrasts.cpp).
void add_contrasts(const Context& ctx, Output& out);
/// The seeds the scores cover, counted by the values of each categorical seed field
/// (results.json `seeds`, seeds.cpp).
void add_seeds(const Context& ctx, Output& out);
/// Every analysis, by kind (analyses.cpp dispatches to lmm.cpp, wilcoxon.cpp, ...).
void add_analyses(const Context& ctx, Output& out);

nlohmann::ordered_json run_lmm(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
nlohmann::ordered_json run_clmm(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
nlohmann::ordered_json run_wilcoxon(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
nlohmann::ordered_json run_paired(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
nlohmann::ordered_json run_spearman(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
nlohmann::ordered_json run_agreement(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
nlohmann::ordered_json run_criteria(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
/// Judge-corrected means, contrasts and flag rates with people's scores (corrected.cpp).
nlohmann::ordered_json run_corrected(const Context& ctx, const ast::AnalysisDecl& a, Output& out);
/// The judge's shift on answers translated between two levels of a factor (invariance.cpp).
nlohmann::ordered_json run_invariance(const Context& ctx, const ast::AnalysisDecl& a, Output& out);

}  // namespace mirac::analyze
