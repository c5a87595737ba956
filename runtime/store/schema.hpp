// schema.hpp: the store's tables (schema 5), how an answer's bodies are written into them
// (encoded, bodies.hpp), and the move of an older store into them.
//
// Schema 4 keys the bodies by the answer's row number rather than by its hash: every index
// keyed by a hash takes each new answer at a random place, and so costs a page written per
// answer and per index. Schema 5 drops the last one, on answers.hash: the store finds a
// hash's row from memory (answer_rows.hpp). Its one index, answers_states, is in row order. The attempts are not indexed at all: only
// people with an SQL client look them up, and a scan of them takes milliseconds.
#pragma once

#include <sqlite3.h>

#include <string>

#include "runtime/store/bodies.hpp"
#include "runtime/store/connection.hpp"
#include "runtime/store/statement.hpp"

namespace mirac {

inline constexpr const char* kSchemaVersion = "5";

/// The columns of table `answers` after its row number and hash.
inline constexpr const char* kAnswerFields =
    "status TEXT NOT NULL CHECK (status IN ('done', 'failed')),"
    " provider TEXT NOT NULL, model TEXT NOT NULL, http_status INTEGER NOT NULL,"
    " text TEXT NOT NULL, finish_reason TEXT NOT NULL, truncated INTEGER NOT NULL,"
    " returned_model TEXT NOT NULL, provider_request_id TEXT NOT NULL,"
    " system_fingerprint TEXT NOT NULL,"
    " input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,"
    " latency_s REAL NOT NULL, started_at REAL NOT NULL, ended_at REAL NOT NULL,"
    " cost_usd REAL NOT NULL, cause TEXT NOT NULL, message TEXT NOT NULL, attempts INTEGER NOT NULL,"
    " warnings TEXT NOT NULL DEFAULT ''";
/// The columns of table `bodies` after the answer's row number: `quoted` is the row number
/// of the answer a request quotes (a judge's request), NULL for none.
inline constexpr const char* kBodyFields =
    "request_encoded INTEGER NOT NULL, request_body TEXT NOT NULL,"
    " response_encoded INTEGER NOT NULL, response_body TEXT NOT NULL, quoted INTEGER";

inline constexpr const char* kPutBodies =
    "INSERT OR REPLACE INTO bodies (answer,request_encoded,request_body,response_encoded,response_body,quoted) "
    "VALUES (?,?,?,?,?,?)";
inline constexpr const char* kPutPart = "INSERT OR IGNORE INTO parts (id, literal) VALUES (?, ?)";
inline constexpr const char* kGetPart = "SELECT literal FROM parts WHERE id = ?";

/// A string literal of a request body at least `literal` bytes long is kept once, as a shared
/// part: system prompts and judge instructions (kilobytes) are; prompts and parameters are
/// not. Around a quoted answer, pieces of `piece` bytes are: a judge message's context and
/// prompt before the answer (the same for each model and arm) and the checklist after it
/// (the same for each of the seed's prompts).
inline constexpr PartSizes kPartSizes{1024, 256};

/// The answer a request quotes, as the store holds it (row 0: none).
struct QuotedAnswer {
  long long row = 0;
  std::string text;
};

/// Writes the bodies of the answer in row `answer`, encoded, and the shared parts they refer
/// to, with the statements kPutBodies and kPutPart prepared on the store's connection.
bool write_bodies(Stmt& put_bodies, Stmt& put_part, long long answer, const std::string& request_body,
                  const std::string& response_body, const std::string& text, const QuotedAnswer& quoted);

/// Creates the tables of a new store, or brings one of schema 1, 2 or 3 to schema 4 in one
/// transaction, byte for byte, and compacts it; then to schema 5 (drops the hash index). False, with the store unchanged, on failure.
bool create_or_migrate(StoreConnection& connection);

}  // namespace mirac
