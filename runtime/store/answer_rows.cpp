#include "runtime/store/answer_rows.hpp"

namespace mirac {

bool AnswerRows::find(sqlite3* db, const std::string& hash, long long& row) {
  long long* found = rows_.find(hash);
  if (!found) {
    if (!version_query_) version_query_ = std::make_unique<Stmt>(db, "PRAGMA data_version");
    long long version = -1;
    if (version_query_->ok() && version_query_->step() == SQLITE_ROW) version = version_query_->integer(0);
    version_query_->reset();
    if (version < 0) return false;
    // Another process may have added it since the map was last brought up to date.
    if (version != version_) {
      if (!catch_up(db)) return false;
      version_ = version;
      found = rows_.find(hash);
    }
  }
  row = found ? *found : 0;
  return true;
}

void AnswerRows::add(const std::string& hash, long long row) {
  rows_.emplace(hash, row);
  if (row > last_seen_) last_seen_ = row;
}

void AnswerRows::clear() {
  rows_.clear();
  last_seen_ = 0;
  version_ = -1;
}

bool AnswerRows::catch_up(sqlite3* db) {
  if (rows_.empty()) {
    Stmt count(db, "SELECT max(id) FROM answers");
    if (count.ok() && count.step() == SQLITE_ROW) rows_.reserve(static_cast<std::size_t>(count.integer(0)));
  }
  // A range of the table's own key: reads only the pages holding the new rows.
  if (!new_rows_query_) new_rows_query_ = std::make_unique<Stmt>(db, "SELECT id, hash FROM answers WHERE id > ? ORDER BY id");
  Stmt& q = *new_rows_query_;
  if (!q.ok()) return false;
  q.bind(1, last_seen_);
  int rc = SQLITE_ROW;
  HashMap<long long>::Emplacer emplacer(rows_);
  while ((rc = q.step()) == SQLITE_ROW) {
    const long long id = q.integer(0);
    emplacer.emplace(q.text_view(1), id);
    last_seen_ = id;
  }
  emplacer.flush();
  q.reset();  // ends the read: a kept statement must not hold a transaction open
  return rc == SQLITE_DONE;
}

}  // namespace mirac
