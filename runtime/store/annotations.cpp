#include "runtime/store/annotations.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include "runtime/store/connection.hpp"
#include "runtime/store/statement.hpp"

namespace mirac {

namespace {

constexpr const char* kAnnotationsSchema = R"sql(
CREATE TABLE IF NOT EXISTS annotations (
  answer_hash TEXT NOT NULL, annotator TEXT NOT NULL, dimension TEXT NOT NULL,
  value REAL, comment TEXT NOT NULL, source TEXT NOT NULL, imported_at REAL NOT NULL,
  PRIMARY KEY (answer_hash, annotator, dimension));
)sql";


}  // namespace

std::unique_ptr<AnnotationStore> AnnotationStore::open(const std::filesystem::path& dir, std::string& error) {
  std::unique_ptr<AnnotationStore> s(new AnnotationStore());
  s->connection_ = StoreConnection::open(dir / "store.sqlite", StoreConnection::Mode::read_write, error);
  if (!s->connection_) return nullptr;
  if (!s->connection_->exec(kAnnotationsSchema, error)) {
    error = fmt::format("cannot open store {}: {}", s->connection_->file().string(), error);
    return nullptr;
  }
  return s;
}

AnnotationStore::~AnnotationStore() = default;

bool AnnotationStore::put(const std::vector<Annotation>& annotations, std::string& error) {
  StoreTransaction transaction(*connection_);
  if (!transaction.ok()) return error = "cannot store annotations: begin: " + transaction.error(), false;
  Stmt insert(connection_->db(), "INSERT OR REPLACE INTO annotations VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!insert.ok()) return error = "cannot store annotations: prepare: " + connection_->last_error(), false;
  for (const auto& a : annotations) {
    insert.reset();
    insert.bind(1, a.answer_hash).bind(2, a.annotator).bind(3, a.dimension);
    if (a.value) insert.bind(4, *a.value);
    insert.bind(5, a.comment).bind(6, a.source).bind(7, a.imported_at);
    if (insert.step() != SQLITE_DONE) return error = "cannot store annotations: insert: " + connection_->last_error(), false;
  }
  if (transaction.commit()) return true;
  error = "cannot store annotations: commit: " + transaction.error();
  return false;
}

std::vector<Annotation> AnnotationStore::all() {
  std::vector<Annotation> out;
  Stmt s(connection_->db(), "SELECT * FROM annotations ORDER BY answer_hash, annotator, dimension");
  while (s.ok() && s.step() == SQLITE_ROW) {
    Annotation a;
    a.answer_hash = s.text(0);
    a.annotator = s.text(1);
    a.dimension = s.text(2);
    if (sqlite3_column_type(s.get(), 3) != SQLITE_NULL) a.value = s.real(3);
    a.comment = s.text(4);
    a.source = s.text(5);
    a.imported_at = s.real(6);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace mirac
