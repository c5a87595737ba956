// quantities.cpp: the estimates a simulation checks, read from results.json entries.
#include "engine/simulate/quantities.hpp"

#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "engine/analyze/model_frame.hpp"

namespace mirac {

namespace {

double number(const nlohmann::ordered_json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : Estimate::nan;
}

// The member `key` of `j` when it is of the type `empty` has, else `empty`: a reference,
// never a temporary to loop over.
const nlohmann::ordered_json& member(const nlohmann::ordered_json& j, const char* key, const nlohmann::ordered_json& empty) {
  auto it = j.find(key);
  return it != j.end() && it->type() == empty.type() ? *it : empty;
}

// "model=gpt, language=zh" from the `by` variables' values in `entry`.
std::string by_label(const nlohmann::ordered_json& by, const nlohmann::ordered_json& entry) {
  std::string out;
  if (!by.is_array()) return out;
  for (const auto& v : by) {
    if (!v.is_string()) continue;
    std::string name = v.get<std::string>();
    auto it = entry.find(name);
    std::string value = it != entry.end() && it->is_string() ? it->get<std::string>() : "";
    out += (out.empty() ? "" : ", ") + name + "=" + value;
  }
  return out;
}

std::string object_label(const nlohmann::ordered_json& values) {
  std::string out;
  if (!values.is_object()) return out;
  for (const auto& [k, v] : values.items())
    out += (out.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

std::string join_label(std::initializer_list<std::string> parts) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : " | ") + p;
  return out;
}

// A paired summary (pairs.cpp): its mean difference, t interval, and the adjusted p when
// there is one (q), else the test's own.
Estimate paired_summary(const nlohmann::ordered_json& s) {
  Estimate e{number(s, "mean_delta"), number(s, "delta_lower"), number(s, "delta_upper"), number(s, "q")};
  if (std::isnan(e.p) && s.contains("wilcoxon") && s["wilcoxon"].is_object()) e.p = number(s["wilcoxon"], "p");
  return e;
}

double t_quantile(double df) {
  if (!(df > 0)) return 1.959963984540054;
  return boost::math::quantile(boost::math::students_t(df), 0.975);
}

}  // namespace

std::vector<Estimated> read_quantities(const nlohmann::ordered_json& results) {
  const nlohmann::ordered_json no_list = nlohmann::ordered_json::array(), no_object = nlohmann::ordered_json::object();
  auto list = [&](const nlohmann::ordered_json& j, const char* key) -> const nlohmann::ordered_json& {
    return member(j, key, no_list);
  };
  std::vector<Estimated> out;
  if (auto it = results.find("contrasts"); it != results.end() && it->is_array()) {
    for (const auto& c : *it) {
      std::string name = c.value("name", "");
      for (const auto& g : list(c, "groups")) {
        Estimate e;
        e.estimate = number(g, "estimate");
        if (g.contains("ci") && g["ci"].is_object()) e.lower = number(g["ci"], "lower"), e.upper = number(g["ci"], "upper");
        out.push_back({{name, "contrast", by_label(list(c, "by"), g)}, e});
      }
    }
  }
  auto it = results.find("analyses");
  if (it == results.end() || !it->is_array()) return out;
  for (const auto& a : *it) {
    std::string name = a.value("name", ""), kind = a.value("kind", "");
    if (a.contains("error")) continue;
    if (kind == "lmm") {
      for (const auto& f : list(a, "fixed")) {
        Estimate e{number(f, "estimate"), Estimate::nan, Estimate::nan, number(f, "p_satterthwaite")};
        double se = number(f, "se"), half = t_quantile(number(f, "df")) * se;
        e.lower = e.estimate - half, e.upper = e.estimate + half;
        out.push_back({{name, kind, f.value("term", "")}, e});
      }
    } else if (kind == "wilcoxon") {
      for (const auto& t : list(a, "tests")) {
        if (t.contains("error")) continue;
        std::string label = join_label({t.value("compare", ""), object_label(member(t, "within", no_object)),
                                        t.value("dimension", "")});
        out.push_back({{name, kind, label}, paired_summary(t)});
      }
    } else if (kind == "paired") {
      const auto& by = list(a, "by");
      for (const auto& c : list(a, "comparisons")) {
        for (const auto& g : list(c, "groups")) {
          for (const auto& [dim, s] : member(g, "dimensions", no_object).items()) {
            if (s.contains("error")) continue;
            out.push_back({{name, kind, join_label({c.value("compare", ""), by_label(by, g), dim})}, paired_summary(s)});
          }
        }
      }
    }
  }
  return out;
}

std::vector<Estimated> least_squares_truth(const analyze::Context& ctx, const ast::AnalysisDecl& a) {
  analyze::ModelFrame mf = analyze::model_frame(ctx, a);
  std::vector<stats::FixedTerm> terms = mf.fixed;
  terms.insert(terms.begin(), stats::FixedTerm{});  // the intercept
  stats::Design design = stats::build_design(mf.frame, terms, mf.levels);
  Eigen::VectorXd beta = design.X.toDense().colPivHouseholderQr().solve(design.y);
  std::vector<Estimated> out;
  for (std::size_t i = 0; i < design.column_names.size(); ++i)
    out.push_back({{a.name.name, "lmm", design.column_names[i]}, {beta(static_cast<Eigen::Index>(i))}});
  return out;
}

}  // namespace mirac
