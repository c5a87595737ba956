// annotations.hpp: people's scores of stored answers (`mirac annotate import`), kept in the
// run store next to the answers they score: one value per answer, annotator and dimension.
// Spec-free like the rest of the store: answers are named by their request hash.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mirac {
class StoreConnection;
}  // namespace mirac

namespace mirac {

struct Annotation {
  std::string answer_hash;
  std::string annotator;  ///< a person's name, or "adjudicated" for the agreed value
  std::string dimension;
  std::optional<double> value;  ///< nullopt: N/A
  std::string comment;
  std::string source;  ///< "file.csv line 12"
  double imported_at = 0;  ///< Unix seconds
};

class AnnotationStore {
 public:
  /// Opens `<dir>/store.sqlite` (creating the table when absent). Null with `error`.
  static std::unique_ptr<AnnotationStore> open(const std::filesystem::path& dir, std::string& error);
  ~AnnotationStore();
  AnnotationStore(const AnnotationStore&) = delete;
  AnnotationStore& operator=(const AnnotationStore&) = delete;

  /// Stores `annotations` in one transaction; an annotator's earlier value for the same
  /// answer and dimension is replaced. False with `error` (nothing stored) on failure.
  bool put(const std::vector<Annotation>& annotations, std::string& error);
  /// Every annotation, ordered by answer, annotator and dimension.
  std::vector<Annotation> all();

 private:
  AnnotationStore() = default;
  std::unique_ptr<StoreConnection> connection_;
};

}  // namespace mirac
