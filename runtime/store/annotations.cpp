#include "runtime/store/annotations.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include "runtime/store/sqlite_retry.hpp"

namespace mirac {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS annotations (
  answer_hash TEXT NOT NULL, annotator TEXT NOT NULL, dimension TEXT NOT NULL,
  value REAL, comment TEXT NOT NULL, source TEXT NOT NULL, imported_at REAL NOT NULL,
  PRIMARY KEY (answer_hash, annotator, dimension));
)sql";

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

std::unique_ptr<AnnotationStore> AnnotationStore::open(const std::filesystem::path& dir, std::string& error) {
  std::unique_ptr<AnnotationStore> s(new AnnotationStore());
  const std::filesystem::path path = dir / "store.sqlite";
  if (sqlite3_open_v2(path.c_str(), &s->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    error = fmt::format("cannot open store {}: {}", path.string(), s->db_ ? sqlite3_errmsg(s->db_) : "out of memory");
    return nullptr;
  }
  sqlite3_busy_timeout(s->db_, 10000);
  if (!exec_retrying_busy(s->db_, kSchema)) {
    error = fmt::format("cannot open store {}: {}", path.string(), sqlite3_errmsg(s->db_));
    return nullptr;
  }
  return s;
}

AnnotationStore::~AnnotationStore() { sqlite3_close_v2(db_); }

bool AnnotationStore::put(const std::vector<Annotation>& annotations, std::string& error) {
  auto fail = [&](const char* what) {
    error = fmt::format("cannot store annotations: {}: {}", what, sqlite3_errmsg(db_));
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
  };
  if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return fail("begin");
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO annotations VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &insert,
                         nullptr) != SQLITE_OK)
    return fail("prepare");
  for (const auto& a : annotations) {
    sqlite3_bind_text(insert, 1, a.answer_hash.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, a.annotator.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 3, a.dimension.c_str(), -1, SQLITE_TRANSIENT);
    if (a.value) sqlite3_bind_double(insert, 4, *a.value);
    else sqlite3_bind_null(insert, 4);
    sqlite3_bind_text(insert, 5, a.comment.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 6, a.source.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(insert, 7, a.imported_at);
    if (sqlite3_step(insert) != SQLITE_DONE) {
      sqlite3_finalize(insert);
      return fail("insert");
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return fail("commit");
  return true;
}

std::vector<Annotation> AnnotationStore::all() {
  std::vector<Annotation> out;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT * FROM annotations ORDER BY answer_hash, annotator, dimension", -1, &s,
                         nullptr) != SQLITE_OK)
    return out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    Annotation a;
    a.answer_hash = column_text(s, 0);
    a.annotator = column_text(s, 1);
    a.dimension = column_text(s, 2);
    if (sqlite3_column_type(s, 3) != SQLITE_NULL) a.value = sqlite3_column_double(s, 3);
    a.comment = column_text(s, 4);
    a.source = column_text(s, 5);
    a.imported_at = sqlite3_column_double(s, 6);
    out.push_back(std::move(a));
  }
  sqlite3_finalize(s);
  return out;
}

}  // namespace mirac
