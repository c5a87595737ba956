// models.cpp: `defaults { settings }` and `model NAME = PROVIDER("model string") { settings }`:
// the answering models, their request settings, groups, price and batch.
#include <fmt/format.h>

#include "interpreter/check/context.hpp"

namespace mirac {

namespace {

// `groups { family "GPT" }`: not sent, read by analyses like a factor, so a group may not
// take the name of a factor or of a variable a score row has.
void take_groups(CheckContext& cx, Model& model, const ast::ModelDecl& m) {
  if (!model.params.contains("groups")) return;
  const nlohmann::json groups = model.params["groups"];
  if (groups.is_object())
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      const std::string& name = it.key();
      bool factor = cx.spec.factor_index(name) >= 0;
      if (factor || name == "model" || name == "arm" || name == "seed" || name == "cell")
        cx.diags.error(m.name.range, fmt::format("model '{}': group '{}' would hide the {} of that name", m.name.name,
                                                 name, factor ? "factor" : "variable"));
      else if (it->is_string()) model.groups[name] = it->get<std::string>();
      else cx.diags.error(m.name.range, fmt::format("model '{}': group '{}' must be a string", m.name.name, name));
    }
  if (!groups.is_object())
    cx.diags.error(m.name.range, fmt::format("model '{}': groups is a block: groups {{ family \"GPT\" }}", m.name.name));
  model.params.erase("groups");
}

// A grouping one model declares, every model declares: a model left out would fall in no group.
void check_groups_complete(CheckContext& cx) {
  for (const auto& m : cx.spec.models)
    for (const auto& [group, value] : m.groups)
      for (const auto& other : cx.spec.models)
        if (!other.groups.count(group))
          cx.diags.error(other.range, fmt::format("model '{}' has no group '{}' (model '{}' has: groups {{ {} \"{}\" }})",
                                                  other.name, group, m.name, group, value));
}

}  // namespace

void check_defaults(CheckContext& cx) {
  for (auto [d, def] : all_of<ast::DefaultsDecl>(cx.decls)) {
    // One price for every model is never right: prices differ by model string.
    for (const auto& p : def->settings.props)
      if (p.key.name == "price")
        cx.diags.error(p.key.range,
                       "a price belongs to a model or judge, or to a provider's 'prices' table, not to defaults");
    check_generation_settings(def->settings, "defaults", cx.diags);
    cx.defaults.update(block_json(def->settings, cx.diags));
  }
  cx.defaults.erase("price");
}

void check_models(CheckContext& cx) {
  NameTable model_names("model", cx.diags);
  for (auto [d, m] : all_of<ast::ModelDecl>(cx.decls)) {
    if (!model_names.add(m->name)) continue;
    check_preset(cx, m->preset);
    const std::string who = "model " + m->name.name;
    Model model{m->name.name, m->preset.name, m->model.value, cx.defaults, std::nullopt, m->name.range, {}};
    auto provider = cx.spec.providers.find(m->preset.name);
    const Provider* on = provider == cx.spec.providers.end() ? nullptr : &provider->second;
    if (m->settings) {
      check_generation_settings(*m->settings, who, cx.diags, on);
      model.params.update(block_json(*m->settings, cx.diags));
    }
    check_default_temperature(cx, *m);
    // What a call costs is not part of the request (nor of its hash), nor how the
    // analyses group models.
    model.params.erase("price");
    take_groups(cx, model, *m);
    model.price = resolve_price(cx, who, m->preset.name, m->model.value, m->settings);
    model.batch = take_batch(cx, model.params, m->settings, m->name.range, who);
    check_batch_api(cx, model.batch, model.provider, m->name.range, who);
    cx.spec.models.push_back(std::move(model));
  }
  check_groups_complete(cx);
}

}  // namespace mirac
