#include "runtime/store/answer_rows.hpp"

namespace mirac {

std::optional<AnswerRows::Digest> AnswerRows::digest_of(std::string_view hash) {
  if (hash.size() != 64) return std::nullopt;
  Digest d{};
  for (std::size_t i = 0; i < 64; ++i) {
    const char c = hash[i];
    std::uint64_t nibble = 0;
    if (c >= '0' && c <= '9') nibble = static_cast<std::uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f') nibble = static_cast<std::uint64_t>(c - 'a' + 10);
    else return std::nullopt;
    d[i / 16] = (d[i / 16] << 4) | nibble;
  }
  return d;
}

long long* AnswerRows::lookup(std::string_view hash) {
  if (auto d = digest_of(hash)) {
    auto it = digests_.find(*d);
    return it == digests_.end() ? nullptr : &it->second;
  }
  auto it = others_.find(std::string(hash));
  return it == others_.end() ? nullptr : &it->second;
}

void AnswerRows::insert(std::string_view hash, long long row) {
  if (auto d = digest_of(hash)) digests_.emplace(*d, row);
  else others_.emplace(std::string(hash), row);
}

bool AnswerRows::find(sqlite3* db, const std::string& hash, long long& row) {
  long long* found = lookup(hash);
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
      found = lookup(hash);
    }
  }
  row = found ? *found : 0;
  return true;
}

void AnswerRows::add(const std::string& hash, long long row) {
  insert(hash, row);
  if (row > last_seen_) last_seen_ = row;
}

void AnswerRows::clear() {
  digests_.clear();
  others_.clear();
  last_seen_ = 0;
  version_ = -1;
}

bool AnswerRows::catch_up(sqlite3* db) {
  if (digests_.empty() && others_.empty()) {
    Stmt count(db, "SELECT max(id) FROM answers");
    if (count.ok() && count.step() == SQLITE_ROW) digests_.reserve(static_cast<std::size_t>(count.integer(0)));
  }
  // A range of the table's own key: reads only the pages holding the new rows.
  if (!new_rows_query_) new_rows_query_ = std::make_unique<Stmt>(db, "SELECT id, hash FROM answers WHERE id > ? ORDER BY id");
  Stmt& q = *new_rows_query_;
  if (!q.ok()) return false;
  q.bind(1, last_seen_);
  int rc = SQLITE_ROW;
  while ((rc = q.step()) == SQLITE_ROW) {
    const long long id = q.integer(0);
    insert(q.text_view(1), id);
    last_seen_ = id;
  }
  q.reset();  // ends the read: a kept statement must not hold a transaction open
  return rc == SQLITE_DONE;
}

}  // namespace mirac
