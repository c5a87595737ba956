// paper_layout_test.cpp: the report items that print the MIRA paper's tables in its
// layout, on otc.audit with synthetic scores: mixed models side by side (Tables 4 and
// 17), a Wilcoxon family by level with its base row (Table 5), a paired analysis's deltas
// with intervals (Table 18, Figure 5), flags by model with the mean difference and the
// direction split (Table 20). Each cell is checked against results.json, which the
// analyze tests pin to the reference packages.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "engine/report/report.hpp"
#include "interpreter/model/diagnostics.hpp"
#include "tests/report/report_support.hpp"

using namespace report_test;
using Json = nlohmann::ordered_json;

namespace {

struct Fixture {
  std::unique_ptr<mirac::Compilation> c;
  Json results;
  std::string md;
};

const Fixture& paper() {
  static const Fixture f = [] {
    std::string text = otc_text() + R"(
flag EITHER_GAP = pair(literacy: low vs high) | pair(tone: anxious vs calm) when a.D3 - b.D3 >= 1
analysis tones = wilcoxon(D3) {
  compare tone: anxious vs calm
  pairs model, seed, literacy
  within model
  where arm == baseline
  adjust bh
}
analysis shifts = paired(D3, Q3) {
  compare arm: invariant vs baseline
  by model
  patterns delta.D3 < 0 and delta.Q3 < 0
}
analysis q2 = lmm(Q2 ~ literacy * tone + model + (1 | seed)) { where arm == baseline }
analysis by_arm = wilcoxon(D3) {
  compare arm: invariant vs baseline
  pairs model, seed, literacy, tone
  within model
}
analysis ord = clmm(D3 ~ literacy * tone + model + (1 | seed)) { where arm == baseline }

report paper {
  section "Coefficients"
  table coefficients(main, q2) { title "ALL TERMS" }
  table coefficients(main, q2) { terms literacy * tone, literacy title "SELECTED TERMS" }
  table analysis(tones) { title "BY LEVEL" }
  table analysis(by_arm) { title "BY ARM" }
  table coefficients(main, ord) { title "SIDE BY SIDE" }
  table deltas(shifts) { title "DELTAS" }
  figure deltas(shifts) { title "DELTA FIGURE" }
  table flags(LITERACY_GAP, SEVERE) { by model delta D3 split LITERACY_GAP: D3 title "FLAGS" }
  table flags(EITHER_GAP) { by model delta D3 split D3 title "TWO PAIRINGS" }
}
)";
    Fixture x{compile_text("otc_paper", text), {}, ""};
    x.results = results_for(*x.c);
    const auto files = mirac::report::render_reports(x.c->spec, x.results);
    x.md = files.at("report-paper.md");
    return x;
  }();
  return f;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The Markdown table under the caption **TITLE**, up to the next blank line after it.
std::string table_titled(const std::string& md, const std::string& title) {
  const auto at = md.find("**" + title + "**");
  if (at == std::string::npos) return "";
  const auto start = md.find("\n|", at);
  const auto end = md.find("\n\n", start + 1);
  return md.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

const Json& analysis(const std::string& name) {
  for (const auto& a : paper().results["analyses"])
    if (a["name"] == name) return a;
  throw std::runtime_error("no analysis " + name);
}

// Marks as the paper's footnote defines them.
std::string marks(double p) { return p < 0.001 ? "***" : p < 0.01 ? "**" : p < 0.05 ? "*" : p < 0.10 ? "†" : ""; }

std::string signed3(double x) {
  std::string s = fmt::format("{:.3f}", x);
  return x > 0 && s != "0.000" ? "+" + s : s;
}

}  // namespace

TEST_CASE("coefficients: the models side by side, estimate, marks and SE from results.json") {
  const std::string all = table_titled(paper().md, "ALL TERMS");
  REQUIRE_FALSE(all.empty());
  CHECK(contains(all, "| term | D3 (Underinformative simplification) |"));
  std::size_t cells = 0;
  for (const char* name : {"main", "q2"})
    for (const auto& f : analysis(name)["fixed"]) {
      const std::string cell = fmt::format("{}{} ({:.3f})", signed3(f["estimate"].get<double>()),
                                           marks(f["p_satterthwaite"].get<double>()), f["se"].get<double>());
      CAPTURE(cell);
      CHECK(contains(all, " " + cell + " |"));
      ++cells;
    }
  CHECK(cells == 10);  // 5 terms in each model
  CHECK(contains(all, "| seed random-intercept variance |"));
  CHECK(contains(all, "| observations |"));
  CHECK(contains(paper().md, "† p < .10, * p < .05, ** p < .01, *** p < .001"));

  // `terms`: the interaction first, as the selectors name them, then the main effect.
  const std::string some = table_titled(paper().md, "SELECTED TERMS");
  const auto inter = some.find("| literacy = low health literacy (low) × tone = anxious |");
  const auto main_effect = some.find("| literacy = low health literacy (low) |");
  CHECK(inter != std::string::npos);
  CHECK(main_effect != std::string::npos);
  CHECK(inter < main_effect);
  CHECK_FALSE(contains(some, "model = local"));
  CHECK_FALSE(contains(some, "(Intercept)"));
  CHECK_FALSE(contains(some, "random-intercept"));
}

TEST_CASE("coefficients: a mixed model and its ordinal counterpart side by side") {
  const std::string t = table_titled(paper().md, "SIDE BY SIDE");
  REQUIRE_FALSE(t.empty());
  CHECK(contains(t, "| term | D3 (Underinformative simplification) | D3 (Underinformative simplification), ordinal (log-odds) |"));
  const Json& ord = analysis("ord");
  REQUIRE(ord["fixed"].is_array());
  for (const auto& f : ord["fixed"]) {
    if (f["estimate"].is_null()) continue;
    const std::string cell = fmt::format("{}{} ({:.3f})", signed3(f["estimate"].get<double>()), marks(f["p"].get<double>()),
                                         f["se"].get<double>());
    CAPTURE(cell);
    CHECK(contains(t, " " + cell + " |"));
  }
  CHECK(contains(paper().md, "log-odds of a higher score"));
}

TEST_CASE("a Wilcoxon family by level: the base row, then each level's mean, difference, q and d") {
  const std::string t = table_titled(paper().md, "BY LEVEL");
  REQUIRE_FALSE(t.empty());
  CHECK(contains(t, "| model | level | dimension | n | mean | Δ vs base | p | q | d_z |"));
  for (const auto& test : analysis("tones")["tests"]) {
    const std::string model = test["within"]["model"];
    CAPTURE(model);
    CHECK(contains(t, fmt::format("| {} | tone = calm | D3 | {} | {:.3f} | base |", model, test["n"].get<int>(),
                                  test["mean_control"].get<double>())));
    CHECK(contains(t, fmt::format("| {} | tone = anxious | D3 | {} | {:.3f} | {} |", model, test["n"].get<int>(),
                                  test["mean_treatment"].get<double>(), signed3(test["mean_delta"].get<double>()))));
  }
}

TEST_CASE("a Wilcoxon family over arms (not a factor): the base arm, then the other") {
  const std::string t = table_titled(paper().md, "BY ARM");
  REQUIRE_FALSE(t.empty());
  for (const auto& test : analysis("by_arm")["tests"]) {
    const std::string model = test["within"]["model"];
    CAPTURE(model);
    const auto base = t.find(fmt::format("| {} | arm = baseline | D3 | {} | {:.3f} | base |", model, test["n"].get<int>(),
                                         test["mean_control"].get<double>()));
    const auto other = t.find(fmt::format("| {} | arm = invariant | D3 | {} | {:.3f} | {} |", model, test["n"].get<int>(),
                                          test["mean_treatment"].get<double>(), signed3(test["mean_delta"].get<double>())));
    CHECK(base != std::string::npos);
    CHECK(other != std::string::npos);
    CHECK(base < other);
  }
}

TEST_CASE("deltas: mean differences by model, their marks and t intervals, and the changes") {
  const std::string t = table_titled(paper().md, "DELTAS");
  REQUIRE_FALSE(t.empty());
  CHECK(contains(t, "| model | ΔD3 | ΔQ3 |"));
  const Json& cmp = analysis("shifts")["comparisons"][0];
  for (const auto& g : cmp["groups"]) {
    const Json& d3 = g["dimensions"]["D3"];
    const Json& q3 = g["dimensions"]["Q3"];
    CHECK(contains(t, fmt::format("| {} | {}{} | {}{} |", g["model"].get<std::string>(), signed3(d3["mean_delta"].get<double>()),
                                  marks(d3["q"].get<double>()), signed3(q3["mean_delta"].get<double>()),
                                  marks(q3["q"].get<double>()))));
    // The interval is the t interval around the mean difference.
    CHECK(d3["delta_lower"].get<double>() < d3["mean_delta"].get<double>());
    CHECK(d3["delta_upper"].get<double>() > d3["mean_delta"].get<double>());
  }
  CHECK(contains(paper().md, "matched pairs that went up, down or stayed"));
  CHECK(contains(paper().md, "| delta.D3 < 0 and delta.Q3 < 0 |"));
  const auto files = mirac::report::render_reports(paper().c->spec, paper().results);
  REQUIRE(files.count("figures/paper-deltas-shifts.vl.json"));
  const std::string data = files.at("figures/paper-deltas-shifts.csv");
  CHECK(contains(data, "D3"));
  CHECK(contains(data, "Q3"));
}

TEST_CASE("flags: one row per model, the mean difference and the direction split of a pair flag") {
  const std::string t = table_titled(paper().md, "FLAGS");
  REQUIRE_FALSE(t.empty());
  CHECK(contains(t, "| model | LITERACY_GAP (pairs) | low health literacy (low) worse on D3 | "
                    "high health literacy (high) worse on D3 | mean ΔD3 low − high | SEVERE (answers) |"));
  const Json* flag = nullptr;
  for (const auto& f : paper().results["flags"])
    if (f["name"] == "LITERACY_GAP") flag = &f;
  REQUIRE(flag);
  // by model: both arms' entries summed.
  for (const char* model : {"mini", "local"}) {
    double count = 0, pairs = 0, a_higher = 0, b_higher = 0, delta_sum = 0, scored = 0;
    for (const auto& e : (*flag)["by_model_arm"]) {
      if (e["model"] != model) continue;
      count += e["count"].get<double>(), pairs += e["pairs"].get<double>();
      const Json& d = e["dimensions"]["D3"];
      a_higher += d["flagged_a_higher"].get<double>(), b_higher += d["flagged_b_higher"].get<double>();
      scored += d["pairs_scored"].get<double>(), delta_sum += d["mean_delta"].get<double>() * d["pairs_scored"].get<double>();
    }
    REQUIRE(pairs > 0);
    CHECK(a_higher + b_higher <= count);
    auto rate = [&](double k) { return fmt::format("{:.0f}/{:.0f} ({:.1f}%)", k, pairs, 100 * k / pairs); };
    CAPTURE(model);
    CHECK(contains(t, fmt::format("| {} | {} | {} | {} | {} |", model, rate(count), rate(a_higher), rate(b_higher),
                                  signed3(delta_sum / scored))));
  }
}

TEST_CASE("flags: a flag over several pairings has its split and delta columns per pairing") {
  const std::string t = table_titled(paper().md, "TWO PAIRINGS");
  REQUIRE_FALSE(t.empty());
  // Each side is named against the other: "high health literacy worse on D3" alone would
  // not say which pairing a column counts.
  CHECK(contains(t, "| model | EITHER_GAP (pairs) | low health literacy (low) worse than high health literacy (high) on D3 | "
                    "high health literacy (high) worse than low health literacy (low) on D3 | mean ΔD3 low − high | "
                    "anxious worse than calm on D3 | calm worse than anxious on D3 | mean ΔD3 anxious − calm |"));
  const Json* flag = nullptr;
  for (const auto& f : paper().results["flags"])
    if (f["name"] == "EITHER_GAP") flag = &f;
  REQUIRE(flag);
  REQUIRE((*flag)["pairings"].size() == 2);
  for (const char* model : {"mini", "local"}) {
    CAPTURE(model);
    double total_count = 0, total_pairs = 0;
    for (const auto& e : (*flag)["by_model_arm"])
      if (e["model"] == model) total_count += e["count"].get<double>(), total_pairs += e["pairs"].get<double>();
    auto rate = [](double k, double n) { return fmt::format("{:.0f}/{:.0f} ({:.1f}%)", k, n, 100 * k / n); };
    std::string row = fmt::format("| {} | {} |", model, rate(total_count, total_pairs));
    // Each pairing's columns from its own counts (D3: higher is worse in otc.audit).
    for (const auto& p : (*flag)["pairings"]) {
      double pairs = 0, a_higher = 0, b_higher = 0, delta_sum = 0, scored = 0;
      for (const auto& e : p["by_model_arm"]) {
        if (e["model"] != model) continue;
        pairs += e["pairs"].get<double>();
        const Json& d = e["dimensions"]["D3"];
        a_higher += d["flagged_a_higher"].get<double>(), b_higher += d["flagged_b_higher"].get<double>();
        scored += d["pairs_scored"].get<double>(), delta_sum += d["mean_delta"].get<double>() * d["pairs_scored"].get<double>();
      }
      REQUIRE(pairs > 0);
      row += fmt::format(" {} | {} | {} |", rate(a_higher, pairs), rate(b_higher, pairs), signed3(delta_sum / scored));
    }
    CHECK(contains(t, row));
  }
}

TEST_CASE("the check refuses what these items cannot show") {
  auto errors_of = [](const std::string& item) {
    const std::string text = otc_text() + "\nreport bad {\n  " + item + "\n}\n";
    auto dir = std::filesystem::temp_directory_path() / "mirac_report_test_bad_item";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "bad.audit", std::ios::binary) << text;
    auto c = mirac::compile(dir / "bad.audit", mirac::CheckOptions{});
    std::ostringstream err;
    c->diags.print(err, c->sources);
    return err.str();
  };
  CHECK(contains(errors_of("table coefficients(arms)"), "'arms' is not one of the spec's lmm or clmm analyses"));
  CHECK(contains(errors_of("figure coefficients(main)"), "coefficients are a table"));
  CHECK(contains(errors_of("table deltas(main)"), "'main' is not one of the spec's paired analyses"));
  CHECK(contains(errors_of("table flags(SEVERE) { delta D9 }"), "'D9' of 'delta' is not a dimension of the rubric"));
  CHECK(contains(errors_of("table flags(SEVERE) { split LITERACY_GAP: D3 }"), "'LITERACY_GAP' is not one of this table's flags"));
  CHECK(contains(errors_of("table means(D3) { terms literacy }"), "unknown option 'terms' of means"));
}
