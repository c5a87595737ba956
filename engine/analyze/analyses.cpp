// analyses.cpp: runs every `analysis` of the spec, by kind. One analysis that fails does
// not take the others down: its failure becomes its entry in results.json and an error at
// its declaration, and the rest are computed.
#include <exception>

#include <fmt/format.h>

#include "engine/analyze/parts.hpp"

namespace mirac::analyze {

void add_analyses(const Context& ctx, Output& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& a : ctx.spec.analyses) {
    const std::string& kind = a.kind.name;
    // A failure must not leave half of the analysis's tables behind.
    const std::size_t tables = out.tables.size();
    auto fail = [&](const std::string& error, const std::string& message) {
      out.tables.resize(tables);
      ctx.diags.error(a.name.range, message);
      list.push_back({{"name", a.name.name}, {"kind", kind}, {"error", error}});
    };
    try {
      if (kind == "lmm") list.push_back(run_lmm(ctx, a, out));
      else if (kind == "clmm") list.push_back(run_clmm(ctx, a, out));
      else if (kind == "wilcoxon") list.push_back(run_wilcoxon(ctx, a, out));
      else if (kind == "paired") list.push_back(run_paired(ctx, a, out));
      else if (kind == "spearman") list.push_back(run_spearman(ctx, a, out));
      else if (kind == "agreement") list.push_back(run_agreement(ctx, a, out));
      else if (kind == "criteria") list.push_back(run_criteria(ctx, a, out));
      else if (kind == "corrected") list.push_back(run_corrected(ctx, a, out));
      else if (kind == "invariance") list.push_back(run_invariance(ctx, a, out));
    } catch (const std::invalid_argument& e) {
      // The statistics throw on inputs they cannot handle (e.g. every difference zero);
      // that is a property of the data, reported at the analysis (skipped on a subset).
      out.tables.resize(tables);
      nlohmann::ordered_json entry{{"name", a.name.name}, {"kind", kind}};
      report_unsupported(ctx, a, e.what(), entry);
      list.push_back(std::move(entry));
    } catch (const std::exception& e) {
      // Anything else is a fault of mirac's, not of the data; it is still this analysis's
      // alone, so it is reported as such and the others go on.
      fail(fmt::format("internal error: {}", e.what()),
           fmt::format("analysis {} failed: internal error: {} (please report it with the spec and scores)", a.name.name,
                       e.what()));
    } catch (...) {
      fail("internal error: unknown exception",
           fmt::format("analysis {} failed: internal error: unknown exception (please report it with the spec and "
                       "scores)", a.name.name));
    }
  }
  out.json["analyses"] = std::move(list);
}

}  // namespace mirac::analyze
