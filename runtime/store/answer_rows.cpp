#include "runtime/store/answer_rows.hpp"

#include "runtime/store/statement.hpp"

namespace mirac {

bool AnswerRows::find(sqlite3* db, const std::string& hash, long long& row) {
  auto it = rows_.find(hash);
  if (it == rows_.end()) {
    // Another process (or an earlier transaction of this one) may have added it.
    if (!catch_up(db)) return false;
    it = rows_.find(hash);
  }
  row = it == rows_.end() ? 0 : it->second;
  return true;
}

void AnswerRows::add(const std::string& hash, long long row) {
  rows_.emplace(hash, row);
  if (row > last_seen_) last_seen_ = row;
}

void AnswerRows::clear() {
  rows_.clear();
  last_seen_ = 0;
}

bool AnswerRows::catch_up(sqlite3* db) {
  // A range of the table's own key: reads only the pages holding the new rows.
  Stmt q(db, "SELECT id, hash FROM answers WHERE id > ? ORDER BY id");
  q.bind(1, last_seen_);
  if (!q.ok()) return false;
  if (rows_.empty()) {
    Stmt count(db, "SELECT max(id) FROM answers");
    if (count.ok() && count.step() == SQLITE_ROW) rows_.reserve(static_cast<std::size_t>(count.integer(0)));
  }
  int rc = SQLITE_ROW;
  while ((rc = q.step()) == SQLITE_ROW) {
    const long long id = q.integer(0);
    rows_.emplace(q.text(1), id);
    last_seen_ = id;
  }
  return rc == SQLITE_DONE;
}

}  // namespace mirac
