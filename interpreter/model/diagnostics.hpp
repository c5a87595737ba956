// diagnostics.hpp: problems found in specs and data files, collected rather than thrown.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "interpreter/model/source.hpp"

namespace mirac {

/// A note is no problem: it explains what the spec does (what an `override` replaced).
enum class Severity { error, warning, note };

struct Diagnostic {
  Severity severity = Severity::error;
  SourceRange range;   ///< where; may be invalid for problems with no place (a missing file)
  std::string where;   ///< shown instead of a range when the range is invalid (e.g. a path)
  std::string message;
  std::vector<std::string> notes;  ///< extra lines, printed after the caret as `note: ...`
};

/// The collector every phase writes to. Phases never throw for a problem in user input.
class Diagnostics {
 public:
  void error(SourceRange range, std::string message);
  void error_at(std::string where, std::string message);
  void warning(SourceRange range, std::string message);
  /// A diagnostic of severity `note` (an explanation, not a problem).
  void remark(SourceRange range, std::string message);
  /// Adds a note to the most recent diagnostic.
  void note(std::string text);

  bool has_errors() const;
  std::size_t error_count() const;
  const std::vector<Diagnostic>& all() const { return list_; }
  /// Adds every diagnostic of `other` (e.g. explanations to print with the problems).
  void append(const Diagnostics& other);

  /// Prints every diagnostic sorted by file, line and column, each as
  /// `file:line:col: error: message`, the source line and a caret; then the count.
  void print(std::ostream& out, const SourceManager& sources) const;
  /// The same, sorted alike, as one JSON array for editors and tools: per diagnostic its
  /// `file`, `line`, `column`, `end_line`, `end_column` (1-based, columns in code points;
  /// null without a place), `severity`, `message` and `notes` (docs/cli.md, `mirac check`).
  std::string json(const SourceManager& sources) const;

 private:
  std::vector<Diagnostic> list_;
};

/// Reports the first byte of `file` that is not UTF-8, at its line and column, as an error
/// naming `what` (e.g. "data file 'seeds.csv'"); false when there is one.
bool require_utf8(const SourceManager& sources, FileId file, const std::string& what, Diagnostics& diags);

/// The closest candidate to `name` by edit distance, or "" when none is close enough.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);
/// `unknown X 'y'` plus `; did you mean 'z'?` when a close candidate exists.
std::string with_suggestion(std::string message, const std::string& name,
                            const std::vector<std::string>& candidates);

}  // namespace mirac
