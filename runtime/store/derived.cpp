#include "runtime/store/derived.hpp"

#include <elf.h>
#include <link.h>

#include <cstring>

#include "runtime/store/statement.hpp"

namespace mirac {
namespace {

constexpr const char* kTable =
    "CREATE TABLE IF NOT EXISTS derived (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID";
constexpr const char* kBuildKey = "derived_build";

// The first key after every key that begins with `prefix` (empty: there is none).
std::string after_prefix(std::string prefix) {
  while (!prefix.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(prefix.back());
    if (last != 0xFF) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

void bind_blob(Stmt& s, int i, const std::string& bytes) {
  sqlite3_bind_blob(s.get(), i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

std::string column_blob(Stmt& s, int i) {
  const void* p = sqlite3_column_blob(s.get(), i);
  return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s.get(), i)))
           : std::string();
}

int find_build_id(dl_phdr_info* info, std::size_t, void* out) {
  // The first object listed is the program itself.
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* at = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = at + ph.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const char* name = at + sizeof(ElfW(Nhdr));
      const char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 &&
          desc + note->n_descsz <= end) {
        static constexpr char kHex[] = "0123456789abcdef";
        auto& hex = *static_cast<std::string*>(out);
        for (std::size_t b = 0; b < note->n_descsz; ++b) {
          const auto byte = static_cast<unsigned char>(desc[b]);
          hex += kHex[byte >> 4];
          hex += kHex[byte & 0xF];
        }
        return 1;
      }
      at = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;  // only the program is looked at
}

}  // namespace

std::string program_build_id() {
  std::string hex;
  dl_iterate_phdr(find_build_id, &hex);
  return hex;
}

std::unique_ptr<DerivedValues> DerivedValues::open(const std::filesystem::path& store_file) {
  std::unique_ptr<DerivedValues> d(new DerivedValues());
  d->build_ = program_build_id();
  if (d->build_.empty()) return nullptr;
  std::string error;
  d->connection_ = StoreConnection::open(store_file, StoreConnection::Mode::existing, error, 0.25);
  if (!d->connection_) return nullptr;
  // A cache waits little for the write lock (above), and need not reach the disk before a
  // commit returns: an entry lost to a power cut is derived again.
  d->connection_->exec("PRAGMA synchronous=NORMAL");
  d->db_ = d->connection_->db();
  return d;
}

DerivedValues::~DerivedValues() = default;

bool DerivedValues::this_build_wrote() {
  Stmt q(db_, "SELECT value FROM meta WHERE key = ?");
  q.bind(1, std::string(kBuildKey));
  return q.ok() && q.step() == SQLITE_ROW && q.text(0) == build_;
}

std::vector<std::pair<std::string, std::string>> DerivedValues::with_prefix(const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  // One read transaction, so the build and the entries are seen as of one moment.
  if (!connection_->exec("BEGIN")) return out;
  if (this_build_wrote()) {
    const std::string end = after_prefix(prefix);
    Stmt q(db_, end.empty() ? "SELECT key, value FROM derived WHERE key >= ?1 ORDER BY key"
                            : "SELECT key, value FROM derived WHERE key >= ?1 AND key < ?2 ORDER BY key");
    bind_blob(q, 1, prefix);
    if (!end.empty()) bind_blob(q, 2, end);
    while (q.ok() && q.step() == SQLITE_ROW) out.emplace_back(column_blob(q, 0), column_blob(q, 1));
  }
  connection_->exec("COMMIT");
  return out;
}

bool DerivedValues::put(const std::vector<std::pair<std::string, std::string>>& entries) {
  if (entries.empty()) return true;
  if (!connection_->exec(kTable)) return false;
  StoreTransaction transaction(*connection_);
  if (!transaction.ok()) return false;
  if (!this_build_wrote()) {
    if (!connection_->exec("DELETE FROM derived")) return false;
    Stmt tag(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    tag.bind(1, std::string(kBuildKey)).bind(2, build_);
    if (!tag.ok() || tag.step() != SQLITE_DONE) return false;
  }
  {
    Stmt put(db_, "INSERT OR REPLACE INTO derived (key, value) VALUES (?, ?)");
    if (!put.ok()) return false;
    for (const auto& [key, value] : entries) {
      put.reset();
      bind_blob(put, 1, key);
      bind_blob(put, 2, value);
      if (put.step() != SQLITE_DONE) return false;
    }
  }
  return transaction.commit();
}

}  // namespace mirac
