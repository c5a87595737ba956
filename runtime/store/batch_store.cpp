// batch_store.cpp: the batch tables of the run store.
#include "runtime/store/batch_store.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "runtime/store/connection.hpp"
#include "runtime/store/statement.hpp"

namespace mirac {
namespace {

// A request is kept as its call (what build_body needs), its system prompt once per
// distinct text: a judge's instructions are the same kilobytes in every request.
constexpr const char* kBatchSchema = R"sql(
CREATE TABLE IF NOT EXISTS batches (
  local_id TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, protocol TEXT NOT NULL,
  base_url TEXT NOT NULL, key_env TEXT NOT NULL, state TEXT NOT NULL, remote_id TEXT NOT NULL,
  input_file_id TEXT NOT NULL, remote_status TEXT NOT NULL, requests INTEGER NOT NULL,
  finished INTEGER NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS batch_systems (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS batch_requests (
  local_id TEXT NOT NULL, custom_id TEXT NOT NULL, hash TEXT NOT NULL, attempt INTEGER NOT NULL,
  call TEXT, system_id INTEGER, outcome TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (local_id, custom_id));
CREATE INDEX IF NOT EXISTS batch_requests_by_hash ON batch_requests(hash);
)sql";

const char* protocol_name(WireProtocol p) {
  return p == WireProtocol::anthropic_messages ? "anthropic_messages" : "openai_chat";
}

std::string call_json(const ModelCall& c) {
  nlohmann::json j = {{"hash", c.hash},        {"provider", c.provider}, {"protocol", protocol_name(c.protocol)},
                      {"base_url", c.base_url}, {"key_env", c.key_env}, {"model", c.model},
                      {"token_limit_field", c.token_limit_field},      {"user", c.user.str()},
                      {"params", c.params.json()}};
  if (!c.quotes.empty()) j["quotes"] = c.quotes;  // a judge's request: the store refers to the answer it quotes
  return j.dump();
}

ModelCall call_from(const std::string& text, std::shared_ptr<const std::string> system) {
  ModelCall c;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return c;
  c.hash = j.value("hash", "");
  c.provider = j.value("provider", "");
  c.protocol = j.value("protocol", "") == "anthropic_messages" ? WireProtocol::anthropic_messages : WireProtocol::openai_chat;
  c.base_url = j.value("base_url", "");
  c.key_env = j.value("key_env", "");
  c.model = j.value("model", "");
  c.token_limit_field = j.value("token_limit_field", "");
  c.user = j.value("user", "");
  if (j.contains("params")) c.params = j["params"];
  c.quotes = j.value("quotes", "");
  c.system = std::move(system);
  return c;
}

BatchRecord record_from(Stmt& s) {
  BatchRecord b;
  b.local_id = s.text(0);
  b.provider = s.text(1);
  b.model = s.text(2);
  b.protocol = s.text(3) == "anthropic_messages" ? WireProtocol::anthropic_messages : WireProtocol::openai_chat;
  b.base_url = s.text(4);
  b.key_env = s.text(5);
  b.state = s.text(6);
  b.remote_id = s.text(7);
  b.input_file_id = s.text(8);
  b.remote_status = s.text(9);
  b.requests = static_cast<std::size_t>(s.integer(10));
  b.finished = static_cast<std::size_t>(s.integer(11));
  b.created_at = s.real(12);
  b.updated_at = s.real(13);
  b.message = s.text(14);
  return b;
}

}  // namespace

std::unique_ptr<BatchStore> BatchStore::open(const std::filesystem::path& dir, std::string& error) {
  std::unique_ptr<BatchStore> s(new BatchStore());
  s->connection_ = StoreConnection::open(dir / "store.sqlite", StoreConnection::Mode::read_write, error);
  if (!s->connection_) return nullptr;
  if (!s->connection_->exec(kBatchSchema, error)) {
    error = fmt::format("cannot open store {}: {}", s->connection_->file().string(), error);
    return nullptr;
  }
  return s;
}

std::unique_ptr<BatchStore> BatchStore::open_to_read(const std::filesystem::path& dir, std::string& error) {
  std::unique_ptr<BatchStore> s(new BatchStore());
  s->connection_ = StoreConnection::open(dir / "store.sqlite", StoreConnection::Mode::read_only, error);
  if (!s->connection_) return nullptr;
  return s;
}

BatchStore::~BatchStore() = default;

sqlite3* BatchStore::db() const { return connection_->db(); }

bool BatchStore::create(const BatchRecord& b, const std::vector<BatchRequest>& requests, std::string& error) {
  StoreTransaction transaction(*connection_);
  if (!transaction.ok()) return error = transaction.error(), false;
  bool ok = true;
  {
    Stmt batch(db(),
               "INSERT INTO batches VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
    batch.bind(1, b.local_id).bind(2, b.provider).bind(3, b.model).bind(4, std::string(protocol_name(b.protocol)));
    batch.bind(5, b.base_url).bind(6, b.key_env).bind(7, b.state).bind(8, b.remote_id).bind(9, b.input_file_id);
    batch.bind(10, b.remote_status).bind(11, static_cast<long long>(b.requests));
    batch.bind(12, static_cast<long long>(b.finished)).bind(13, b.created_at).bind(14, b.updated_at).bind(15, b.message);
    ok = batch.step() == SQLITE_DONE;
    Stmt put_system(db(), "INSERT OR IGNORE INTO batch_systems (text) VALUES (?1)");
    Stmt get_system(db(), "SELECT id FROM batch_systems WHERE text = ?1");
    Stmt put(db(), "INSERT INTO batch_requests (local_id, custom_id, hash, attempt, call, system_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    std::unordered_map<const std::string*, long long> system_ids;
    for (std::size_t i = 0; ok && i < requests.size(); ++i) {
      const BatchRequest& r = requests[i];
      put.reset();
      put.bind(1, b.local_id).bind(2, r.custom_id).bind(3, r.call.hash).bind(4, static_cast<long long>(r.attempt));
      put.bind(5, call_json(r.call));
      if (r.call.system) {
        auto [it, fresh] = system_ids.try_emplace(r.call.system.get(), 0);
        if (fresh) {
          put_system.reset();
          put_system.bind(1, *r.call.system);
          get_system.reset();
          get_system.bind(1, *r.call.system);
          ok = put_system.step() == SQLITE_DONE && get_system.step() == SQLITE_ROW;
          it->second = get_system.integer(0);
        }
        put.bind(6, it->second);
      }
      ok = ok && put.step() == SQLITE_DONE;
    }
  }
  if (ok && transaction.commit()) return true;
  error = ok ? transaction.error() : connection_->last_error();
  return false;
}

bool BatchStore::update(const BatchRecord& b, std::string& error) {
  Stmt s(db(),
         "UPDATE batches SET state = ?2, remote_id = ?3, input_file_id = ?4, remote_status = ?5, finished = ?6, "
         "updated_at = ?7, message = ?8 WHERE local_id = ?1");
  s.bind(1, b.local_id).bind(2, b.state).bind(3, b.remote_id).bind(4, b.input_file_id).bind(5, b.remote_status);
  s.bind(6, static_cast<long long>(b.finished)).bind(7, b.updated_at).bind(8, b.message);
  if (s.step() == SQLITE_DONE) return true;
  error = sqlite3_errmsg(db());
  return false;
}

bool BatchStore::collect(const BatchRecord& b, const std::vector<std::pair<std::string, std::string>>& outcomes,
                         std::string& error) {
  StoreTransaction transaction(*connection_);
  if (!transaction.ok()) return error = transaction.error(), false;
  bool ok = true;
  {
    Stmt s(db(), "UPDATE batch_requests SET outcome = ?3, call = NULL WHERE local_id = ?1 AND custom_id = ?2");
    for (const auto& [custom_id, outcome] : outcomes) {
      s.reset();
      s.bind(1, b.local_id).bind(2, custom_id).bind(3, outcome);
      ok = ok && s.step() == SQLITE_DONE;
    }
  }
  BatchRecord done = b;
  done.state = batch_state::collected;
  if (!ok) return error = connection_->last_error(), false;
  if (!update(done, error)) return false;
  if (transaction.commit()) return true;
  error = transaction.error();
  return false;
}

std::vector<BatchRecord> BatchStore::batches(bool open_only) {
  std::vector<BatchRecord> out;
  Stmt s(db(), open_only ? "SELECT * FROM batches WHERE state != 'collected' ORDER BY created_at, local_id"
                        : "SELECT * FROM batches ORDER BY created_at, local_id");
  while (s.step() == SQLITE_ROW) out.push_back(record_from(s));
  return out;
}

std::vector<BatchRequest> BatchStore::requests(const std::string& local_id) {
  std::vector<BatchRequest> out;
  std::unordered_map<long long, std::shared_ptr<const std::string>> systems;
  Stmt text(db(), "SELECT text FROM batch_systems WHERE id = ?1");
  Stmt s(db(),
         "SELECT custom_id, hash, attempt, call, system_id, outcome FROM batch_requests WHERE local_id = ?1 "
         "ORDER BY custom_id");
  s.bind(1, local_id);
  while (s.step() == SQLITE_ROW) {
    BatchRequest r;
    r.custom_id = s.text(0);
    r.attempt = static_cast<int>(s.integer(2));
    r.outcome = s.text(5);
    std::shared_ptr<const std::string> system;
    if (sqlite3_column_type(s.get(), 4) != SQLITE_NULL) {
      const long long id = s.integer(4);
      auto [it, fresh] = systems.try_emplace(id);
      if (fresh) {
        text.reset();
        text.bind(1, id);
        if (text.step() == SQLITE_ROW) it->second = std::make_shared<const std::string>(text.text(0));
      }
      system = it->second;
    }
    if (sqlite3_column_type(s.get(), 3) != SQLITE_NULL) r.call = call_from(s.text(3), std::move(system));
    r.call.hash = s.text(1);
    out.push_back(std::move(r));
  }
  return out;
}

std::unordered_set<std::string> BatchStore::hashes_in_open_batches() {
  std::unordered_set<std::string> out;
  Stmt s(db(),
         "SELECT r.hash FROM batch_requests r JOIN batches b ON b.local_id = r.local_id "
         "WHERE b.state != 'collected' AND r.outcome = ''");
  while (s.step() == SQLITE_ROW) out.insert(s.text(0));
  return out;
}

std::unordered_map<std::string, int> BatchStore::attempts_by_hash() {
  std::unordered_map<std::string, int> out;
  Stmt s(db(), "SELECT hash, MAX(attempt) FROM batch_requests GROUP BY hash");
  while (s.step() == SQLITE_ROW) out[s.text(0)] = static_cast<int>(s.integer(1));
  return out;
}

bool BatchStore::knows_remote_id(const std::string& remote_id) {
  Stmt s(db(), "SELECT 1 FROM batches WHERE remote_id = ?1");
  s.bind(1, remote_id);
  return s.step() == SQLITE_ROW;
}

}  // namespace mirac
