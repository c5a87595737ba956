// statement.hpp: a prepared SQLite statement that finalises itself, for the store's files.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

namespace mirac {

/// RAII prepared statement with positional binding.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return s_ != nullptr; }
  sqlite3_stmt* get() { return s_; }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, double v) { sqlite3_bind_double(s_, i, v); return *this; }
  Stmt& bind(int i, long long v) { sqlite3_bind_int64(s_, i, v); return *this; }
  int step() { return sqlite3_step(s_); }
  void reset() { sqlite3_reset(s_); sqlite3_clear_bindings(s_); }
  std::string text(int col) {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, col))) : std::string();
  }
  /// The column's text without a copy: valid until the next step, reset or column call.
  std::string_view text_view(int col) {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(s_, col))) : std::string_view();
  }
  double real(int col) { return sqlite3_column_double(s_, col); }
  long long integer(int col) { return sqlite3_column_int64(s_, col); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

}  // namespace mirac
