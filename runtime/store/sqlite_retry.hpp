// sqlite_retry.hpp: running a statement on a store another process may be creating at the
// same moment (a run and `mirac status`, say): SQLite can answer BUSY at once, without
// calling the busy handler, to the switch to WAL and to the schema, so those are retried
// for as long as the busy handler would have waited.
#pragma once

#include <chrono>
#include <thread>

#include <sqlite3.h>

namespace mirac {

inline bool exec_retrying_busy(sqlite3* db, const char* sql) {
  for (int attempt = 0;; ++attempt) {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return true;
    if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) || attempt >= 200) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace mirac
