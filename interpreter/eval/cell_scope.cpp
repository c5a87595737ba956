#include "interpreter/eval/cell_scope.hpp"

namespace mirac {

CellScope::CellScope(const Spec& spec, const Seed& seed, const std::vector<int>& levels)
    : spec_(spec), seed_(seed), levels_(levels) {
  auto it = spec.checklists.find(seed.id);
  if (it != spec.checklists.end()) checklist_ = &it->second;
}

std::optional<Value> CellScope::name(const std::string& name) const {
  int f = spec_.factor_index(name);
  if (f >= 0) return Value::of_level(f, levels_[f], spec_.factors[f].levels[levels_[f]].name.name);
  if (name == "seed") return Value::object("seed");
  if (name == "checklist") return checklist_ ? Value::object("checklist", checklist_) : Value::na();
  if (spec_.keyed_text(name)) {
    Value text = Value::object("text");
    text.text = name;  // which keyed text, for its `.text`
    return text;
  }
  for (const auto& factor : spec_.factors)
    if (factor.level_index(name) >= 0) return Value::of(name);
  auto raw = seed_.raw.find(name);
  if (raw != seed_.raw.end()) return Value::from_json(*raw);
  return std::nullopt;
}

std::optional<Value> CellScope::field(const Value& base, const std::string& field) const {
  if (base.kind == Value::Kind::level) {
    const auto& level = spec_.factors[base.factor].levels[base.level];
    if (field == "label") return Value::of(level.label ? level.label->value : level.name.name);
    if (field == "name") return Value::of(level.name.name);
    if (field == "text") {
      const TextTable* t = spec_.text_for(base.factor);
      if (!t) return std::nullopt;
      int index = t->index_factor >= 0 ? levels_[t->index_factor] : 0;
      const auto& expr = t->texts[base.level][index];
      if (!expr) return Value::na();
      return evaluate(*expr, *this);
    }
    return std::nullopt;
  }
  if (base.kind == Value::Kind::object && base.object_kind == "text") {
    const TextTable* t = spec_.keyed_text(base.text);
    if (!t || field != "text") return std::nullopt;
    std::size_t cell = 0;
    for (int f : t->by) cell = cell * spec_.factors[f].levels.size() + static_cast<std::size_t>(levels_[f]);
    int index = t->index_factor >= 0 ? levels_[t->index_factor] : 0;
    const auto& expr = t->texts[cell][index];
    if (!expr) return Value::na();
    return evaluate(*expr, *this);
  }
  if (base.kind == Value::Kind::object && base.object_kind == "seed") {
    if (field == "id") return Value::of(seed_.id);
    for (const auto& info : spec_.seed_fields) {
      if (info.name != field) continue;
      if (const Variant* v = spec_.variant_for(field)) {
        auto it = v->texts.find({seed_.id, cell_key(spec_, v->by, levels_)});
        if (it != v->texts.end()) return Value::of(it->second);
      }
      std::string key = info.index_factor >= 0
                            ? field + "." + spec_.factors[info.index_factor].levels[levels_[info.index_factor]].name.name
                            : field;
      auto it = seed_.fields.find(key);
      return it == seed_.fields.end() ? Value::na() : Value::of(it->second);
    }
    return std::nullopt;
  }
  return Scope::field(base, field);
}

std::vector<std::string> CellScope::names() const {
  std::vector<std::string> out = {"seed", "checklist"};
  for (const auto& f : spec_.factors) out.push_back(f.name);
  for (const auto& t : spec_.texts)
    if (t.factor < 0) out.push_back(t.name);
  return out;
}

std::string CellScope::missing_field(const Value& base, const std::string& field) const {
  if (base.kind == Value::Kind::level && field == "text" && !spec_.text_for(base.factor)) {
    const std::string& f = spec_.factors[base.factor].name;
    return "factor '" + f + "' has no texts; add a 'text " + f + " { ... }' declaration";
  }
  return "";
}

std::vector<std::string> CellScope::field_names(const Value& base) const {
  if (base.kind == Value::Kind::level) return {"text", "label", "name"};
  if (base.kind == Value::Kind::object && base.object_kind == "text") return {"text"};
  if (base.kind == Value::Kind::object && base.object_kind == "seed") {
    std::vector<std::string> out = {"id"};
    for (const auto& f : spec_.seed_fields) out.push_back(f.name);
    return out;
  }
  return Scope::field_names(base);
}

// Key of a cell of the factors `by`, e.g. "zh.high.formal".
std::string cell_key(const Spec& spec, const std::vector<int>& by, const std::vector<int>& levels_by_factor) {
  std::string key;
  for (int f : by) {
    if (!key.empty()) key += '.';
    key += spec.factors[f].levels[levels_by_factor[f]].name.name;
  }
  return key;
}

// Every combination of levels of `by`, as per-factor level vectors (size = all factors).
std::vector<std::vector<int>> cells_of(const Spec& spec, const std::vector<int>& by) {
  std::vector<std::vector<int>> out{std::vector<int>(spec.factors.size(), 0)};
  for (int f : by) {
    std::vector<std::vector<int>> next;
    for (const auto& cell : out) {
      for (std::size_t l = 0; l < spec.factors[f].levels.size(); ++l) {
        auto c = cell;
        c[f] = static_cast<int>(l);
        next.push_back(std::move(c));
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace mirac
