// cell_scope.hpp: what names mean while a prompt of one seed in one cell is assembled.
#pragma once

#include "interpreter/eval/eval.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac {

/// Names: factors (-> the cell's level), `seed`, `checklist`, texts keyed by factors, level
/// names (-> their text), and the seed's raw data columns. Fields: `F.text`, `F.label`,
/// `F.name`, `NAME.text` (a keyed text's, for the cell), `seed.FIELD` (indexed fields
/// resolve through the cell; variants replace the field).
class CellScope : public Scope {
 public:
  CellScope(const Spec& spec, const Seed& seed, const std::vector<int>& levels);
  std::optional<Value> name(const std::string& name) const override;
  std::optional<Value> field(const Value& base, const std::string& field) const override;
  std::vector<std::string> names() const override;
  std::vector<std::string> field_names(const Value& base) const override;
  std::string missing_field(const Value& base, const std::string& field) const override;

 private:
  const Spec& spec_;
  const Seed& seed_;
  const std::vector<int>& levels_;
  const nlohmann::ordered_json* checklist_ = nullptr;
};

/// Key of a cell over the factors `by`, e.g. "zh.high.formal".
std::string cell_key(const Spec& spec, const std::vector<int>& by, const std::vector<int>& levels_by_factor);
/// Every combination of levels of `by` (first factor slowest), as per-factor level vectors.
std::vector<std::vector<int>> cells_of(const Spec& spec, const std::vector<int>& by);

}  // namespace mirac
