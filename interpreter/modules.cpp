#include "interpreter/modules.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "interpreter/parse.hpp"
#include "interpreter/stdlib_modules.hpp"

namespace mirac {

namespace {

// Editors on Windows save UTF-8 with a byte order mark; it is not part of the spec.
std::string without_bom(std::string text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  return text;
}

struct Loader {
  SourceManager& sources;
  Diagnostics& diags;
  std::vector<ast::Module> done;
  std::map<std::string, bool> state;  // key -> finished (false while on the stack)
  std::vector<std::pair<std::string, std::string>> stack;  // (key, shown path)

  void visit(const std::string& key, FileId file) {
    state[key] = false;
    stack.emplace_back(key, sources.path(file));
    ast::Module module = parse_module(file, sources, diags);
    std::filesystem::path dir = std::filesystem::path(sources.path(file)).parent_path();
    for (const auto& decl : module.decls) {
      const auto* use = std::get_if<ast::UseDecl>(&decl.node);
      if (!use) continue;
      use_module(*use, dir, file);
    }
    stack.pop_back();
    state[key] = true;
    done.push_back(std::move(module));
  }

  void use_module(const ast::UseDecl& use, const std::filesystem::path& dir, FileId from) {
    std::string key;
    std::string text;
    std::string shown;
    if (!use.is_path) {
      if (use.module.rfind("stdlib.", 0) != 0) {
        diags.error(use.module_range,
                    fmt::format("unknown module '{}': modules are stdlib.NAME or a file path in quotes", use.module));
        return;
      }
      const EmbeddedModule* found = nullptr;
      std::vector<std::string> names;
      for (const auto& m : embedded_stdlib()) {
        names.emplace_back(m.name);
        if (m.name == use.module) found = &m;
      }
      if (!found) {
        diags.error(use.module_range, with_suggestion(fmt::format("unknown module '{}'", use.module), use.module, names));
        return;
      }
      key = use.module;
      shown = std::string(found->path);
      text = std::string(found->text);
    } else {
      std::filesystem::path p = dir / use.module;
      std::error_code ec;
      auto canonical = std::filesystem::weakly_canonical(p, ec);
      key = ec ? p.string() : canonical.string();
      shown = p.lexically_normal().string();
      if (!state.count(key)) {
        std::string why;
        std::optional<std::string> bytes = read_regular_file(p, why);
        if (!bytes) {
          diags.error(use.module_range, fmt::format("cannot read module file '{}': {}", shown, why));
          return;
        }
        text = std::move(*bytes);
      }
    }
    auto it = state.find(key);
    if (it != state.end()) {
      if (!it->second) {
        std::string cycle;
        auto start = std::find_if(stack.begin(), stack.end(), [&](const auto& e) { return e.first == key; });
        for (auto s = start; s != stack.end(); ++s) cycle += s->second + " -> ";
        diags.error(use.module_range, fmt::format("module cycle: {}{}", cycle, start->second));
      }
      return;  // already loaded (or on the stack): load each module once
    }
    (void)from;
    FileId file = sources.add(shown, without_bom(std::move(text)));
    if (!require_utf8(sources, file, fmt::format("module '{}'", shown), diags)) return;
    visit(key, file);
  }
};

}  // namespace

std::vector<ast::Module> load_modules_from_text(const std::string& shown_path, std::string text,
                                                SourceManager& sources, Diagnostics& diags) {
  Loader loader{sources, diags, {}, {}, {}};
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(shown_path, ec);
  FileId file = sources.add(shown_path, without_bom(std::move(text)));
  if (!require_utf8(sources, file, "the spec", diags)) return {};
  loader.visit(ec ? shown_path : canonical.string(), file);
  return std::move(loader.done);
}

std::vector<ast::Module> load_modules(const std::filesystem::path& spec_path, SourceManager& sources,
                                      Diagnostics& diags) {
  std::string why;
  std::optional<std::string> text = read_regular_file(spec_path, why);
  if (!text) {
    diags.error_at(spec_path.string(), "cannot read spec file: " + why);
    return {};
  }
  return load_modules_from_text(spec_path.string(), std::move(*text), sources, diags);
}

}  // namespace mirac
