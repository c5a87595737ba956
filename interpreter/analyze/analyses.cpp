// analyses.cpp: runs every `analysis` of the spec, by kind.
#include <fmt/format.h>

#include "interpreter/analyze/parts.hpp"

namespace mirac::analyze {

void add_analyses(const Context& ctx, Output& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& a : ctx.spec.analyses) {
    const std::string& kind = a.kind.name;
    try {
      if (kind == "lmm") list.push_back(run_lmm(ctx, a, out));
      else if (kind == "wilcoxon") list.push_back(run_wilcoxon(ctx, a, out));
      else if (kind == "paired") list.push_back(run_paired(ctx, a, out));
      else if (kind == "spearman") list.push_back(run_spearman(ctx, a, out));
    } catch (const std::invalid_argument& e) {
      // The statistics throw on inputs they cannot handle (e.g. every difference zero);
      // that is a property of the data, reported at the analysis.
      ctx.diags.error(a.name.range, fmt::format("analysis {}: {}", a.name.name, e.what()));
      list.push_back({{"name", a.name.name}, {"kind", kind}, {"error", e.what()}});
    }
  }
  out.json["analyses"] = std::move(list);
}

}  // namespace mirac::analyze
