// SPDX-License-Identifier: Apache-2.0
// report.hpp (private to src/check/): the one report step of the three checkers (Report in check.cpp,
// DotReport in check_dot.cpp, BlockReport in check_block.cpp). The order and the shared pieces of the text
// report and of report.json are written here once; a checker supplies only its own parts: its headline, one
// block of text lines and one JSON object per failing class, its target's JSON fields.
// The diagnosis ranking (rank_diagnosis, declared in check.hpp) is defined in report.cpp too.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "minifloat/check/check.hpp"

namespace minifloat::check::report {

/// How "differ in N class(es)" counts its classes: `counted` writes "1 class", `always_plural` writes
/// "1 classes" (the dot checker's wording, kept so that its reports stay byte-identical).
enum class ClassNoun : std::uint8_t { counted, always_plural };

/// The first line of an elementwise or dot report, "\n" included:
///   pass: "pass check TARGET: TESTED casesPASS_NOTE"
///   fail: "FAIL [C1, C2] check TARGET: FAILED of TESTED cases differ in N class(es)" (N = classes.size()).
struct Headline {
  std::string_view target;  ///< describe(target)
  std::uint64_t tested = 0, failed = 0;
  std::vector<std::string> classes;  ///< the failing classes' names, in class order
  std::string_view pass_note;        ///< appended to a pass line (elementwise: ", all bit-exact")
  ClassNoun noun = ClassNoun::counted;
};
std::string headline(const Headline& h);

/// The text report, in this order: `headline` (a whole line); `classes` (each the lines of one failing class,
/// in class order, "\n"-terminated); the diagnosis line DIAGNOSIS_INDENT + "diagnosis: " + d.text when d.text
/// is not empty (rank_diagnosis writes the text exactly when it ranks an alternative); one line
/// "  reproduce: CMD" per command of `reproduce`.
struct Text {
  std::string headline;
  std::vector<std::string> classes;
  std::string_view diagnosis_indent;  ///< "  " (elementwise, dot) or "" (block)
  std::vector<std::string> reproduce;
};
std::string text(const Text& t, const Diagnosis& d);

/// report.json's indent (nlohmann dump): elementwise 2, block 1, dot compact (-1). Kept per checker so that
/// every checker's report.json files and Python `json` strings stay byte-identical.
enum class JsonLayout : int { compact = -1, indent1 = 1, indent2 = 2 };
/// Whether report.json has an "ok" field after "failed" (the elementwise report has; dot and block have not).
enum class OkField : std::uint8_t { yes, no };

/// The diagnosis object: {"text": d.text, "ranked": [{"name", "bug_class", "agree", "of"}, ...]} (best first).
nlohmann::ordered_json diagnosis_json(const Diagnosis& d);

/// The counts every report has.
struct Counts {
  std::uint64_t tested = 0, failed = 0, kernel_calls = 0;
};
/// report.json: the fields of `head` first (the checker's target: "target", and the block checker's "scheme"),
/// then "tested", "failed", "ok" (with OkField::yes: failed == 0), "kernel_calls", "minimal" (the checker's
/// one object per failing class, in class order; an array), "diagnosis" (diagnosis_json), dumped with `layout`.
/// Strings are written as UTF-8 with `"`, `\` and control characters escaped (nlohmann); every string of a
/// checker report is printable ASCII (names from the registry tables, numbers; a dot target's model name is
/// checked by validate(DotTarget)).
std::string json(nlohmann::ordered_json head, const Counts& n, OkField ok, nlohmann::ordered_json minimal,
                 const Diagnosis& d, JsonLayout layout);

}  // namespace minifloat::check::report
