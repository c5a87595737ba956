// simulate.hpp: scores drawn from the truth a spec declares in its `simulate` block
// (docs/simulation.md). Each score is
//
//   intercept + the effects whose condition holds + one normal draw per random intercept
//   (per seed, or per value of a seed field) + a normal residual,
//
// rounded to a whole score and clipped to the rubric's scale unless the block says not to,
// then N/A with the declared rate, or where the block's or the rubric's `na when` holds.
// Every draw comes from a stream keyed by what it belongs to (the seed id or field value,
// the answer's seed, model, arm and levels, by name), so an answer's scores do not depend
// on which other answers are drawn: a pilot of ten answers and the full design agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interpreter/scores/scores.hpp"
#include "interpreter/model/spec.hpp"

namespace mirac::analyze {

/// How one dimension's scores are drawn, resolved from its `simulate` entry.
struct SimulatedDimension {
  int dim = -1;  ///< index into the score table's dimensions
  std::string name;
  double intercept = 0, residual_sd = 0, na_rate = 0;
  /// `answer SD`: noise between answers to the same prompt. Declared, the residual is the
  /// part a prompt's answers share; not declared, each answer draws its own residual.
  double answer_sd = 0;
  bool answer_declared = false;
  bool round = true, clip = true;
  double lo = 1, hi = 5;  ///< the rubric's scale
  std::vector<std::pair<const ast::Expr*, double>> effects;
  /// `bias COND: VALUE`: the judge's own, read against the cell of the text judged; with
  /// `under RUBRIC`, only when the judge scores with that rubric.
  struct Bias {
    const ast::Expr* when = nullptr;
    double value = 0;
    std::string rubric;  ///< empty: under any rubric
  };
  std::vector<Bias> biases;
  struct Random {
    std::string field;  ///< "" for one intercept per seed, else a seed field
    double sd = 0;
  };
  std::vector<Random> randoms;
  /// The block's `na when`, then the rubric's; null where there is none.
  const ast::Expr* na_when = nullptr;
  const ast::Expr* rubric_na_when = nullptr;
  /// Whether a rule above reads scores, so that it is evaluated per draw, not once.
  bool na_reads_scores = false;
  /// SD of the latent score's random part: the random intercepts' and the residual's.
  double total_sd() const;
};

/// The simulate block of a checked spec, ready to draw. The spec must outlive it.
class Simulator {
 public:
  /// `dims`: the score table's dimensions (score_dimensions(spec)). Throws
  /// std::invalid_argument when the spec has no simulate block.
  Simulator(const Spec& spec, std::vector<std::string> dims);

  /// The block's `seed` (0 when it gives none).
  std::uint64_t seed() const { return seed_; }
  const std::vector<SimulatedDimension>& dimensions() const { return sim_; }
  const std::vector<std::string>& table_dimensions() const { return dims_; }

  /// Fixes the answers to draw: their seed, model, arm and levels (scores are ignored).
  /// What does not change between draws (effects, keys, N/A rules on no score) is
  /// computed here once. Throws EvalError from a condition that cannot be evaluated.
  void prepare(const std::vector<ScoreRow>& rows);
  std::size_t rows() const { return mean_.size(); }

  /// One simulated audit's scores of the prepared rows, into `table` (its rows become the
  /// prepared rows with scores). `stream` selects the audit: the same value gives the same
  /// scores. Rows that differ only in `answer` are a prompt's answers: they share the
  /// seed's and other groups' intercepts (and the prompt's residual, with `answer SD`),
  /// and draw the rest apart.
  void draw(std::uint64_t stream, ScoreTable& table) const;
  /// The expected score of each prepared row: random terms integrated out, rounding and
  /// clipping included, N/A only where a rule on no score says so (the truth the
  /// estimates of `mirac simulate` are compared with).
  void expected(ScoreTable& table) const;

  /// One answer's scores, as draw() gives that row.
  std::vector<double> scores_of(const ScoreRow& row, std::uint64_t stream) const;
  /// The same draws as a judge may reply them, for the offline judge: N/A exactly where the
  /// rubric's own `na when` holds. The block's `na` rate and `na when` are left out (a
  /// judge's N/A must follow the rubric), so those answers keep their drawn score.
  /// `text_levels` (a level per factor) is the cell of the text the judge reads when it is
  /// not the answer's own (an answer translated into another language, judged again): the
  /// block's `bias` terms are read there, everything else at the answer's cell. `rubric`
  /// names the rubric the judge scores with when it is not the analyses' (an invariance
  /// check's `rubric`): the biases `under` it apply, those under another do not.
  std::vector<double> judged_scores_of(const ScoreRow& row, std::uint64_t stream,
                                       const std::vector<int>* text_levels = nullptr,
                                       const std::string* rubric = nullptr) const;
  /// The key an answer's draws are made from: seed id, model, arm and levels by name.
  std::string answer_name(const ScoreRow& row) const;

 private:
  struct Prepared {
    std::vector<double> mean;            ///< per simulated dimension
    std::vector<std::uint64_t> groups;   ///< per simulated dimension x random term: its group's key
    std::vector<signed char> na;         ///< per simulated dimension: 1 N/A, 0 not, -1 read per draw
    std::uint64_t key = 0;
  };
  Prepared prepare_row(const ScoreRow& row, const std::vector<int>* text_levels = nullptr,
                       const std::string* rubric = nullptr) const;
  void draw_row(const ScoreRow& row, const Prepared& p, std::uint64_t stream, std::vector<double>& out,
                std::size_t answer = 0, bool block_na = true) const;

  const Spec& spec_;
  std::vector<std::string> dims_;
  std::vector<SimulatedDimension> sim_;
  std::uint64_t seed_ = 0;
  std::string scored_rubric_;  ///< the rubric of the analyses' scores: the one biases apply under by default
  ScoreTable shape_;  ///< dims only: the table RowScope reads scores through
  std::vector<ScoreRow> rows_;
  std::vector<Prepared> mean_;
};

}  // namespace mirac::analyze
