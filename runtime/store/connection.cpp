// connection.cpp: opening a store file and its transactions (connection.hpp).
#include "runtime/store/connection.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace mirac {

std::unique_ptr<StoreConnection> StoreConnection::open(const std::filesystem::path& file, Mode mode, std::string& error,
                                                       double busy_timeout_s) {
  std::unique_ptr<StoreConnection> c(new StoreConnection());
  c->file_ = file;
  const int flags = SQLITE_OPEN_FULLMUTEX | (mode == Mode::read_only   ? SQLITE_OPEN_READONLY
                                             : mode == Mode::existing ? SQLITE_OPEN_READWRITE
                                                                      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(file.c_str(), &c->db_, flags, nullptr) != SQLITE_OK) {
    error = fmt::format("cannot open store {}: {}", file.string(), c->db_ ? sqlite3_errmsg(c->db_) : "out of memory");
    return nullptr;
  }
  const int timeout_ms = static_cast<int>(busy_timeout_s * 1000);
  sqlite3_busy_timeout(c->db_, timeout_ms);
  c->busy_retries_ = std::max(1, timeout_ms / 50);
  return c;
}

StoreConnection::~StoreConnection() { sqlite3_close_v2(db_); }

bool StoreConnection::exec(const char* sql) {
  for (int attempt = 0;; ++attempt) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return true;
    if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) || attempt >= busy_retries_) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool StoreConnection::exec(const char* sql, std::string& error) {
  if (exec(sql)) return true;
  error = last_error();
  return false;
}

std::string StoreConnection::last_error() const { return db_ ? sqlite3_errmsg(db_) : "no connection"; }

StoreTransaction::StoreTransaction(StoreConnection& connection) : c_(connection) {
  open_ = c_.exec("BEGIN IMMEDIATE", error_);
}

StoreTransaction::~StoreTransaction() {
  if (open_) sqlite3_exec(c_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
}

bool StoreTransaction::commit() {
  if (!open_) return false;
  if (!c_.exec("COMMIT", error_)) return false;  // still open: the destructor rolls it back
  open_ = false;
  return true;
}

}  // namespace mirac
