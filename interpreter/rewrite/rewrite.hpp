// rewrite.hpp: what `mirac rewrite` asks for. A `variant` declares how a seed field is
// rewritten per cell (an instruction per cell, a rewriter model); every (seed, cell) with no
// text in a lock becomes one chat request to the rewriter, and every answer one lock record
// that the variant's `lock jsonl(...)` reads back. Building requests and records is pure:
// nothing is sent here.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interpreter/driver.hpp"

namespace mirac {

/// One rewrite to request: seed `seed` in the cell `levels` of variant `variant`.
struct RewriteRequest {
  std::size_t variant = 0;  ///< index into spec.variants
  std::string seed;
  std::vector<int> levels;  ///< a level per factor of spec.factors; only the variant's `by` matter
  std::string cell;         ///< cell key over `by`, e.g. "zh.high.formal"
  ModelCall call;           ///< system: the cell's instruction; user: the seed's text
};

/// Parses and checks the spec like compile() (no plan is built), leaving out the errors that
/// only say a variant's texts are missing: a lock file that does not exist yet, and seeds
/// and cells without a text. Producing those texts is what `mirac rewrite` is for. Every
/// other problem stays in `diags`. `missing_locks` gets the lock paths that do not exist.
std::unique_ptr<Compilation> compile_for_rewrite(const std::filesystem::path& spec_path, const CheckOptions& options,
                                                 std::vector<std::string>& missing_locks);

/// A request per (seed, cell) of each variant with no text yet, in seed order then cell
/// order (first factor of `by` slowest). A variant missing texts but without a rewriter or
/// an instruction for a cell, or a seed without the text to rewrite, is an error in `diags`.
std::vector<RewriteRequest> build_rewrite_requests(const Spec& spec, Diagnostics& diags);

/// The request's chat call: the rewriter's provider preset and model string, the cell's
/// instruction (in the seed field's language) as the system message and the seed's text
/// as the user message, the rewriter's settings as parameters; hashed as plan requests are.
ModelCall rewrite_call(const Spec& spec, const Variant& v, const std::string& instruction, const std::string& seed_text);

/// The lock record of a rewrite, in the shape `lock jsonl(FILE)` reads without a column
/// block: `seed`, one key per factor of `by` (its level), `text`, then `hash` and `model`
/// (written `rewrite.hash`, `rewrite.model` if a factor has that name).
nlohmann::ordered_json lock_record(const Spec& spec, const RewriteRequest& r, const std::string& text);

}  // namespace mirac
