// import_mira.hpp: reading the MIRA authors' judge-input records in `mirac import`: the
// response files their released judge script scores (`prompt_id`, `model_judged`,
// `mitigation`, `response`, and the prompt's metadata), told apart from mirac's own
// records (`arm`) record by record.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/model/data.hpp"
#include "interpreter/plan/plan.hpp"

namespace mirac {

/// Keys that name the answering model in a MIRA record, tried in this order.
inline constexpr const char* kMiraModelKeys[] = {"model_judged", "model", "source_model", "provider_model"};

/// True when `fields` is a MIRA judge-input record: it has a key only that format uses
/// (`mitigation`, `model_judged`, `source_model`, `provider_model`, `original_prompt_id`,
/// `final_prompt`). A record with `arm` is mirac's own.
bool is_mira_record(const nlohmann::ordered_json& fields);

/// `mitigation` as an arm: true, "true", 1, "yes", "mitigation" (any case) -> true;
/// false, "false", 0, "no", "baseline", "" and null -> false; anything else -> nullopt.
std::optional<bool> mitigation_flag(const nlohmann::ordered_json& value);

/// The prompt id a MIRA record answers: `original_prompt_id` when present, else `prompt_id`
/// (without a `__<model>` suffix when the id with it is not a prompt of the plan). Sets
/// `key` to the key it came from. Empty with an error in `diags` when unusable.
std::string mira_prompt_id(const SourceManager& sources, const DataRow& row,
                           const std::unordered_map<std::string, std::size_t>& prompt_index, std::string& key,
                           Diagnostics& diags);

/// The record's metadata against the spec's prompt it answers: `seed_id`, a key per factor
/// (matched case-insensitively: `HLS` is factor `hls`) and `final_prompt` must agree with
/// it; each disagreement is an error at the field. `skip` lists keys with another role.
void check_mira_metadata(const Spec& spec, const PromptRow& prompt, const SourceManager& sources, const DataRow& row,
                         const std::vector<std::string>& skip, Diagnostics& diags);

}  // namespace mirac
