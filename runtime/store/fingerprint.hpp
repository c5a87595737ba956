// fingerprint.hpp: whether what a store holds for the analysis has changed, without reading
// it. The analysis reads the answers table (the models' answers, the judges' replies, the
// translations of an invariance check) and the people's annotations. Every change to the
// answers counts up a number in the store (schema.cpp's triggers, so writes by any program
// count), and the annotations are few enough to digest whole. A rerun that sent nothing
// compares the fingerprint its results were computed from with the store's, and skips an
// analysis that would give the same results (engine/analyze/freshness.hpp).
#pragma once

#include <filesystem>
#include <string>

namespace mirac {

/// The store file `store_file`'s fingerprint: equal strings mean the answers and annotations
/// are as they were. Empty when it cannot be told (no such file, a store no mirac with the
/// change count has opened for writing, a read failing); an empty one matches nothing.
std::string store_fingerprint(const std::filesystem::path& store_file);

}  // namespace mirac
