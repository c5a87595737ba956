// json_string.hpp: a string as nlohmann::json's dump() writes it, fast. Request hashes are
// taken over nlohmann's serialisation, and escaping a judge message byte by byte through
// its UTF-8 decoder was the largest single cost of finding 43,200 stored judgments.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace mirac {

/// Appends `text` as a JSON string literal, byte for byte what
/// `nlohmann::json(std::string(text)).dump()` gives (UTF-8 kept, control characters escaped
/// as nlohmann escapes them). Text that is not valid UTF-8 goes to nlohmann itself, which
/// throws its own error, so both ways behave the same on every input.
void append_json_string(std::string& out, std::string_view text);
/// The same without the quotes: what `text` adds inside a string literal. Escaping is
/// byte-local, so the pieces of a text escaped one by one give the text escaped whole.
void append_json_escaped(std::string& out, std::string_view text);

/// `value.dump()` (compact, UTF-8 kept), byte for byte, with its strings escaped by
/// append_json_string rather than nlohmann's byte-by-byte serializer: request bodies carry
/// kilobytes of instructions and system prompts, and dumping them was a sixth of an offline
/// MIRA run. Numbers, booleans and null are nlohmann's own; invalid UTF-8 throws as dump() does.
std::string dump_json(const nlohmann::json& value);
void append_json(std::string& out, const nlohmann::json& value);

}  // namespace mirac
