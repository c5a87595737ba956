// schema3.hpp: store schema 3, bodies apart from the answers rows and encoded
// (bodies.hpp), and the move of a schema-2 store's bodies into it.
#pragma once

#include <sqlite3.h>

#include <string>

#include "runtime/store/statement.hpp"

namespace mirac {

inline constexpr const char* kPutBodies =
    "INSERT OR REPLACE INTO bodies (hash,request_encoded,request_body,response_encoded,response_body) "
    "VALUES (?,?,?,?,?)";
inline constexpr const char* kPutPart = "INSERT OR IGNORE INTO parts (id, literal) VALUES (?, ?)";
inline constexpr const char* kGetPart = "SELECT literal FROM parts WHERE id = ?";

/// A string literal of a request body at least this long is kept once, as a shared part:
/// system prompts and judge instructions (kilobytes) are; prompts and parameters are not.
inline constexpr std::size_t kMinPart = 1024;

/// Writes one answer's bodies, encoded, and the shared parts they refer to, with the
/// statements kPutBodies and kPutPart prepared on the store's connection.
bool write_bodies(Stmt& put_bodies, Stmt& put_part, const std::string& hash, const std::string& request_body,
                  const std::string& response_body, const std::string& text);

/// Moves a schema-2 store's bodies out of its answers rows (nothing to do on schema 3).
/// False, with the store unchanged, when the move fails.
bool migrate_bodies(sqlite3* db);

}  // namespace mirac
