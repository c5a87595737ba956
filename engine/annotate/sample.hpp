// sample.hpp: `mirac annotate sample`: a seeded, stratified sample of the stored answers
// for people to score, blind to the judges' scores (and to model and arm), written as an
// annotation sheet (CSV) and a self-contained annotation page (HTML).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session.hpp"

namespace mirac {

struct SampleOptions {
  std::size_t n = 230;
  std::vector<std::string> stratify;  ///< factors, model, arm, seed, cell or seed fields
  bool equal = false;                 ///< equal allocation per stratum (default: proportional)
  std::uint64_t seed = 20260101;
};

struct Stratum {
  std::vector<std::string> values;  ///< one per stratify variable
  std::size_t population = 0;       ///< answers stored in it
  std::size_t sampled = 0;
};

struct AnnotationSample {
  std::vector<std::size_t> rows;  ///< plan requests (one per distinct answer), in sheet order
  std::vector<Stratum> strata;
  std::size_t population = 0;
};

/// Draws the sample from every done answer of the plan (identical requests share one
/// answer and count once). Proportional allocation by largest remainders, or equal
/// allocation, capped by each stratum's size, the rest given to strata with answers left.
/// kUsageError for an unknown variable or an empty store.
Outcome sample_answers(const Audit& audit, Store& store, const SampleOptions& options, AnnotationSample& sample);

/// The sheet: `item, id` (the answer's request hash), `prompt_id`, a column per dimension
/// of the analyses' rubric, `comment`; scores empty.
std::string annotation_sheet(const Audit& audit, const AnnotationSample& sample);

/// What the annotation page shows: per item the prompt, the answer and the seed's
/// checklist; the rubric's dimensions with their anchors and whether N/A is allowed.
nlohmann::ordered_json annotation_data(const Audit& audit, Store& store, const AnnotationSample& sample);

/// The page: one HTML file, its script and styles inline, working offline from the file;
/// it keeps the scores in the browser's storage and saves a CSV that `mirac annotate import`
/// reads.
std::string annotation_page(const nlohmann::ordered_json& data);

}  // namespace mirac
