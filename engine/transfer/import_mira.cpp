#include "engine/transfer/import_mira.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace mirac {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Up to `n` bytes of `s` from `at`, cut on UTF-8 character boundaries so the message stays valid text.
std::string excerpt(const std::string& s, std::size_t at, std::size_t n) {
  auto boundary = [&](std::size_t i) {
    while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
    return std::min(i, s.size());
  };
  std::size_t begin = boundary(at), end = boundary(begin + n);
  return s.substr(begin, end - begin) + (end < s.size() ? "..." : "");
}

}  // namespace

bool is_mira_record(const nlohmann::ordered_json& fields) {
  if (fields.contains("arm")) return false;
  for (const char* k : {"mitigation", "model_judged", "source_model", "provider_model", "original_prompt_id", "final_prompt"})
    if (fields.contains(k)) return true;
  return false;
}

std::optional<bool> mitigation_flag(const nlohmann::ordered_json& value) {
  if (value.is_null()) return false;
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number()) {
    double n = value.get<double>();
    if (n == 0) return false;
    if (n == 1) return true;
    return std::nullopt;
  }
  if (!value.is_string()) return std::nullopt;
  // Python writes booleans as "True"/"False", so case does not matter.
  const std::string s = lower(value.get<std::string>());
  if (s == "true" || s == "1" || s == "yes" || s == "mitigation") return true;
  if (s == "false" || s == "0" || s == "no" || s == "baseline" || s.empty()) return false;
  return std::nullopt;
}

std::string mira_prompt_id(const SourceManager& sources, const DataRow& row,
                           const std::unordered_map<std::string, std::size_t>& prompt_index, std::string& key,
                           Diagnostics& diags) {
  const auto& f = row.fields;
  bool bad = false;
  auto text_of = [&](const char* k) -> std::optional<std::string> {
    auto it = f.find(k);
    if (it == f.end() || it->is_null()) return std::nullopt;
    if (it->is_string() || it->is_number_integer()) return json_text(*it);
    diags.error(field_range(sources, row, k), fmt::format("'{}' must be a string", k));
    bad = true;
    return std::nullopt;
  };
  std::optional<std::string> original = text_of("original_prompt_id"), id = text_of("prompt_id");
  if (bad) return "";
  if (original) {
    // A judged record's own id is the original id with the model appended: `<id>__<model>`.
    if (id && *id != *original && id->rfind(*original + "__", 0) != 0) {
      diags.error(field_range(sources, row, "prompt_id"),
                  fmt::format("'prompt_id' '{}' is not 'original_prompt_id' '{}' (or it followed by '__<model>')", *id,
                              *original));
      return "";
    }
    key = "original_prompt_id";
    return *original;
  }
  if (!id) {
    diags.error(sources.range(row.file, row.line_begin, row.line_end),
                "row has no prompt id ('prompt_id' or 'original_prompt_id')");
    return "";
  }
  key = "prompt_id";
  if (!prompt_index.count(*id))
    if (auto cut = id->find("__"); cut != std::string::npos && prompt_index.count(id->substr(0, cut)))
      return id->substr(0, cut);
  return *id;
}

void check_mira_metadata(const Spec& spec, const PromptRow& prompt, const SourceManager& sources, const DataRow& row,
                         const std::vector<std::string>& skip, Diagnostics& diags) {
  for (auto it = row.fields.begin(); it != row.fields.end(); ++it) {
    const std::string& key = it.key();
    if (it->is_null() || std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    if (key == "seed_id") {
      if (json_text(*it) != prompt.seed)
        diags.error(field_range(sources, row, key), fmt::format("'seed_id' is '{}' but prompt '{}' is of seed '{}'",
                                                                json_text(*it), prompt.id, prompt.seed));
      continue;
    }
    if (key == "final_prompt") {
      const std::string given = it->is_string() ? it->get<std::string>() : it->dump();
      if (given == prompt.text) continue;
      std::size_t at = 0;
      while (at < given.size() && at < prompt.text.size() && given[at] == prompt.text[at]) ++at;
      diags.error(field_range(sources, row, key),
                  fmt::format("'final_prompt' is not the text of the spec's prompt '{}'", prompt.id));
      diags.note(fmt::format("they differ from byte {}: the file has \"{}\", the spec \"{}\"", at, excerpt(given, at, 40),
                             excerpt(prompt.text, at, 40)));
      continue;
    }
    for (std::size_t f = 0; f < spec.factors.size(); ++f) {
      if (lower(spec.factors[f].name) != lower(key)) continue;
      const std::string& level = spec.factors[f].levels[static_cast<std::size_t>(prompt.levels[f])].name.name;
      if (json_text(*it) != level)
        diags.error(field_range(sources, row, key), fmt::format("'{}' is '{}' but prompt '{}' has {} '{}'", key,
                                                                json_text(*it), prompt.id, spec.factors[f].name, level));
      break;
    }
  }
}

}  // namespace mirac
