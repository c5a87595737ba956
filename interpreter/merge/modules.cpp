#include "interpreter/merge/modules.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "interpreter/parse/parse.hpp"
#include "interpreter/merge/stdlib_modules.hpp"

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
  LoadedSpec out{};
  std::map<std::string, bool> state{};  // key -> finished (false while on the stack)
  std::map<std::string, FileId> file_of{};
  std::vector<std::pair<std::string, std::string>> stack{};  // (key, shown path): specs and modules being read
  FileId current_spec = -1;

  // A spec of the chain: its base first (with the base's modules), then its own modules.
  void visit_spec(const std::string& key, FileId file) {
    enter(key, file);
    ast::Module module = parse_module(file, sources, diags);
    std::filesystem::path dir = std::filesystem::path(sources.path(file)).parent_path();
    for (const auto& decl : module.decls)
      if (const auto* audit = std::get_if<ast::AuditDecl>(&decl.node); audit && audit->extends) {
        load_base(*audit, dir);
        break;  // a second header is reported by the checker
      }
    const FileId previous = current_spec;
    current_spec = file;
    out.chain.owner[file] = file;
    use_all(module, dir);
    current_spec = previous;
    leave(key);
    out.modules.push_back(std::move(module));
    out.chain.specs.push_back(file);
  }

  void visit_module(const std::string& key, FileId file) {
    enter(key, file);
    ast::Module module = parse_module(file, sources, diags);
    out.chain.owner[file] = current_spec;
    use_all(module, std::filesystem::path(sources.path(file)).parent_path());
    leave(key);
    out.modules.push_back(std::move(module));
  }

  void enter(const std::string& key, FileId file) {
    state[key] = false;
    file_of[key] = file;
    stack.emplace_back(key, sources.path(file));
  }
  void leave(const std::string& key) {
    stack.pop_back();
    state[key] = true;
  }

  void use_all(const ast::Module& module, const std::filesystem::path& dir) {
    for (const auto& decl : module.decls)
      if (const auto* use = std::get_if<ast::UseDecl>(&decl.node)) use_module(*use, dir, module.file);
  }

  // "a.audit -> b.audit -> a.audit" from the stack entry of `key` on.
  std::string cycle_from(const std::string& key) const {
    std::string cycle;
    auto start = std::find_if(stack.begin(), stack.end(), [&](const auto& e) { return e.first == key; });
    for (auto s = start; s != stack.end(); ++s) cycle += s->second + " -> ";
    return cycle + start->second;
  }

  void load_base(const ast::AuditDecl& audit, const std::filesystem::path& dir) {
    std::filesystem::path p = dir / audit.extends->value;
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(p, ec);
    std::string key = ec ? p.string() : canonical.string();
    std::string shown = p.lexically_normal().string();
    if (auto it = state.find(key); it != state.end()) {
      diags.error(audit.extends_range, it->second ? fmt::format("'{}' is already read as a module of this spec; a spec "
                                                                "cannot also extend it", shown)
                                                  : fmt::format("extends cycle: {}", cycle_from(key)));
      return;
    }
    std::string why;
    std::optional<std::string> bytes = read_regular_file(p, why);
    if (!bytes) {
      diags.error(audit.extends_range, fmt::format("cannot read base spec '{}': {}", shown, why));
      return;
    }
    FileId file = sources.add(shown, without_bom(std::move(*bytes)));
    if (!require_utf8(sources, file, fmt::format("base spec '{}'", shown), diags)) return;
    visit_spec(key, file);
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
      if (!it->second) diags.error(use.module_range, fmt::format("module cycle: {}", cycle_from(key)));
      else out.chain.used[{from, use.module_range.begin.byte}] = file_of[key];
      return;  // already loaded (or on the stack): load each module once
    }
    FileId file = sources.add(shown, without_bom(std::move(text)));
    if (!require_utf8(sources, file, fmt::format("module '{}'", shown), diags)) return;
    out.chain.used[{from, use.module_range.begin.byte}] = file;
    visit_module(key, file);
  }
};

}  // namespace

LoadedSpec load_spec_from_text(const std::string& shown_path, std::string text, SourceManager& sources,
                               Diagnostics& diags) {
  Loader loader{sources, diags};
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(shown_path, ec);
  FileId file = sources.add(shown_path, without_bom(std::move(text)));
  if (!require_utf8(sources, file, "the spec", diags)) return {};
  loader.visit_spec(ec ? shown_path : canonical.string(), file);
  return std::move(loader.out);
}

LoadedSpec load_spec(const std::filesystem::path& spec_path, SourceManager& sources, Diagnostics& diags) {
  std::string why;
  std::optional<std::string> text = read_regular_file(spec_path, why);
  if (!text) {
    diags.error_at(spec_path.string(), "cannot read spec file: " + why);
    return {};
  }
  return load_spec_from_text(spec_path.string(), std::move(*text), sources, diags);
}

}  // namespace mirac
