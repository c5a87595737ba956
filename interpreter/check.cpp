// check.cpp: the declarations that need no data: header, factors, design, providers,
// models, arms, judges, rubrics. Data binding is in seeds.cpp and texts.cpp, the analysis
// blocks in check_analysis.cpp, prices in check_prices.cpp.
#include "interpreter/check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <string_view>
#include <fmt/ranges.h>

#include "interpreter/hash.hpp"
#include "runtime/providers/secrets.hpp"

namespace mirac {

namespace {

template <typename T>
std::vector<std::pair<const ast::Decl*, const T*>> all_of(const std::vector<const ast::Decl*>& decls) {
  std::vector<std::pair<const ast::Decl*, const T*>> out;
  for (const auto* d : decls)
    if (const auto* n = std::get_if<T>(&d->node)) out.emplace_back(d, n);
  return out;
}

// Reports a second declaration of the same name in one namespace.
class NameTable {
 public:
  NameTable(std::string what, Diagnostics& diags) : what_(std::move(what)), diags_(diags) {}
  bool add(const ast::Ident& id) {
    auto [it, fresh] = seen_.emplace(id.name, id.range);
    if (!fresh) {
      diags_.error(id.range, fmt::format("{} '{}' is already defined", what_, id.name));
      diags_.note(fmt::format("first defined at line {}", it->second.begin.line));
    }
    return fresh;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : seen_) out.push_back(k);
    return out;
  }
  bool has(const std::string& n) const { return seen_.count(n) > 0; }

 private:
  std::string what_;
  Diagnostics& diags_;
  std::map<std::string, SourceRange> seen_;
};

// A string value anywhere in `e` (lists included) shaped like a key; null when none is.
const ast::Expr* key_shaped_value(const ast::Expr& e) {
  if (const auto* s = std::get_if<ast::StringLit>(&e.node)) return looks_like_key(s->value) ? &e : nullptr;
  if (const auto* l = std::get_if<ast::ListLit>(&e.node))
    for (const auto& item : l->items)
      if (const ast::Expr* found = key_shaped_value(item)) return found;
  return nullptr;
}

// A settings block as JSON: numbers, strings, booleans, lists and nested blocks.
nlohmann::json block_json(const ast::Block& block, Diagnostics& diags) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& p : block.props) {
    if (out.contains(p.key.name)) diags.error(p.key.range, fmt::format("setting '{}' is given twice", p.key.name));
    if (holds_credential(p, &diags)) continue;
    if (p.block) {
      out[p.key.name] = block_json(*p.block, diags);
      continue;
    }
    const ast::Expr& e = *p.value;
    auto literal = [&](const ast::Expr& x, auto&& self) -> nlohmann::json {
      if (const auto* n = std::get_if<ast::NumberLit>(&x.node)) {
        if (n->text.find_first_of(".eE") == std::string::npos) return std::stoll(n->text);
        return n->value;
      }
      if (const auto* s = std::get_if<ast::StringLit>(&x.node)) return s->value;
      if (const auto* b = std::get_if<ast::BoolLit>(&x.node)) return b->value;
      if (std::holds_alternative<ast::NoneLit>(x.node)) return nullptr;
      if (const auto* nm = std::get_if<ast::Name>(&x.node)) return nm->name;  // a word: `rubric mira`
      if (const auto* l = std::get_if<ast::ListLit>(&x.node)) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& item : l->items) arr.push_back(self(item, self));
        return arr;
      }
      if (const auto* c = std::get_if<ast::Call>(&x.node)) {
        // file("x") and the like keep their call form for the caller to interpret.
        nlohmann::json call = {{"call", c->callee.name}, {"args", nlohmann::json::array()}};
        for (const auto& a : c->args) call["args"].push_back(self(a, self));
        return call;
      }
      if (const auto* u = std::get_if<ast::Unary>(&x.node)) {
        if (u->op == "-" && std::holds_alternative<ast::NumberLit>(u->operand->node)) {
          nlohmann::json v = self(*u->operand, self);
          return v.is_number_integer() ? nlohmann::json(-v.get<long long>()) : nlohmann::json(-v.get<double>());
        }
      }
      diags.error(x.range, "a setting must be a number, a string, true/false, none, a word, a list or a block");
      return nullptr;
    };
    out[p.key.name] = literal(e, literal);
  }
  return out;
}

// A spec without a prompt plans no request: `check` would say ok and `run` send nothing.
// An error that lists the missing parts, so an empty or a header-only file is not taken
// for a finished audit. (The header is optional: the spec is then named after its file.)
void report_nothing_to_send(const Spec& spec, const std::vector<const ast::Decl*>& decls, SourceRange where,
                            Diagnostics& diags) {
  std::vector<std::string> missing;
  bool has_seeds = std::any_of(decls.begin(), decls.end(),
                               [](const ast::Decl* d) { return std::holds_alternative<ast::SeedsDecl>(d->node); });
  if (!has_seeds) missing.emplace_back("'seeds'");
  missing.emplace_back("a 'prompt { id ... text ... }'");
  if (spec.models.empty()) missing.emplace_back("a 'model'");
  diags.error(where, fmt::format("the spec declares no prompt, so there is nothing to send; it lacks {}",
                                 fmt::join(missing, ", ")));
}

bool is_variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

const std::set<std::string> kProtocols = {"openai_chat", "anthropic_messages"};

}  // namespace

bool holds_credential(const ast::Property& p, Diagnostics* diags) {
  if (is_credential_name(p.key.name)) {
    if (diags)
      diags->error(p.key.range, fmt::format("'{}' would hold a credential, and a spec cannot hold one; keys come from "
                                            "the environment (see key_env)", p.key.name));
    return true;
  }
  const ast::Expr* value = p.value ? key_shaped_value(*p.value) : nullptr;
  if (!value) return false;
  if (diags && p.key.name == "key_env")
    diags->error(value->range, "key_env must name the environment variable that holds the key (like OPENAI_API_KEY); "
                               "this value looks like the key itself: put it in the environment instead");
  else if (diags)
    diags->error(value->range, fmt::format("the value of '{}' looks like an API key, and a spec cannot hold one; keys "
                                           "come from the environment (see key_env)", p.key.name));
  return true;
}

Spec check(const std::vector<ast::Module>& modules, const CheckOptions& options, SourceManager& sources,
           Diagnostics& diags, const std::map<FileId, std::filesystem::path>& data_roots) {
  Spec spec;
  spec.data_roots = data_roots;
  std::vector<const ast::Decl*> decls;
  for (const auto& m : modules)
    for (const auto& d : m.decls) decls.push_back(&d);
  if (modules.empty()) return spec;
  FileId main_file = modules.back().file;
  spec.spec_path = sources.path(main_file);

  // --- header and data root ---
  std::optional<std::string> data_setting;
  std::filesystem::path data_setting_dir;  // `data` is relative to the file that writes it (a base's, in a variant)
  const ast::Property* scores_setting = nullptr;
  for (auto [d, a] : all_of<ast::AuditDecl>(decls)) {
    if (d->file != main_file) {
      diags.error(a->name.range, "an 'audit' header belongs in the main spec, not in a used module");
      continue;
    }
    if (!spec.name.empty()) {
      diags.error(a->name.range, "the spec has a second 'audit' header");
      continue;
    }
    spec.name = a->name.name;
    for (const auto& p : a->settings.props) {
      const auto* s = p.value ? std::get_if<ast::StringLit>(&p.value->node) : nullptr;
      if (p.key.name == "title" || p.key.name == "data" || p.key.name == "description" || p.key.name == "version") {
        if (!s) {
          diags.error(p.key.range, fmt::format("'{}' must be a string", p.key.name));
          continue;
        }
        if (p.key.name == "title") spec.title = s->value;
        if (p.key.name == "data") {
          data_setting = s->value;
          data_setting_dir = std::filesystem::path(sources.path(p.key.range.file)).parent_path();
        }
      } else if (p.key.name == "scores") {
        scores_setting = &p;  // checked with the judges and panels
      } else {
        diags.error(p.key.range, with_suggestion(fmt::format("unknown audit setting '{}'", p.key.name), p.key.name,
                                                 {"title", "data", "description", "version", "scores"}));
      }
    }
  }
  if (spec.name.empty()) {
    spec.name = std::filesystem::path(spec.spec_path).stem().string();
  }
  // Without a `data` setting, data is found next to the spec; for an extending spec, next to
  // its first base: the last file read without a root of its own (modules come before the
  // specs that use them, each base before the spec that extends it).
  std::filesystem::path spec_dir = spec.spec_path.parent_path();
  for (auto m = modules.rbegin(); m != modules.rend(); ++m)
    if (!data_roots.count(m->file)) {
      spec_dir = std::filesystem::path(sources.path(m->file)).parent_path();
      break;
    }
  if (options.data_root) spec.data_root = *options.data_root;
  else if (options.env_data_root) spec.data_root = *options.env_data_root;
  else if (data_setting) spec.data_root = data_setting_dir / *data_setting;
  else spec.data_root = spec_dir;

  // --- factors and design ---
  NameTable factor_names("factor", diags);
  for (auto [d, f] : all_of<ast::FactorDecl>(decls)) {
    if (!factor_names.add(f->name)) continue;
    Factor factor{f->name.name, {}, f->name.range};
    std::set<std::string> seen;
    for (const auto& l : f->levels) {
      if (!seen.insert(l.name.name).second) {
        diags.error(l.name.range, fmt::format("level '{}' appears twice in factor '{}'", l.name.name, f->name.name));
        continue;
      }
      factor.levels.push_back(l);
    }
    if (factor.levels.empty()) diags.error(f->name.range, fmt::format("factor '{}' has no levels", f->name.name));
    spec.factors.push_back(std::move(factor));
  }
  auto designs = all_of<ast::DesignDecl>(decls);
  if (designs.size() > 1) diags.error(designs[1].first->range, "the spec has a second 'design'");
  if (!designs.empty()) {
    std::set<int> used;
    for (const auto& id : designs[0].second->factors) {
      int fi = spec.factor_index(id.name);
      if (fi < 0) {
        diags.error(id.range, with_suggestion(fmt::format("unknown factor '{}'", id.name), id.name, factor_names.names()));
      } else if (!used.insert(fi).second) {
        diags.error(id.range, fmt::format("factor '{}' appears twice in the design", id.name));
      } else {
        spec.design.push_back(fi);
      }
    }
  } else {
    for (std::size_t i = 0; i < spec.factors.size(); ++i) spec.design.push_back(static_cast<int>(i));
  }

  // --- providers, models, defaults, arms, judges ---
  NameTable provider_names("provider", diags);
  for (auto [d, p] : all_of<ast::ProviderDecl>(decls)) {
    if (!provider_names.add(p->name)) continue;
    Provider provider{p->name.name, "openai_chat", "", "", block_json(p->settings, diags), {}, p->name.range};
    auto& s = provider.settings;
    if (s.contains("protocol")) provider.protocol = s["protocol"].is_string() ? s["protocol"].get<std::string>() : "";
    if (!kProtocols.count(provider.protocol)) {
      diags.error(p->name.range, fmt::format("provider '{}' has an unknown protocol '{}'; expected openai_chat or "
                                             "anthropic_messages", p->name.name, provider.protocol));
    }
    if (s.contains("base_url") && s["base_url"].is_string()) {
      provider.base_url = s["base_url"];
    } else if (s.contains("base_url") && s["base_url"].is_array()) {
      for (const auto& u : s["base_url"])
        if (u.is_string() && !u.get<std::string>().empty()) provider.endpoints.push_back(u);
      if (provider.endpoints.empty() || provider.endpoints.size() != s["base_url"].size())
        diags.error(p->name.range, fmt::format("provider '{}': base_url is a URL or a list of URLs, each a non-empty "
                                               "string", p->name.name));
      else provider.base_url = provider.endpoints.front();
    } else {
      diags.error(p->name.range, fmt::format("provider '{}' needs a base_url", p->name.name));
    }
    if (s.contains("key_env") && s["key_env"].is_string()) provider.key_env = s["key_env"];
    if (s.contains("structured_output") && !s["structured_output"].is_boolean())
      diags.error(p->name.range, fmt::format("provider '{}': structured_output is true (the server enforces a JSON "
                                             "schema sent as response_format) or false",
                                             p->name.name));
    if (s.contains("token_limit_field")) {
      const auto& f = s["token_limit_field"];
      bool anthropic = provider.protocol == "anthropic_messages";
      bool valid = f.is_string() && (f == "max_tokens" || (!anthropic && f == "max_completion_tokens"));
      if (!valid)
        diags.error(p->name.range, anthropic ? fmt::format("provider '{}': the Messages API reads the token limit from "
                                                           "max_tokens only; leave token_limit_field out", p->name.name)
                                             : fmt::format("provider '{}': token_limit_field is \"max_tokens\" (llama.cpp, "
                                                           "Ollama, vLLM and most compatible servers) or "
                                                           "\"max_completion_tokens\" (OpenAI)", p->name.name));
    }
    if (!provider.key_env.empty() && !is_variable_name(provider.key_env)) {
      // Most likely the key itself, pasted here by mistake: say so without showing it.
      diags.error(p->name.range, fmt::format("provider '{}': key_env must name an environment variable (letters, "
                                             "digits and _, like OPENAI_API_KEY); its value is not one and may be a "
                                             "key, so it is not shown", p->name.name));
      provider.key_env.clear();
    }
    // The run would fall back to the default for any other value: say so instead.
    for (const char* key : {"connect_timeout", "first_byte_timeout", "timeout", "max_retry_after", "max_pause",
                            "max_attempts", "batch_poll", "batch_size"}) {
      const bool whole = std::string_view(key) == "max_attempts" || std::string_view(key) == "batch_size";
      if (s.contains(key) && !(s[key].is_number() && s[key].get<double>() > 0 && (!whole || s[key].is_number_integer())))
        diags.error(p->name.range, fmt::format("provider '{}': {} must be a positive {}", p->name.name, key,
                                               whole ? "whole number" : "number of seconds"));
    }
    // The share of the list price a batch request costs: OpenAI's and Anthropic's is 0.5.
    if (s.contains("batch_price") &&
        !(s["batch_price"].is_number() && s["batch_price"].get<double>() > 0 && s["batch_price"].get<double>() <= 1))
      diags.error(p->name.range, fmt::format("provider '{}': batch_price is the share of the list price a batch "
                                             "request costs, a number above 0 and at most 1 (0.5 for half price)",
                                             p->name.name));
    spec.providers[provider.name] = std::move(provider);
  }
  resolve_price_tables(spec, decls, main_file, sources, provider_names.names(), diags);
  nlohmann::json defaults = nlohmann::json::object();
  for (auto [d, def] : all_of<ast::DefaultsDecl>(decls)) {
    // One price for every model is never right: prices differ by model string.
    for (const auto& p : def->settings.props)
      if (p.key.name == "price")
        diags.error(p.key.range, "a price belongs to a model or judge, or to a provider's 'prices' table, not to defaults");
    defaults.update(block_json(def->settings, diags));
  }
  defaults.erase("price");
  // A model's or judge's own price wins over its provider's table.
  auto resolve_price = [&](const std::string& owner, const std::string& provider, const std::string& model,
                           const std::optional<ast::Block>& settings) -> std::optional<Price> {
    bool found = false;
    auto price = own_price(settings, owner, found, diags);
    if (found) return price;
    auto pv = spec.providers.find(provider);
    if (pv == spec.providers.end()) return std::nullopt;
    auto it = pv->second.prices.find(model);
    if (it == pv->second.prices.end()) return std::nullopt;
    return it->second;
  };
  auto check_preset = [&](const ast::Ident& preset) {
    if (spec.providers.count(preset.name)) return true;
    diags.error(preset.range,
                with_suggestion(fmt::format("unknown provider '{}'", preset.name), preset.name, provider_names.names()) +
                    (provider_names.names().empty() ? " (add 'use stdlib.providers')" : ""));
    return false;
  };
  // `batch true|false`: how the requests travel, not what they ask, so not a parameter.
  auto take_batch = [&](nlohmann::json& params, const std::optional<ast::Block>& settings, SourceRange fallback,
                        const std::string& who) {
    if (!params.contains("batch")) return false;
    const nlohmann::json value = params["batch"];
    params.erase("batch");
    if (value.is_boolean()) return value.get<bool>();
    SourceRange at = fallback;
    if (settings)
      for (const auto& p : settings->props)
        if (p.key.name == "batch") at = p.value ? p.value->range : p.key.range;
    diags.error(at, fmt::format("{}: batch is true or false", who));
    return false;
  };
  // Only a provider whose batches have a price (`batch_price`) has a batch API to send to.
  auto check_batch_api = [&](bool batch, const std::string& provider, SourceRange at, const std::string& who) {
    auto p = spec.providers.find(provider);
    if (!batch || p == spec.providers.end() || p->second.settings.contains("batch_price")) return;
    diags.error(at, fmt::format("{}: provider '{}' has no batch API: give the provider batch_price (the share of the "
                                "list price a batch request costs, 0.5 at OpenAI and Anthropic) if its server speaks "
                                "OpenAI's or Anthropic's batch protocol, or leave batch out",
                                who, provider));
  };
  NameTable model_names("model", diags);
  for (auto [d, m] : all_of<ast::ModelDecl>(decls)) {
    if (!model_names.add(m->name)) continue;
    check_preset(m->preset);
    Model model{m->name.name, m->preset.name, m->model.value, defaults, std::nullopt, m->name.range, {}};
    if (m->settings) model.params.update(block_json(*m->settings, diags));
    // What a call costs is not part of the request (nor of its hash), nor how the
    // analyses group models.
    model.params.erase("price");
    if (model.params.contains("groups")) {
      const nlohmann::json groups = model.params["groups"];
      if (groups.is_object())
        for (auto it = groups.begin(); it != groups.end(); ++it) {
          const std::string& name = it.key();
          if (spec.factor_index(name) >= 0 || name == "model" || name == "arm" || name == "seed" || name == "cell")
            diags.error(m->name.range, fmt::format("model '{}': group '{}' would hide the {} of that name", m->name.name,
                                                   name, spec.factor_index(name) >= 0 ? "factor" : "variable"));
          else if (it->is_string()) model.groups[name] = it->get<std::string>();
          else diags.error(m->name.range, fmt::format("model '{}': group '{}' must be a string", m->name.name, name));
        }
      if (!groups.is_object())
        diags.error(m->name.range, fmt::format("model '{}': groups is a block: groups {{ family \"GPT\" }}", m->name.name));
      model.params.erase("groups");
    }
    model.price = resolve_price("model " + m->name.name, m->preset.name, m->model.value, m->settings);
    model.batch = take_batch(model.params, m->settings, m->name.range, "model " + m->name.name);
    check_batch_api(model.batch, model.provider, m->name.range, "model " + m->name.name);
    spec.models.push_back(std::move(model));
  }
  // A grouping one model declares, every model declares: a model left out would fall in no group.
  for (const auto& m : spec.models)
    for (const auto& [group, value] : m.groups)
      for (const auto& other : spec.models)
        if (!other.groups.count(group))
          diags.error(other.range, fmt::format("model '{}' has no group '{}' (model '{}' has: groups {{ {} \"{}\" }})",
                                               other.name, group, m.name, group, value));
  NameTable arm_names("arm", diags);
  for (auto [d, a] : all_of<ast::ArmDecl>(decls)) {
    if (!arm_names.add(a->name)) continue;
    Arm arm{a->name.name, std::nullopt, "none", a->name.range};
    for (const auto& p : a->settings.props) {
      if (p.key.name != "system") {
        diags.error(p.key.range, with_suggestion(fmt::format("unknown arm setting '{}'", p.key.name), p.key.name, {"system"}));
        continue;
      }
      const ast::Expr* v = p.value ? &*p.value : nullptr;
      if (v && std::holds_alternative<ast::NoneLit>(v->node)) continue;
      if (const auto* s = v ? std::get_if<ast::StringLit>(&v->node) : nullptr) {
        arm.system = s->value;
        arm.system_source = "inline";
      } else if (const auto* c = v ? std::get_if<ast::Call>(&v->node) : nullptr;
                 c && c->callee.name == "file" && c->args.size() == 1 &&
                 std::holds_alternative<ast::StringLit>(c->args[0].node)) {
        std::string rel = std::get<ast::StringLit>(c->args[0].node).value;
        std::string why;
        const std::filesystem::path path = spec.data_path(c->args[0].range, rel);
        std::optional<std::string> text = read_regular_file(path, why);
        if (!text) {
          diags.error(c->args[0].range, fmt::format("cannot read system prompt file '{}': {}", path.string(), why));
        } else {
          // Registered as a source, so a byte that is not UTF-8 is shown at its line and
          // column now, not found when the first request is built after others were paid.
          FileId file = sources.add(rel, std::move(*text));
          require_utf8(sources, file, fmt::format("system prompt file '{}'", rel), diags);
          arm.system = sources.text(file);
        }
        arm.system_source = rel;
      } else {
        diags.error(v ? v->range : p.key.range, "'system' must be none, a string, or file(\"path\")");
      }
    }
    spec.arms.push_back(std::move(arm));
  }
  if (spec.arms.empty()) spec.arms.push_back(Arm{"baseline", std::nullopt, "none", {}});

  NameTable rubric_names("rubric", diags);
  for (auto [d, r] : all_of<ast::RubricDecl>(decls))
    if (rubric_names.add(r->name)) spec.rubrics.push_back(*r);
  NameTable judge_names("judge", diags);
  for (auto [d, j] : all_of<ast::JudgeDecl>(decls)) {
    if (!judge_names.add(j->name)) continue;
    check_preset(j->preset);
    Judge judge{j->name.name, j->preset.name, j->model.value, "", nlohmann::json::object(), std::nullopt, j->name.range};
    judge.price = resolve_price("judge " + j->name.name, j->preset.name, j->model.value, j->settings);
    if (j->settings) {
      judge.params = block_json(*j->settings, diags);
      judge.params.erase("price");
      judge.batch = take_batch(judge.params, j->settings, j->name.range, "judge " + j->name.name);
      check_batch_api(judge.batch, judge.provider, j->name.range, "judge " + j->name.name);
      if (judge.params.contains("rubric")) {
        judge.rubric = judge.params["rubric"].is_string() ? judge.params["rubric"].get<std::string>() : "";
        judge.params.erase("rubric");
      }
    }
    if (judge.rubric.empty()) {
      diags.error(j->name.range, fmt::format("judge '{}' needs a rubric (rubric NAME)", j->name.name));
    } else if (!rubric_names.has(judge.rubric)) {
      SourceRange where = j->name.range;
      for (const auto& p : j->settings->props)
        if (p.key.name == "rubric" && p.value) where = p.value->range;
      diags.error(where, with_suggestion(fmt::format("unknown rubric '{}'", judge.rubric), judge.rubric, rubric_names.names()));
    }
    spec.judges.push_back(std::move(judge));
  }
  check_raters(spec, decls, scores_setting, diags);
  // The run prices calls by model string, as the providers bill them; one model string
  // priced twice over (two providers, or an override next to a list price) cannot be
  // honoured exactly, so the run uses the higher price and says so here.
  std::map<std::string, std::pair<Price, std::string>> priced;
  auto same_string = [&](const std::string& who, const std::string& model, const std::optional<Price>& p,
                         SourceRange at) {
    if (!p) return;
    auto [it, fresh] = priced.try_emplace(model, *p, who);
    const Price& first = it->second.first;
    if (fresh || (first.input == p->input && first.output == p->output)) return;
    diags.warning(at, fmt::format("'{}' costs input {} output {} here but input {} output {} for {}; calls are "
                                  "priced by model string, so the run counts the higher of each part",
                                  model, p->input, p->output, first.input, first.output, it->second.second));
  };
  for (const auto& m : spec.models) same_string("model " + m.name, m.model, m.price, m.range);
  for (const auto& j : spec.judges) same_string("judge " + j.name, j.model, j.price, j.range);

  // --- data: seeds, checklists, variants, texts, prompt ---
  bind_seeds(spec, decls, sources, diags);
  bind_texts(spec, decls, sources, diags);

  // --- flags, contrasts, analyses, reports ---
  NameTable flag_names("flag", diags), contrast_names("contrast", diags), analysis_names("analysis", diags),
      report_names("report", diags);
  for (auto [d, f] : all_of<ast::FlagDecl>(decls))
    if (flag_names.add(f->name)) spec.flags.push_back(*f);
  for (auto [d, c] : all_of<ast::ContrastDecl>(decls))
    if (contrast_names.add(c->name)) spec.contrasts.push_back(*c);
  for (auto [d, a] : all_of<ast::AnalysisDecl>(decls))
    if (analysis_names.add(a->name)) spec.analyses.push_back(*a);
  for (auto [d, r] : all_of<ast::ReportDecl>(decls)) {
    if (!report_names.add(r->name)) continue;
    check_report_items(*r, sources, diags);
    spec.reports.push_back(*r);
  }
  expand_ranges(spec, sources, diags);
  check_analysis_blocks(spec, diags);
  check_analysis_files(spec, sources, diags);
  check_criteria(spec, diags);
  const ast::Decl* first_simulate = nullptr;
  for (auto [d, sim] : all_of<ast::SimulateDecl>(decls)) {
    if (first_simulate) {
      diags.error(d->range, "a spec has one 'simulate' block; this is a second");
      diags.note(fmt::format("the first is at line {}", first_simulate->range.begin.line));
      continue;
    }
    first_simulate = d;
    spec.simulate = *sim;
  }
  if (spec.simulate) check_simulate(spec, diags);
  // Only when nothing else is wrong: a spec with errors is not mistaken for a finished one.
  if (!spec.prompt && !diags.has_errors()) report_nothing_to_send(spec, decls, sources.range(main_file, 0, 0), diags);
  // Every file read (spec, modules, data), once, with its hash: the reproducibility manifest.
  std::set<std::string> recorded;
  for (std::size_t f = 0; f < sources.size(); ++f) {
    FileId id = static_cast<FileId>(f);
    if (recorded.insert(sources.path(id)).second) spec.inputs.emplace_back(sources.path(id), sha256_hex(sources.text(id)));
  }
  return spec;
}

}  // namespace mirac
