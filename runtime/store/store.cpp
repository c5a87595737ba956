// store.cpp: SQLite implementation of Store. WAL mode with synchronous=FULL: every
// committed answer survives a process kill and a power cut; readers never block writers,
// so several runs (or a status query) can share the file.
#include "runtime/store/store.hpp"
#include "runtime/store/answer_rows.hpp"
#include "runtime/store/bodies.hpp"
#include "runtime/store/hash_key.hpp"
#include "runtime/store/schema.hpp"
#include "runtime/store/statement.hpp"
#include "runtime/store/journal.hpp"
#include "runtime/store/connection.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace mirac {
namespace {

constexpr const char* kAnswerColumns =
    "hash,status,provider,model,http_status,text,finish_reason,truncated,returned_model,provider_request_id,"
    "system_fingerprint,input_tokens,output_tokens,latency_s,started_at,ended_at,cost_usd,cause,message,attempts,"
    "warnings";

// The store keeps no index on the hash (answer_rows.hpp): whether an answer is new is
// decided from the in-memory rows inside the write transaction, then one of these runs.
constexpr const char* kInsertAnswer = R"sql(
INSERT INTO answers (hash,status,provider,model,http_status,text,finish_reason,truncated,returned_model,
  provider_request_id,system_fingerprint,input_tokens,output_tokens,latency_s,started_at,ended_at,cost_usd,
  cause,message,attempts,warnings)
VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21)
)sql";

// A done answer is never overwritten; a failed one takes the new outcome, and its cost and
// attempts add up over the runs that tried it.
constexpr const char* kUpdateAnswer = R"sql(
UPDATE answers SET
  status=?2, provider=?3, model=?4, http_status=?5, text=?6, finish_reason=?7, truncated=?8,
  returned_model=?9, provider_request_id=?10, system_fingerprint=?11, input_tokens=?12,
  output_tokens=?13, latency_s=?14, started_at=?15, ended_at=?16, cost_usd=cost_usd + ?17,
  cause=?18, message=?19, attempts=attempts + ?20, warnings=?21
WHERE id = ?22 AND hash = ?1 AND status <> 'done'
)sql";

constexpr const char* kInsertAttempt =
    "INSERT INTO attempts (hash, attempt, started_at, ended_at, http_status, outcome, cause, "
    "message, provider_request_id, retry_delay_s, response_body) VALUES (?,?,?,?,?,?,?,?,?,?,?)";

constexpr std::size_t kMaxAttemptBody = 16 * 1024;  // enough to diagnose an error body

}  // namespace

std::size_t StatusReport::failed_total() const {
  std::size_t n = 0;
  for (const auto& [cause, count] : failed) n += count;
  return n;
}

struct Store::Impl {
  std::unique_ptr<StoreConnection> connection;
  sqlite3* db = nullptr;  ///< connection's
  // The writes of a run group the answers that arrived together in one transaction that
  // spans calls (begin_batch, commit_batch): prepared once, as it is the run's hot path.
  std::unique_ptr<Stmt> insert, update, attempt, begin, commit, rollback, put_bodies, put_part, get_part, quoted;
  AnswerRows rows;
  // Prepared on first use and kept: a run, `mirac status` and `mirac view` read a brief
  // of every answer and judgment (86,400 for MIRA), and preparing the statement each time
  // took a third of the view's start.
  std::unique_ptr<Stmt> brief;
  /// Ends the write transaction without its writes, and the rows it had added.
  void roll_back() {
    rollback->step();
    rollback->reset();
    rows.clear();
  }
  /// Inserts or updates the answer; `row` is its row, or 0 when a done answer was left alone.
  bool upsert_answer(const AnswerRecord& a, long long& row);
  /// Writes an answer's bodies, encoded (bodies.hpp), and the shared parts they refer to.
  bool store_bodies(long long row, const AnswerRecord& a) {
    QuotedAnswer q;
    if (!a.quotes.empty()) {
      // Only a done answer's text is referred to: it never changes again.
      long long row_quoted = 0;
      if (!rows.find(db, a.quotes, row_quoted)) return false;
      quoted->reset();
      quoted->bind(1, row_quoted);
      if (row_quoted > 0 && quoted->step() == SQLITE_ROW) q = QuotedAnswer{row_quoted, quoted->text(0)};
      quoted->reset();
    }
    return write_bodies(*put_bodies, *put_part, row, a.request_body, a.response_body, a.text, q);
  }
  /// The original of a stored body (false when a part it refers to is missing).
  bool original(bool encoded, const std::string& stored, const BodyTexts& texts, std::string& out) {
    if (!encoded) return out = stored, true;
    return decode_body(stored, texts,
                       [&](const std::string& id, std::string& literal) {
                         get_part->reset();
                         get_part->bind(1, id);
                         const bool found = get_part->step() == SQLITE_ROW;
                         if (found) literal = get_part->text(0);
                         get_part->reset();
                         return found;
                       },
                       out);
  }
  ~Impl() {
    rows.close();
    brief.reset();
    put_bodies.reset();
    put_part.reset();
    get_part.reset();
    quoted.reset();
    insert.reset();
    update.reset();
    attempt.reset();
    begin.reset();
    commit.reset();
    rollback.reset();
    connection.reset();  // after every statement prepared on it
  }
};

std::unique_ptr<Store> Store::open(const std::filesystem::path& dir, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = fmt::format("cannot create run directory {}: {}", dir.string(), ec.message());
    return nullptr;
  }
  std::unique_ptr<Store> s(new Store());
  s->path_ = dir / "store.sqlite";
  s->impl_ = std::make_unique<Impl>();
  // Other runs may share the store: the connection waits for their short write transactions.
  s->impl_->connection = StoreConnection::open(s->path_, StoreConnection::Mode::read_write, error);
  if (!s->impl_->connection) return nullptr;
  sqlite3* db = s->impl_->db = s->impl_->connection->db();
  auto fail = [&](const std::string& what) {
    error = fmt::format("cannot open store {}: {}: {}", s->path_.string(), what, sqlite3_errmsg(db));
    return nullptr;
  };
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
                             "PRAGMA foreign_keys=ON", "PRAGMA temp_store=MEMORY"}) {
    if (!s->impl_->connection->exec(pragma)) return fail(pragma);
  }
  if (!create_or_migrate(*s->impl_->connection)) return fail(fmt::format("creating its tables or bringing them to schema {}", kSchemaVersion));
  auto& i = *s->impl_;
  i.insert = std::make_unique<Stmt>(db, kInsertAnswer);
  i.update = std::make_unique<Stmt>(db, kUpdateAnswer);
  i.attempt = std::make_unique<Stmt>(db, kInsertAttempt);
  i.begin = std::make_unique<Stmt>(db, "BEGIN IMMEDIATE");
  i.commit = std::make_unique<Stmt>(db, "COMMIT");
  i.rollback = std::make_unique<Stmt>(db, "ROLLBACK");
  i.put_bodies = std::make_unique<Stmt>(db, kPutBodies);
  i.put_part = std::make_unique<Stmt>(db, kPutPart);
  i.get_part = std::make_unique<Stmt>(db, kGetPart);
  i.quoted = std::make_unique<Stmt>(db, "SELECT text FROM answers WHERE id = ? AND status = 'done'");
  if (!i.insert->ok() || !i.update->ok() || !i.attempt->ok() || !i.begin->ok() || !i.commit->ok() || !i.rollback->ok() ||
      !i.put_bodies->ok() || !i.put_part->ok() || !i.get_part->ok() || !i.quoted->ok())
    return fail("prepare");
  return s;
}

Store::~Store() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

bool Store::lock_for_run(std::string& error) {
  if (lock_fd_ >= 0) return true;
  auto lock_path = path_.parent_path() / "run.lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = fmt::format("cannot open {}: {}", lock_path.string(), std::strerror(errno));
    return false;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {0};
    ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "?";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    error = fmt::format("another mirac run (pid {}) is using {}; wait for it or use another run directory",
                        holder, path_.parent_path().string());
    ::close(fd);
    return false;
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The pid is only for the message above; the lock itself is held.
  }
  lock_fd_ = fd;
  // The run is the store's writer from here on. SQLite copies the log into the database
  // every 1,000 pages (4 MB) by default, and each copy rewrites every page the log holds:
  // the hash index, which takes new answers at random places, was rewritten over and over
  // (1.6 GB written for a 310 MB MIRA store). Every 64 MB, a page the run keeps changing
  // reaches the database file a few times, not hundreds. Durability is the same: a commit
  // is synced to the log either way.
  impl_->connection->exec("PRAGMA wal_autocheckpoint = 16384");
  return true;
}

Store::ReadTransaction::ReadTransaction(Store& store) : store_(store) {
  if (sqlite3_get_autocommit(store_.impl_->db) != 0) began_ = store_.impl_->connection->exec("BEGIN");
}

Store::ReadTransaction::~ReadTransaction() {
  if (began_ && sqlite3_get_autocommit(store_.impl_->db) == 0) store_.impl_->connection->exec("COMMIT");
}

HashSet Store::done_hashes() {
  HashSet out;
  // Rows are numbered from 1 and never renumbered: the largest bounds how many there are.
  if (Stmt rows(impl_->db, "SELECT max(id) FROM answers"); rows.ok() && rows.step() == SQLITE_ROW)
    out.reserve(static_cast<std::size_t>(rows.integer(0)));
  Stmt q(impl_->db, "SELECT hash FROM answers WHERE status = 'done'");
  HashSet::Inserter inserter(out);
  while (q.ok() && q.step() == SQLITE_ROW) inserter.insert(q.text_view(0));
  inserter.flush();
  return out;
}

HashSet Store::done_hashes(const std::vector<std::string_view>& among) {
  long long rows = 0;
  if (Stmt q(impl_->db, "SELECT max(id) FROM answers"); q.ok() && q.step() == SQLITE_ROW) rows = q.integer(0);
  // A lookup costs a few scan steps' worth: one scan is cheaper from an eighth of the rows.
  if (static_cast<long long>(among.size()) * 8 >= rows) return done_hashes();
  HashSet out;
  out.reserve(among.size());
  Stmt q(impl_->db, "SELECT status = 'done' FROM answers WHERE id = ?");
  for (std::string_view hash : among) {
    long long row = 0;
    if (!q.ok() || !impl_->rows.find(impl_->db, std::string(hash), row) || row == 0) continue;
    q.bind(1, row);
    if (q.step() == SQLITE_ROW && q.integer(0) != 0) out.insert(hash);
    q.reset();
  }
  return out;
}

void Store::scan_states(const std::function<void(const ScannedAnswer&)>& visit) {
  // A done answer's cause is "ok": not read.
  Stmt q(impl_->db,
         "SELECT hash, status = 'done', CASE WHEN status = 'done' THEN '' ELSE cause END, cost_usd, truncated, warnings "
         "FROM answers");
  auto view = [&](int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(q.get(), col));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(q.get(), col))) : std::string_view();
  };
  ScannedAnswer row;
  while (q.ok() && q.step() == SQLITE_ROW) {
    row.hash = view(0);
    row.done = q.integer(1) != 0;
    row.cause = view(2);
    row.cost_usd = q.real(3);
    row.truncated = q.integer(4) != 0;
    row.warnings = view(5);
    visit(row);
  }
}

bool Store::is_done(const std::string& hash) {
  long long row = 0;
  if (!impl_->rows.find(impl_->db, hash, row) || row == 0) return false;
  Stmt q(impl_->db, "SELECT 1 FROM answers WHERE id = ? AND status = 'done'");
  q.bind(1, row);
  return q.ok() && q.step() == SQLITE_ROW;
}

namespace {

bool insert_attempt(Stmt& st, const AttemptRecord& a) {
  st.reset();
  std::string body = a.response_body.substr(0, kMaxAttemptBody);
  st.bind(1, a.hash).bind(2, static_cast<long long>(a.attempt)).bind(3, a.started_at)
      .bind(4, a.ended_at).bind(5, static_cast<long long>(a.http_status)).bind(6, a.outcome)
      .bind(7, a.cause).bind(8, a.message).bind(9, a.provider_request_id)
      .bind(10, a.retry_delay_s).bind(11, body);
  int rc = st.step();
  st.reset();
  return rc == SQLITE_DONE;
}

void bind_answer(Stmt& u, const AnswerRecord& a) {
  u.bind(1, a.hash).bind(2, a.status).bind(3, a.provider).bind(4, a.model)
      .bind(5, static_cast<long long>(a.http_status)).bind(6, a.text).bind(7, a.finish_reason)
      .bind(8, static_cast<long long>(a.truncated)).bind(9, a.returned_model)
      .bind(10, a.provider_request_id).bind(11, a.system_fingerprint)
      .bind(12, a.input_tokens).bind(13, a.output_tokens).bind(14, a.latency_s)
      .bind(15, a.started_at).bind(16, a.ended_at).bind(17, a.cost_usd).bind(18, a.cause)
      .bind(19, a.message).bind(20, static_cast<long long>(a.attempts)).bind(21, a.warnings);
}

}  // namespace

bool Store::Impl::upsert_answer(const AnswerRecord& a, long long& row) {
  // Inside the write transaction: no other writer can add this hash between the look-up
  // and the insert.
  long long existing = 0;
  if (!rows.find(db, a.hash, existing)) return false;
  Stmt& u = existing > 0 ? *update : *insert;
  u.reset();
  bind_answer(u, a);
  if (existing > 0) u.bind(22, existing);
  const int rc = u.step();
  u.reset();
  if (rc != SQLITE_DONE) return false;
  if (existing > 0) {
    row = sqlite3_changes(db) > 0 ? existing : 0;  // 0: a done answer was left alone
    return true;
  }
  row = sqlite3_last_insert_rowid(db);
  rows.add(a.hash, row);
  return true;
}

bool Store::record_attempt(const AttemptRecord& attempt) {
  if (!insert_attempt(*impl_->attempt, attempt)) {
    last_error_ = fmt::format("store {}: {}", path_.string(), sqlite3_errmsg(impl_->db));
    return false;
  }
  return true;
}

bool Store::begin_batch() {
  if (in_batch_) return true;
  auto& i = *impl_;
  i.begin->reset();
  bool ok = i.begin->step() == SQLITE_DONE;
  i.begin->reset();
  if (!ok) {
    last_error_ = fmt::format("store {}: {}", path_.string(), sqlite3_errmsg(i.db));
    return false;
  }
  in_batch_ = true;
  return true;
}

bool Store::commit_batch() {
  if (!in_batch_) return true;
  in_batch_ = false;
  auto& i = *impl_;
  i.commit->reset();
  bool ok = i.commit->step() == SQLITE_DONE;
  i.commit->reset();
  if (!ok) {
    last_error_ = fmt::format("store {}: {}", path_.string(), sqlite3_errmsg(i.db));
    i.roll_back();
  }
  return ok;
}

void Store::rollback_batch() {
  if (!in_batch_) return;
  in_batch_ = false;
  // SQLite may already have rolled back on a full disk; a second rollback is harmless.
  if (!sqlite3_get_autocommit(impl_->db)) impl_->roll_back();
  impl_->rows.clear();
}

bool Store::check_writable(std::string& error) {
  // A probe of about four answers' size, committed (so it reaches the disk, not only the
  // page cache) and then deleted.
  bool ok = impl_->connection->exec(
                               "INSERT OR REPLACE INTO meta (key, value) VALUES ('write_probe', hex(zeroblob(8192)))") &&
            impl_->connection->exec("DELETE FROM meta WHERE key = 'write_probe'");
  if (!ok)
    error = fmt::format("cannot write to the store {}: {}. Nothing was sent; free space on its disk (or fix its "
                        "permissions) and run again",
                        path_.string(), sqlite3_errmsg(impl_->db));
  return ok;
}

bool Store::import_journal(std::size_t& imported, std::string& error) {
  imported = 0;
  const auto file = journal_path(path_.parent_path());
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return true;
  std::size_t unreadable = 0;
  std::vector<JournalEntry> entries = read_journal(file, unreadable);
  bool ok = begin_batch();
  for (const auto& e : entries) ok = ok && record_answer(e.answer, e.attempt);
  if (ok) ok = commit_batch();
  else rollback_batch();
  if (!ok) {
    error = fmt::format("cannot write to the store the {} answer(s) an earlier run kept in {}: {}", entries.size(),
                        file.string(), last_error_);
    return false;
  }
  imported = entries.size();
  // Committed (synchronous=FULL): the journal has done its work. A line that was never
  // whole (a crash while it was written) was an answer lost with the crash, as any in flight.
  std::filesystem::remove(file, ec);
  return true;
}

bool Store::cap_pages(long long pages) {
  return impl_->connection->exec(fmt::format("PRAGMA max_page_count = {}", pages).c_str());
}

bool Store::record_answer(const AnswerRecord& a, const AttemptRecord& final_attempt) {
  auto& i = *impl_;
  bool own_tx = !in_batch_;
  auto fail = [&] {
    last_error_ = fmt::format("store {}: {}", path_.string(), sqlite3_errmsg(i.db));
    if (own_tx) {  // inside a batch, the statement alone failed; the batch keeps the rest
      i.roll_back();
    }
    return false;
  };
  if (own_tx) {
    i.begin->reset();
    if (i.begin->step() != SQLITE_DONE) return fail();
    i.begin->reset();
  }
  if (!insert_attempt(*i.attempt, final_attempt)) return fail();
  long long row = 0;
  if (!i.upsert_answer(a, row)) return fail();
  // The upsert leaves a done answer alone, and so its bodies.
  if (row > 0 && !i.store_bodies(row, a)) return fail();
  if (!own_tx) return true;
  i.commit->reset();
  if (i.commit->step() != SQLITE_DONE) return fail();
  i.commit->reset();
  return true;
}

bool Store::import_answers(const std::vector<AnswerRecord>& answers, std::size_t& stored, std::size_t& skipped) {
  stored = skipped = 0;
  auto& i = *impl_;
  bool own_tx = !in_batch_;
  auto fail = [&] {
    last_error_ = fmt::format("store {}: {}", path_.string(), sqlite3_errmsg(i.db));
    if (own_tx) {
      i.roll_back();
    }
    stored = skipped = 0;
    return false;
  };
  if (own_tx) {
    i.begin->reset();
    if (i.begin->step() != SQLITE_DONE) return fail();
    i.begin->reset();
  }
  for (const auto& a : answers) {
    long long row = 0;
    if (!i.upsert_answer(a, row)) return fail();
    // The upsert changes no row when the hash already has a done answer.
    if (row == 0) {
      ++skipped;
      continue;
    }
    if (!i.store_bodies(row, a)) return fail();
    ++stored;
  }
  if (!own_tx) return true;
  i.commit->reset();
  if (i.commit->step() != SQLITE_DONE) return fail();
  i.commit->reset();
  return true;
}

std::shared_ptr<const Store::Brief> Store::brief(const std::string& hash) {
  long long row = 0;
  if (!impl_->rows.find(impl_->db, hash, row) || row == 0) return nullptr;
  if (!impl_->brief)
    impl_->brief = std::make_unique<Stmt>(impl_->db, "SELECT status,text,cause,truncated,warnings FROM answers WHERE id = ?");
  Stmt& q = *impl_->brief;
  if (!q.ok()) {
    impl_->brief.reset();  // prepared again next time (the schema may have been busy)
    return nullptr;
  }
  q.bind(1, row);
  std::shared_ptr<const Brief> out;
  if (q.step() == SQLITE_ROW) out = std::make_shared<const Brief>(Brief{q.text(0), q.text(1), q.text(2), q.text(3) == "1", q.text(4)});
  q.reset();  // ends the read, so a cached statement never holds a transaction open
  return out;
}

std::unordered_map<std::string, Store::Marks> Store::marked_answers() {
  std::unordered_map<std::string, Marks> out;
  Stmt q(impl_->db, "SELECT hash,truncated,warnings FROM answers WHERE status = 'done' AND (truncated <> 0 OR warnings <> '')");
  while (q.ok() && q.step() == SQLITE_ROW) out[q.text(0)] = Marks{q.integer(1) != 0, q.text(2)};
  return out;
}

void Store::scan_stamps(const std::function<void(std::string_view hash, const Stamp&)>& visit) {
  Stmt q(impl_->db, "SELECT hash,returned_model,started_at,ended_at FROM answers WHERE status = 'done'");
  Stamp stamp;
  while (q.ok() && q.step() == SQLITE_ROW) {
    stamp.returned_model = q.text(1);
    stamp.started_at = q.real(2);
    stamp.ended_at = q.real(3);
    visit(q.text_view(0), stamp);
  }
}

std::optional<AnswerRecord> Store::answer(const std::string& hash) {
  long long id = 0;
  if (!impl_->rows.find(impl_->db, hash, id) || id == 0) return std::nullopt;
  Stmt q(impl_->db, fmt::format("SELECT {},id FROM answers WHERE id = ?", kAnswerColumns).c_str());
  q.bind(1, id);
  if (!q.ok() || q.step() != SQLITE_ROW) return std::nullopt;
  AnswerRecord a;
  a.hash = q.text(0);
  a.status = q.text(1);
  a.provider = q.text(2);
  a.model = q.text(3);
  a.http_status = static_cast<long>(q.integer(4));
  a.text = q.text(5);
  a.finish_reason = q.text(6);
  a.truncated = q.integer(7) != 0;
  a.returned_model = q.text(8);
  a.provider_request_id = q.text(9);
  a.system_fingerprint = q.text(10);
  a.input_tokens = q.integer(11);
  a.output_tokens = q.integer(12);
  a.latency_s = q.real(13);
  a.started_at = q.real(14);
  a.ended_at = q.real(15);
  a.cost_usd = q.real(16);
  a.cause = q.text(17);
  a.message = q.text(18);
  a.attempts = static_cast<int>(q.integer(19));
  a.warnings = q.text(20);
  const long long row = q.integer(21);
  Stmt b(impl_->db,
         "SELECT b.request_encoded, b.request_body, b.response_encoded, b.response_body, b.quoted IS NOT NULL, q.text "
         "FROM bodies b LEFT JOIN answers q ON q.id = b.quoted WHERE b.answer = ?");
  b.bind(1, row);
  if (b.ok() && b.step() == SQLITE_ROW) {
    const bool quoted_missing = b.integer(4) != 0 && sqlite3_column_type(b.get(), 5) == SQLITE_NULL;
    const std::string quoted = b.text(5);
    if (quoted_missing || !impl_->original(b.integer(0) != 0, b.text(1), BodyTexts{{}, quoted}, a.request_body) ||
        !impl_->original(b.integer(2) != 0, b.text(3), BodyTexts{a.text, {}}, a.response_body))
      last_error_ = fmt::format("store {}: a shared part of the bodies of {} is missing", path_.string(), hash);
  }
  return a;
}

std::vector<AttemptRecord> Store::attempts(const std::string& hash) {
  std::vector<AttemptRecord> out;
  Stmt q(impl_->db,
         "SELECT hash,attempt,started_at,ended_at,http_status,outcome,cause,message,"
         "provider_request_id,retry_delay_s,response_body FROM attempts WHERE hash = ? ORDER BY id");
  q.bind(1, hash);
  while (q.ok() && q.step() == SQLITE_ROW) {
    AttemptRecord a;
    a.hash = q.text(0);
    a.attempt = static_cast<int>(q.integer(1));
    a.started_at = q.real(2);
    a.ended_at = q.real(3);
    a.http_status = static_cast<long>(q.integer(4));
    a.outcome = q.text(5);
    a.cause = q.text(6);
    a.message = q.text(7);
    a.provider_request_id = q.text(8);
    a.retry_delay_s = q.real(9);
    a.response_body = q.text(10);
    out.push_back(std::move(a));
  }
  return out;
}

StatusReport Store::status(const std::vector<std::string>& hashes) {
  StatusReport r;
  Stmt q(impl_->db, "SELECT status, cause FROM answers WHERE id = ?");
  std::unordered_set<std::string> seen;
  for (const auto& h : hashes) {
    if (!seen.insert(h).second) continue;  // a hash is one request, however often listed
    long long row = 0;
    impl_->rows.find(impl_->db, h, row);
    q.reset();
    q.bind(1, row);
    if (row == 0 || q.step() != SQLITE_ROW) {
      ++r.pending;
      continue;
    }
    if (q.text(0) == "done") ++r.done;
    else ++r.failed[q.text(1)];
  }
  return r;
}

double Store::total_spend() {
  Stmt q(impl_->db, "SELECT COALESCE(SUM(cost_usd), 0) FROM answers");
  return q.ok() && q.step() == SQLITE_ROW ? q.real(0) : 0.0;
}

}  // namespace mirac
