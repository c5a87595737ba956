#include "interpreter/model/spec.hpp"

namespace mirac {

int Factor::level_index(const std::string& level) const {
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (levels[i].name.name == level) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> Factor::level_names() const {
  std::vector<std::string> out;
  for (const auto& l : levels) out.push_back(l.name.name);
  return out;
}

std::filesystem::path Spec::data_path(const SourceRange& where, const std::string& rel) const {
  std::filesystem::path p(rel);
  if (p.is_absolute()) return p;
  auto root = data_roots.find(where.file);
  return (root == data_roots.end() ? data_root : root->second) / p;
}

int Spec::factor_index(const std::string& name) const {
  for (std::size_t i = 0; i < factors.size(); ++i)
    if (factors[i].name == name) return static_cast<int>(i);
  return -1;
}

const Seed* Spec::find_seed(const std::string& id) const {
  for (const auto& s : seeds)
    if (s.id == id) return &s;
  return nullptr;
}

const ast::RubricDecl* Spec::find_rubric(const std::string& name) const {
  for (const auto& r : rubrics)
    if (r.name.name == name) return &r;
  return nullptr;
}

int Spec::judge_index(const std::string& name) const {
  for (std::size_t j = 0; j < judges.size(); ++j)
    if (judges[j].name == name) return static_cast<int>(j);
  return -1;
}

bool Spec::is_model_group(const std::string& name) const {
  for (const auto& m : models)
    if (m.groups.count(name)) return true;
  return false;
}

const Panel* Spec::find_panel(const std::string& name) const {
  for (const auto& p : panels)
    if (p.name == name) return &p;
  return nullptr;
}

const ast::RubricDecl* Spec::scored_rubric() const {
  const ast::RubricDecl* r = nullptr;
  if (int j = judge_index(scores_rater); j >= 0) r = find_rubric(judges[static_cast<std::size_t>(j)].rubric);
  else if (const Panel* p = find_panel(scores_rater)) r = find_rubric(p->rubric);
  if (r) return r;
  return rubrics.empty() ? nullptr : &rubrics.front();
}

std::string rater_name(const ast::Expr& e) {
  if (const auto* n = std::get_if<ast::Name>(&e.node)) return n->name;
  if (const auto* f = std::get_if<ast::Field>(&e.node))
    if (const auto* base = std::get_if<ast::Name>(&f->base->node); base && base->name == "human")
      return "human." + f->field.name;
  return "";
}

bool is_human_rater(const std::string& rater) { return rater == "human" || rater.rfind("human.", 0) == 0; }

const TextTable* Spec::text_for(int factor) const {
  for (const auto& t : texts)
    if (t.factor == factor) return &t;
  return nullptr;
}

const TextTable* Spec::keyed_text(const std::string& name) const {
  for (const auto& t : texts)
    if (t.factor < 0 && t.name == name) return &t;
  return nullptr;
}

namespace {

// A checked `scale` is a RangeLit of two numbers; anything else leaves the default.
std::optional<ScoreScale> scale_of(const std::optional<ast::Expr>& scale) {
  const auto* range = scale ? std::get_if<ast::RangeLit>(&scale->node) : nullptr;
  if (!range) return std::nullopt;
  const auto* lo = std::get_if<ast::NumberLit>(&range->lo->node);
  const auto* hi = std::get_if<ast::NumberLit>(&range->hi->node);
  if (!lo || !hi) return std::nullopt;
  return ScoreScale{lo->value, hi->value};
}

}  // namespace

ScoreScale dim_scale(const ast::RubricDecl& rubric, const std::string& dim) {
  for (const auto& d : rubric.dims)
    if (d.name.name == dim)
      if (auto own = scale_of(d.scale)) return *own;
  return scale_of(rubric.scale).value_or(ScoreScale{});
}

bool has_dim_scales(const ast::RubricDecl& rubric) {
  const ScoreScale whole = scale_of(rubric.scale).value_or(ScoreScale{});
  for (const auto& d : rubric.dims)
    if (auto own = scale_of(d.scale); own && !(*own == whole)) return true;
  return false;
}

const Variant* Spec::variant_for(const std::string& field) const {
  for (const auto& v : variants)
    if (v.field == field) return &v;
  return nullptr;
}

}  // namespace mirac
