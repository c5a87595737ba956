// scores.hpp: the score table `mirac analyze` works on: one row per (seed, cell, model,
// arm) answer with its rubric scores, read from a CSV file and validated against the spec.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/model/data.hpp"
#include "interpreter/plan/plan.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac::analyze {

/// One scored answer. Indices point into the spec; a score is NaN when it is N/A.
struct ScoreRow {
  int seed = -1;            ///< index into Spec::seeds
  int model = -1;           ///< index into Spec::models
  int arm = -1;             ///< index into Spec::arms
  std::vector<int> levels;  ///< per factor of the spec (Spec::factors order)
  std::vector<double> scores;  ///< per dimension of ScoreTable::dims
  std::size_t line = 0;     ///< line in the scores file, for messages
  /// Per criterion of the seed, 1 met and 0 not (rubrics that grade `criteria`; empty
  /// otherwise, and in a scores file, which holds scores only).
  std::vector<std::uint8_t> criteria;
  int answer = 0;  ///< which of the prompt's answers (the spec's `answers`), from 0
};

/// Another rater's scores of the same answers (agreement analyses compare raters), on the
/// table's dimensions (N/A where the rater's rubric lacks one).
struct RaterRows {
  std::string rater;
  std::vector<ScoreRow> rows;
};

struct ScoreTable {
  std::string path;               ///< as given
  std::vector<std::string> dims;  ///< the rubric's dimensions, in rubric order
  std::vector<ScoreRow> rows;     ///< in file order: the scores the analyses use
  std::string rater;              ///< whose `rows` are (the spec's `scores` rater)
  std::vector<RaterRows> others;  ///< other raters' scores, when an agreement analysis needs them
  int dim_index(const std::string& name) const;
  /// The rows of `rater`: this table's own or another rater's; null when absent.
  const std::vector<ScoreRow>* rows_of(const std::string& rater) const;
};

inline bool is_na(double score) { return std::isnan(score); }

/// A key naming one answer of a plan (its seed, model, arm and levels), to match the rows
/// of different raters, or a row to its request.
std::string answer_key(int seed, int model, int arm, const std::vector<int>& levels, int answer = 0);
inline std::string answer_key(const ScoreRow& r) { return answer_key(r.seed, r.model, r.arm, r.levels, r.answer); }

/// Several small indices (seed, model, arm, levels, answer) as one number, each a digit of
/// its own radix, the first most significant: packed keys sort in the order of their parts,
/// and a sorted vector of them is searched or grouped without the cache misses of a hash
/// set or map of strings (those made the analysis twenty times slower at ten times MIRA).
class MixedRadix {
 public:
  /// `radix[i]` is how many values digit i takes (0 counts as 1).
  explicit MixedRadix(std::vector<std::size_t> radix);
  /// Whether every number fits in 64 bits; none packs when not.
  bool fits() const { return fits_; }

  /// One number, written digit by digit, most significant first.
  class Number {
   public:
    explicit Number(const MixedRadix& radix) : radix_(radix), ok_(radix.fits_) {}
    Number& digit(int value) {  // inline: called for every digit of every row
      if (!ok_ || at_ >= radix_.radix_.size() || value < 0 || static_cast<std::size_t>(value) >= radix_.radix_[at_]) {
        ok_ = false;
        return *this;
      }
      value_ = value_ * radix_.radix_[at_++] + static_cast<std::uint64_t>(value);
      return *this;
    }
    /// None when a digit was out of its range or there were not as many digits as radixes.
    std::optional<std::uint64_t> value() const {
      if (!ok_ || at_ != radix_.radix_.size()) return std::nullopt;
      return value_;
    }

   private:
    const MixedRadix& radix_;
    std::uint64_t value_ = 0;
    std::size_t at_ = 0;
    bool ok_;
  };
  Number number() const { return Number(*this); }

 private:
  std::vector<std::size_t> radix_;
  bool fits_ = true;
};

/// The row of the plan's request `r`: its seed (-1 when the seed is unknown), model, arm and
/// levels; no scores yet.
ScoreRow score_row_of(const Spec& spec, const Plan& plan, const RequestRow& r);

/// The dimensions analyze reads: those of the rubric of the analyses' rater (Spec::scored_rubric).
std::vector<std::string> score_dimensions(const Spec& spec);

/// Reads a scores CSV (docs/results.md, "Scores file"). With a `rater` column, the rows of
/// the spec's `scores` rater are the table's and every other rater's go to `others`. Every problem goes to `diags` at
/// the offending row and column; returns nullopt when there was any.
std::optional<ScoreTable> load_scores(const Spec& spec, const std::filesystem::path& path, SourceManager& sources,
                                      Diagnostics& diags);

}  // namespace mirac::analyze
