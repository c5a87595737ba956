#include "interpreter/scores/scores.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "interpreter/check/check.hpp"
#include "runtime/text/csv_cells.hpp"

namespace mirac::analyze {

int ScoreTable::dim_index(const std::string& name) const {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == name) return static_cast<int>(i);
  return -1;
}

std::string answer_key(int seed, int model, int arm, const std::vector<int>& levels, int answer) {
  // Written in place into one string: the analysis makes a key for every answer several
  // times over (coverage, unused answers), and a temporary string per number and bar was
  // most of their cost at ten times MIRA.
  std::string key;
  key.reserve(4 * (levels.size() + 4));
  auto add = [&key](char separator, int value) {
    if (separator) key += separator;
    char digits[16];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    key.append(digits, end);
  };
  add('\0', seed);
  add('|', model);
  add('|', arm);
  for (int l : levels) add('|', l);
  if (answer > 0) add('#', answer);
  return key;
}

MixedRadix::MixedRadix(std::vector<std::size_t> radix) : radix_(std::move(radix)) {
  std::uint64_t product = 1;
  for (std::size_t& r : radix_) {
    r = std::max<std::size_t>(r, 1);
    if (product > std::numeric_limits<std::uint64_t>::max() / r) fits_ = false;
    else product *= r;
  }
}

ScoreRow score_row_of(const Spec& spec, const Plan& plan, const RequestRow& r) {
  const PromptRow& p = plan.prompts[r.prompt];
  const Seed* seed = spec.find_seed(p.seed);
  ScoreRow row;
  row.seed = seed ? static_cast<int>(seed - spec.seeds.data()) : -1;
  row.model = r.model;
  row.arm = r.arm;
  row.levels = p.levels;
  row.answer = r.answer;
  return row;
}

const std::vector<ScoreRow>* ScoreTable::rows_of(const std::string& name) const {
  if (name == rater) return &rows;
  for (const auto& o : others)
    if (o.rater == name) return &o.rows;
  return nullptr;
}

namespace {

// The byte range of field `index` of a CSV record, so a message points at the cell itself
// (field_range() searches for the text, which finds the wrong cell when values repeat).
std::pair<std::size_t, std::size_t> csv_field_span(std::string_view record, std::size_t index) {
  std::size_t field = 0, begin = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < record.size(); ++i) {
    char c = record[i];
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      if (field == index) return {begin, i};
      ++field;
      begin = i + 1;
    }
  }
  if (field == index) return {begin, record.size()};
  return {0, 0};
}

struct Loader {
  const Spec& spec;
  SourceManager& sources;
  Diagnostics& diags;
  const DataTable& table;

  SourceRange cell(const DataRow& row, const std::string& column) const {
    std::size_t index = 0;
    while (index < table.columns.size() && table.columns[index] != column) ++index;
    std::string_view record(sources.text(row.file).data() + row.line_begin, row.line_end - row.line_begin);
    auto [b, e] = csv_field_span(record, index);
    return sources.range(row.file, row.line_begin + b, row.line_begin + e);
  }
  // The cell's text, with the ' that mirac's writers put before a formula-like text taken
  // off (csv_text_read): a seed id `-7` written as '-7 in scores.csv reads back as -7.
  std::string text(const DataRow& row, const std::string& column) const {
    return csv_text_read(json_text(row.fields.at(column)));
  }
};

}  // namespace

std::vector<std::string> score_dimensions(const Spec& spec) {
  std::vector<std::string> out;
  if (const ast::RubricDecl* r = spec.scored_rubric())
    for (const auto& d : r->dims) out.push_back(d.name.name);
  return out;
}

std::optional<ScoreTable> load_scores(const Spec& spec, const std::filesystem::path& path, SourceManager& sources,
                                      Diagnostics& diags) {
  const std::size_t errors_before = diags.error_count();
  if (!std::ifstream(path, std::ios::binary)) {
    diags.error_at(path.string(), "cannot read scores file");
    return std::nullopt;
  }
  auto read = read_table(path, path.string(), "csv", SourceRange{}, sources, diags);
  if (!read) return std::nullopt;
  const DataTable& table = *read;
  ScoreTable out;
  out.path = path.string();
  out.dims = score_dimensions(spec);
  out.rater = spec.scores_rater;
  // A `rater` column holds several raters' scores (what the run writes for agreement analyses).
  const bool by_rater = table.has_column("rater");
  std::vector<std::string> raters;
  for (const auto& j : spec.judges) raters.push_back(j.name);
  for (const auto& p : spec.panels) raters.push_back(p.name);
  double lo = 1, hi = 5;
  const ast::RubricDecl* scored = spec.scored_rubric();  // its dimensions' scales bound the scores
  if (const ast::RubricDecl* r = scored; r && r->scale) {
    const auto& range = std::get<ast::RangeLit>(r->scale->node);
    lo = std::get<ast::NumberLit>(range.lo->node).value;
    hi = std::get<ast::NumberLit>(range.hi->node).value;
  }

  // Required columns, reported at the header.
  std::vector<std::string> required = {"seed", "model"};
  if (spec.arms.size() > 1) required.push_back("arm");
  for (const auto& f : spec.factors) required.push_back(f.name);
  for (const auto& d : out.dims) required.push_back(d);
  const std::string& text = sources.text(table.file);
  const std::size_t header_begin = csv_header_begin(text);
  SourceRange header = sources.range(table.file, header_begin, text.find_first_of("\r\n", header_begin));
  bool columns_ok = true;
  for (const auto& c : required) {
    if (table.has_column(c)) continue;
    diags.error(header, fmt::format("scores file has no column '{}'", c));
    columns_ok = false;
  }
  if (!columns_ok) return std::nullopt;
  // Several answers per prompt are told apart by an `answer` column (1 .. K); without it
  // every row is a prompt's first answer. With one answer per prompt the column is ignored
  // like any other, since a file may well have one holding the answers' text.
  const bool has_answer = spec.answers > 1 && table.has_column("answer") && spec.factor_index("answer") < 0;

  Loader L{spec, sources, diags, table};
  std::map<std::string, int> seed_index, model_index, arm_index;
  for (std::size_t i = 0; i < spec.seeds.size(); ++i) seed_index[spec.seeds[i].id] = static_cast<int>(i);
  // A model is named as in the spec, or by the model string it declares (gpt-5.4).
  for (std::size_t i = 0; i < spec.models.size(); ++i) model_index.emplace(spec.models[i].model, static_cast<int>(i));
  for (std::size_t i = 0; i < spec.models.size(); ++i) model_index[spec.models[i].name] = static_cast<int>(i);
  for (std::size_t i = 0; i < spec.arms.size(); ++i) arm_index[spec.arms[i].name] = static_cast<int>(i);
  auto names_of = [](const std::map<std::string, int>& m) {
    std::vector<std::string> v;
    for (const auto& [k, i] : m) v.push_back(k);
    return v;
  };

  out.rows.reserve(table.rows.size());
  for (const DataRow& row : table.rows) {
    ScoreRow r;
    r.line = row.line;
    bool ok = true;
    std::string rater = spec.scores_rater;
    if (by_rater) {
      rater = L.text(row, "rater");
      if (!is_human_rater(rater) && std::find(raters.begin(), raters.end(), rater) == raters.end()) {
        diags.error(L.cell(row, "rater"), with_suggestion(fmt::format("unknown rater '{}'", rater), rater, raters));
        continue;
      }
    }
    const bool fractional = spec.find_panel(rater) != nullptr;
    auto lookup = [&](const std::string& column, const std::map<std::string, int>& index, const char* what) {
      std::string value = L.text(row, column);
      auto it = index.find(value);
      if (it != index.end()) return it->second;
      diags.error(L.cell(row, column), with_suggestion(fmt::format("unknown {} '{}'", what, value), value, names_of(index)));
      ok = false;
      return -1;
    };
    r.seed = lookup("seed", seed_index, "seed");
    r.model = lookup("model", model_index, "model");
    r.arm = spec.arms.size() > 1 || table.has_column("arm") ? lookup("arm", arm_index, "arm") : 0;
    if (has_answer) {
      // Which of the prompt's answers, counted from 1 as the file shows it.
      const std::string value = L.text(row, "answer");
      long long k = 0;
      auto [stop, ec] = std::from_chars(value.data(), value.data() + value.size(), k);
      if (ec != std::errc() || stop != value.data() + value.size() || k < 1 || k > spec.answers) {
        diags.error(L.cell(row, "answer"), fmt::format("answer '{}' is not a whole number from 1 to {} (the spec's "
                                                       "answers per prompt)", value, spec.answers));
        ok = false;
      }
      r.answer = static_cast<int>(k - 1);
    }
    for (std::size_t f = 0; f < spec.factors.size(); ++f) {
      const Factor& factor = spec.factors[f];
      std::string value = L.text(row, factor.name);
      int level = factor.level_index(value);
      if (level < 0) {
        diags.error(L.cell(row, factor.name),
                    with_suggestion(fmt::format("'{}' is not a level of factor '{}'", value, factor.name), value,
                                    factor.level_names()));
        note_declared_levels(spec, static_cast<int>(f), value, diags);  // as the checker lists them
        ok = false;
      }
      r.levels.push_back(level);
    }
    for (const auto& d : out.dims) {
      std::string value = L.text(row, d);
      if (value.empty() || value == "N/A") {
        r.scores.push_back(std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      // A judge's scores are whole numbers; a panel's mean or median may fall between two.
      double score = 0;
      const char* end = value.data() + value.size();
      bool parsed = false;
      if (fractional) {
        auto [stop, ec] = std::from_chars(value.data(), end, score);
        parsed = ec == std::errc() && stop == end && std::isfinite(score);
      } else {
        long long whole = 0;
        auto [stop, ec] = std::from_chars(value.data(), end, whole);
        parsed = ec == std::errc() && stop == end;
        score = static_cast<double>(whole);
      }
      if (!parsed) {
        diags.error(L.cell(row, d), fmt::format("score '{}' for {} is not {} (write an empty cell or N/A for N/A)",
                                                value, d, fractional ? "a number" : "an integer"));
        ok = false;
      } else if (const ScoreScale own = scored ? dim_scale(*scored, d) : ScoreScale{lo, hi}; score < own.lo || score > own.hi) {
        diags.error(L.cell(row, d), fmt::format("score {} for {} is outside the scale {}..{}", score, d, own.lo, own.hi));
        ok = false;
      }
      r.scores.push_back(score);
    }
    if (!ok) continue;
    if (rater == out.rater) {
      out.rows.push_back(std::move(r));
      continue;
    }
    auto other = std::find_if(out.others.begin(), out.others.end(), [&](const RaterRows& o) { return o.rater == rater; });
    if (other == out.others.end()) other = out.others.insert(out.others.end(), RaterRows{rater, {}});
    other->rows.push_back(std::move(r));
  }
  if (by_rater && out.rows.empty() && diags.error_count() == errors_before)
    diags.error(header, fmt::format("the scores file has no rows of rater '{}', whose scores the analyses use",
                                    out.rater));
  if (diags.error_count() != errors_before) return std::nullopt;
  return out;
}

}  // namespace mirac::analyze
