// derived.hpp: what the engine derives from stored answers and keeps in the store so as not
// to derive it again: a judge's scores as read from its reply, for one. 86,400 answers and
// judge replies take a second to read, hash and parse; their derived values take a few
// milliseconds to load. A cache, never the only copy of anything: dropping table `derived`
// loses nothing, the values are derived again when next needed.
//
// Entries belong to the build of mirac that wrote them (its ELF build id): another build
// may derive differently, so what it wrote is never read, and is dropped the first time
// this build adds entries of its own.
#pragma once

#include <sqlite3.h>

#include "runtime/store/connection.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mirac {

class DerivedValues {
 public:
  /// Opens the derived values of the store file `store_file` (Store::path()) on a
  /// connection of their own. Null when there is no such store, or when this program
  /// carries no build id (nothing could tell its entries from another build's).
  static std::unique_ptr<DerivedValues> open(const std::filesystem::path& store_file);
  ~DerivedValues();
  DerivedValues(const DerivedValues&) = delete;
  DerivedValues& operator=(const DerivedValues&) = delete;

  /// Every entry of this build whose key begins with `prefix`, in key order.
  std::vector<std::pair<std::string, std::string>> with_prefix(const std::string& prefix);
  /// Adds `entries` (key, value), replacing equal keys, in one transaction. Best effort:
  /// false when the store takes no write within a moment (a read-only file, another
  /// process's long write); then nothing changed, and the values are derived again.
  bool put(const std::vector<std::pair<std::string, std::string>>& entries);

 private:
  DerivedValues() = default;
  bool this_build_wrote();
  std::unique_ptr<StoreConnection> connection_;
  sqlite3* db_ = nullptr;  ///< connection_'s
  std::string build_;
};

/// The ELF build id of the running program, in hex; empty when it has none.
std::string program_build_id();

}  // namespace mirac
