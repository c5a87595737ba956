// numbers.hpp: how the report prints numbers, in one place so that tables, figures and
// both output formats agree (docs/results.md, "Report").
#pragma once

#include <optional>
#include <string>

namespace mirac::report {

/// What an undefined number (null in results.json) prints as.
inline constexpr const char* kMissing = "—";

/// `x` with `decimals` digits after the point; "-0.00" prints as "0.00".
std::string fixed(std::optional<double> x, int decimals);
/// A mean with its count: "2.30 (570)".
std::string mean_with_n(std::optional<double> mean, std::optional<double> n);
/// Estimates, standard errors, statistics: 3 decimals.
std::string estimate(std::optional<double> x);
/// An estimate with its sign, as the paper's tables print differences: "+0.117", "-0.027",
/// "0.000" (no sign on what rounds to zero).
std::string signed_estimate(std::optional<double> x);
/// A p-value: 3 decimals, or scientific notation ("1.2e-05") below 0.001.
std::string p_value(std::optional<double> p);
/// A confidence interval: "[-0.007, 0.177]".
std::string interval(std::optional<double> lower, std::optional<double> upper);
/// A whole number (counts, n).
std::string count(std::optional<double> n);
/// A rate as a percentage with one decimal: "12.5%".
std::string percent(std::optional<double> rate);
/// A confidence level as a percentage: 0.95 -> "95%".
std::string level(std::optional<double> level);

}  // namespace mirac::report
