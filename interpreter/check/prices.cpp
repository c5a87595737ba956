// prices.cpp: what calls cost. A price block (`price { input 2.5 output 15 }`, USD
// per million tokens), a model's or judge's own price, and the providers' `prices` tables,
// each problem reported at its place.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "interpreter/check/context.hpp"
#include "interpreter/merge/stdlib_modules.hpp"

namespace mirac {

namespace {

// A price block, `{ input 2.5 output 15 }` in USD per million tokens; nullopt (with every
// problem reported) unless it has both parts, each a finite number of at least 0.
// `owner` names what the price is for in messages, `where` is the caret for a missing part.
// A part given twice is reported unless the block went through block_json, which did.
std::optional<Price> read_price(const ast::Block& block, const std::string& owner, SourceRange where,
                                bool report_twice, Diagnostics& diags) {
  std::optional<double> parts[2];
  const char* names[2] = {"input", "output"};
  bool ok = true;
  for (const auto& p : block.props) {
    int k = p.key.name == "input" ? 0 : p.key.name == "output" ? 1 : -1;
    if (k < 0) {
      diags.error(p.key.range, with_suggestion(fmt::format("unknown price part '{}'; a price has 'input' and 'output' "
                                                           "(USD per million tokens)", p.key.name),
                                               p.key.name, {"input", "output"}));
      ok = false;
      continue;
    }
    if (parts[k]) {
      if (report_twice) diags.error(p.key.range, fmt::format("'{}' is given twice in the price of {}", p.key.name, owner));
      ok = false;
      continue;
    }
    const ast::Expr* v = p.value ? &*p.value : nullptr;
    bool negative = false;
    if (const auto* u = v ? std::get_if<ast::Unary>(&v->node) : nullptr; u && u->op == "-") {
      negative = true;
      v = &*u->operand;
    }
    const auto* n = v ? std::get_if<ast::NumberLit>(&v->node) : nullptr;
    SourceRange at = p.value ? p.value->range : p.block ? p.block->range : p.key.range;
    if (!n) {
      diags.error(at, fmt::format("'{}' of a price must be a number: USD per million {} tokens", p.key.name, names[k]));
      ok = false;
    } else if (negative && n->value != 0) {
      diags.error(at, fmt::format("'{}' of a price cannot be negative", p.key.name));
      ok = false;
    } else if (!std::isfinite(n->value)) {
      diags.error(at, fmt::format("'{}' of a price must be a finite number", p.key.name));
      ok = false;
    }
    parts[k] = n ? n->value : 0.0;
  }
  if (!parts[0] && !parts[1]) {
    diags.error(where, fmt::format("the price of {} has no 'input' and no 'output' (USD per million tokens)", owner));
    ok = false;
  }
  for (int k = 0; k < 2 && (parts[0] || parts[1]); ++k) {
    if (parts[k]) continue;
    diags.error(where, fmt::format("the price of {} has no '{}' (USD per million {} tokens)", owner, names[k], names[k]));
    ok = false;
  }
  if (!ok) return std::nullopt;
  return Price{*parts[0], *parts[1], ""};
}

}  // namespace

// The `price` setting of a model's or judge's block, checked. `found` says whether there
// was one at all (a malformed price is reported, and the table price is not used instead).
std::optional<Price> own_price(const std::optional<ast::Block>& settings, const std::string& owner, bool& found,
                               Diagnostics& diags) {
  found = false;
  if (!settings) return std::nullopt;
  for (const auto& p : settings->props) {
    if (p.key.name != "price") continue;
    found = true;
    if (!p.block) {
      diags.error(p.value ? p.value->range : p.key.range,
                  "'price' must be a block: price { input 2.5 output 15 } (USD per million tokens)");
      return std::nullopt;
    }
    auto price = read_price(*p.block, owner, p.key.range, false, diags);
    if (price) price->from = owner;
    return price;
  }
  return std::nullopt;
}

// Fills each provider's `prices` from every `prices NAME { ... }`. Tables in the spec's own
// file win over those of its other modules, which win over the stdlib's, so a spec can
// correct or extend a list price without copying the stdlib; two entries for one model
// string at the same level are an error, whatever the order the modules were read in.
void check_prices(CheckContext& cx) {
  Spec& spec = cx.spec;
  Diagnostics& diags = cx.diags;
  const SourceManager& sources = cx.sources;
  const FileId main_file = cx.main_file;
  std::vector<std::string> provider_names;
  for (const auto& [name, provider] : spec.providers) provider_names.push_back(name);
  auto level_of = [&](FileId f) {
    if (f == main_file) return 2;
    for (const auto& m : embedded_stdlib())
      if (sources.path(f) == m.path) return 0;
    return 1;
  };
  struct Seen {
    int level;
    SourceRange at;
  };
  std::map<std::pair<std::string, std::string>, Seen> seen;
  for (const ast::Decl* d : cx.decls) {
    const auto* t = std::get_if<ast::PricesDecl>(&d->node);
    if (!t) continue;
    auto pv = spec.providers.find(t->provider.name);
    if (pv == spec.providers.end()) {
      diags.error(t->provider.range,
                  with_suggestion(fmt::format("unknown provider '{}'", t->provider.name), t->provider.name, provider_names));
      continue;
    }
    int level = level_of(d->file);
    for (const auto& e : t->entries) {
      std::string owner = fmt::format("{}(\"{}\")", t->provider.name, e.model.value);
      if (e.model.value.empty()) {
        diags.error(e.model_range, "a price table entry needs a model string");
        continue;
      }
      auto price = read_price(e.price, owner, e.model_range, true, diags);
      auto key = std::make_pair(t->provider.name, e.model.value);
      if (auto it = seen.find(key); it != seen.end()) {
        if (it->second.level == level) {
          diags.error(e.model_range, fmt::format("the price of {} is given twice", owner));
          diags.note(fmt::format("first given at {}:{}", sources.path(it->second.at.file), it->second.at.begin.line));
          continue;
        }
        if (it->second.level > level) continue;
      }
      seen[key] = {level, e.model_range};
      if (!price) {
        pv->second.prices.erase(e.model.value);  // reported; an older table's price must not stand in for it
        continue;
      }
      price->from = fmt::format("prices {} in {}", t->provider.name, sources.path(d->file));
      pv->second.prices[e.model.value] = *price;
    }
  }
}

std::optional<Price> resolve_price(const CheckContext& cx, const std::string& owner, const std::string& provider,
                                   const std::string& model, const std::optional<ast::Block>& settings) {
  bool found = false;
  auto price = own_price(settings, owner, found, cx.diags);
  if (found) return price;
  auto pv = cx.spec.providers.find(provider);
  if (pv == cx.spec.providers.end()) return std::nullopt;
  auto it = pv->second.prices.find(model);
  if (it == pv->second.prices.end()) return std::nullopt;
  return it->second;
}

// The run prices calls by model string, as the providers bill them; one model string priced
// twice over (two providers, or an override next to a list price) cannot be honoured
// exactly, so the run uses the higher price and says so here.
void warn_prices_by_model_string(CheckContext& cx) {
  std::map<std::string, std::pair<Price, std::string>> priced;
  auto same_string = [&](const std::string& who, const std::string& model, const std::optional<Price>& p,
                         SourceRange at) {
    if (!p) return;
    auto [it, fresh] = priced.try_emplace(model, *p, who);
    const Price& first = it->second.first;
    if (fresh || (first.input == p->input && first.output == p->output)) return;
    cx.diags.warning(at, fmt::format("'{}' costs input {} output {} here but input {} output {} for {}; calls are "
                                     "priced by model string, so the run counts the higher of each part",
                                     model, p->input, p->output, first.input, first.output, it->second.second));
  };
  for (const auto& m : cx.spec.models) same_string("model " + m.name, m.model, m.price, m.range);
  for (const auto& j : cx.spec.judges) same_string("judge " + j.name, j.model, j.price, j.range);
}

}  // namespace mirac
