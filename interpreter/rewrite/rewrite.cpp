#include "interpreter/rewrite/rewrite.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "interpreter/eval/cell_scope.hpp"
#include "interpreter/check/check.hpp"
#include "runtime/hash/hash.hpp"
#include "interpreter/merge/modules.hpp"

namespace mirac {

namespace {

bool same_range(const SourceRange& a, const SourceRange& b) {
  return a.file == b.file && a.begin == b.begin && a.end == b.end;
}

void copy_diagnostic(const Diagnostic& d, Diagnostics& to) {
  if (d.severity == Severity::warning) to.warning(d.range, d.message);
  else if (!d.range.valid() && !d.where.empty()) to.error_at(d.where, d.message);
  else to.error(d.range, d.message);
  for (const auto& n : d.notes) to.note(n);
}

// A settings block as request parameters: literals, lists and nested blocks, as for models.
nlohmann::json settings_json(const ast::Block& block, Diagnostics* diags) {
  nlohmann::json out = nlohmann::json::object();
  auto literal = [&](const ast::Expr& x, auto&& self) -> nlohmann::json {
    if (const auto* n = std::get_if<ast::NumberLit>(&x.node)) {
      if (n->text.find_first_of(".eE") == std::string::npos) return std::stoll(n->text);
      return n->value;
    }
    if (const auto* s = std::get_if<ast::StringLit>(&x.node)) return s->value;
    if (const auto* b = std::get_if<ast::BoolLit>(&x.node)) return b->value;
    if (std::holds_alternative<ast::NoneLit>(x.node)) return nullptr;
    if (const auto* nm = std::get_if<ast::Name>(&x.node)) return nm->name;
    if (const auto* l = std::get_if<ast::ListLit>(&x.node)) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : l->items) arr.push_back(self(item, self));
      return arr;
    }
    if (const auto* u = std::get_if<ast::Unary>(&x.node); u && u->op == "-" &&
                                                          std::holds_alternative<ast::NumberLit>(u->operand->node)) {
      nlohmann::json v = self(*u->operand, self);
      return v.is_number_integer() ? nlohmann::json(-v.get<long long>()) : nlohmann::json(-v.get<double>());
    }
    if (diags) diags->error(x.range, "a rewriter setting must be a number, a string, true/false, none, a word or a list");
    return nullptr;
  };
  for (const auto& p : block.props) {
    if (holds_credential(p, diags)) continue;
    if (p.block) out[p.key.name] = settings_json(*p.block, diags);
    else if (p.value) out[p.key.name] = literal(*p.value, literal);
  }
  out.erase("price");  // what a call costs is not part of the request
  return out;
}

int index_factor_of(const Spec& spec, const std::string& field) {
  for (const auto& f : spec.seed_fields)
    if (f.name == field) return f.index_factor;
  return -1;
}

}  // namespace

std::unique_ptr<Compilation> compile_for_rewrite(const std::filesystem::path& spec_path, const CheckOptions& options,
                                                 std::vector<std::string>& missing_locks) {
  auto c = std::make_unique<Compilation>();
  load_merged(spec_path, *c);
  if (c->modules.empty() || !c->ok()) return c;
  Diagnostics checked;
  c->spec = check(c->modules, options, c->sources, checked, c->merged.data_roots);
  for (const Diagnostic& d : checked.all()) {
    bool missing_text = false;
    for (const auto& m : c->modules) {
      for (const auto& decl : m.decls) {
        const auto* vd = std::get_if<ast::VariantDecl>(&decl.node);
        if (!vd) continue;
        bool at_variant = same_range(d.range, vd->field.range);
        for (const auto& lock : vd->locks) {
          if (!same_range(d.range, lock.source.range)) continue;
          at_variant = true;
          // A lock file not written yet: the texts it would hold are what is missing.
          if (d.message.rfind("cannot read data file", 0) == 0 &&
              !std::filesystem::exists(c->spec.data_path(lock.source.range, lock.source.path.value))) {
            missing_text = true;
            if (std::find(missing_locks.begin(), missing_locks.end(), lock.source.path.value) == missing_locks.end())
              missing_locks.push_back(lock.source.path.value);
          }
        }
        if (at_variant && (d.message.find(" has no text for seed '") != std::string::npos ||
                           d.message.find("has no texts yet") != std::string::npos))
          missing_text = true;
      }
    }
    if (!missing_text) copy_diagnostic(d, c->diags);
  }
  return c;
}

ModelCall rewrite_call(const Spec& spec, const Variant& v, const std::string& instruction, const std::string& seed_text) {
  ModelCall call;
  const ast::RewriterSpec& rw = *v.rewriter;
  if (auto p = spec.providers.find(rw.preset.name); p != spec.providers.end()) address_to(call, p->second);
  call.model = rw.model.value;
  call.system = std::make_shared<const std::string>(instruction);
  call.user = seed_text;
  if (rw.settings) call.params = settings_json(*rw.settings, nullptr);
  call.hash = sha256_hex(canonical_request(call).dump());
  return call;
}

std::vector<RewriteRequest> build_rewrite_requests(const Spec& spec, Diagnostics& diags) {
  std::vector<RewriteRequest> out;
  for (std::size_t vi = 0; vi < spec.variants.size(); ++vi) {
    const Variant& v = spec.variants[vi];
    const int index_factor = index_factor_of(spec, v.field);
    std::vector<int> instruction_by;
    for (int f : v.by)
      if (f != index_factor) instruction_by.push_back(f);
    if (v.rewriter) {
      if (!spec.providers.count(v.rewriter->preset.name)) continue;  // reported by check
      if (v.rewriter->settings) settings_json(*v.rewriter->settings, &diags);
    }
    std::size_t missing = 0, seeds_without_text = 0;
    std::set<std::string> cells_without_instruction;
    for (const auto& seed : spec.seeds) {
      for (const auto& cell : cells_of(spec, v.by)) {
        const std::string key = cell_key(spec, v.by, cell);
        if (v.texts.count({seed.id, key})) continue;
        ++missing;
        if (!v.rewriter) continue;
        // The instruction of the cell, in the language of the text being rewritten.
        const std::string icell = cell_key(spec, instruction_by, cell);
        std::string instruction;
        if (auto it = v.instructions.find(icell); it != v.instructions.end() && !it->second.empty()) {
          const auto& per_level = it->second;
          if (per_level.size() == 1) instruction = per_level[0];
          else if (index_factor >= 0 && static_cast<std::size_t>(cell[index_factor]) < per_level.size())
            instruction = per_level[static_cast<std::size_t>(cell[index_factor])];
        }
        if (instruction.empty()) {
          if (cells_without_instruction.insert(icell).second)
            diags.error(v.range, fmt::format("variant '{}' has no rewrite instruction for cell {}{}", v.field, key,
                                             instruction_by.empty() ? "" : " (add it under 'instructions')"));
          continue;
        }
        const std::string field = index_factor >= 0
                                      ? v.field + "." + spec.factors[index_factor].levels[cell[index_factor]].name.name
                                      : v.field;
        auto text = seed.fields.find(field);
        if (text == seed.fields.end() || text->second.empty()) {
          if (++seeds_without_text <= 5)
            diags.error(seed.range, fmt::format("seed '{}' has no '{}' to rewrite for cell {}", seed.id, field, key));
          continue;
        }
        out.push_back(RewriteRequest{vi, seed.id, cell, key, rewrite_call(spec, v, instruction, text->second)});
      }
    }
    if (seeds_without_text > 5) diags.note(fmt::format("... and {} more", seeds_without_text - 5));
    if (missing > 0 && !v.rewriter) {
      diags.error(v.range, fmt::format("variant '{}' has {} seed and cell combination{} without a text and no rewriter "
                                       "to write them; add 'rewriter PRESET(\"model\")'",
                                       v.field, missing, missing == 1 ? "" : "s"));
    }
  }
  return out;
}

nlohmann::ordered_json lock_record(const Spec& spec, const RewriteRequest& r, const std::string& text) {
  const Variant& v = spec.variants[r.variant];
  nlohmann::ordered_json j;
  j["seed"] = r.seed;
  bool clash = false;
  for (int f : v.by) {
    const Factor& factor = spec.factors[static_cast<std::size_t>(f)];
    j[factor.name] = factor.levels[static_cast<std::size_t>(r.levels[static_cast<std::size_t>(f)])].name.name;
    clash = clash || factor.name == "hash" || factor.name == "model";
  }
  j["text"] = text;
  j[clash ? "rewrite.hash" : "hash"] = r.call.hash;
  j[clash ? "rewrite.model" : "model"] = r.call.model;
  return j;
}

}  // namespace mirac
