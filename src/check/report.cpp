// SPDX-License-Identifier: Apache-2.0
// report.cpp: the checkers' one report step (report.hpp) and the diagnosis ranking (check.hpp).
#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace minifloat::check {

namespace {

/// "P%" with two decimals; "100%" only for a full match, "0%" of nothing.
std::string pct(std::uint64_t a, std::uint64_t n) {
  if (n == 0) return "0%";
  if (a == n) return "100%";
  char buf[32];
  double p = 100.0 * static_cast<double>(a) / static_cast<double>(n);
  if (p > 99.99) p = 99.99;  // never print 100% for a partial match
  std::snprintf(buf, sizeof buf, "%.2f%%", p);
  return buf;
}

}  // namespace

void rank_diagnosis(Diagnosis& d, std::string_view unit, std::string_view target) {
  if (d.ranked.empty()) return;
  const auto self =
      std::find_if(d.ranked.begin(), d.ranked.end(), [&](const Alternative& x) { return x.name == target; });
  // A failing kernel is never offered the target itself as its best match: it ranks after the alternatives.
  const bool failing = self != d.ranked.end() && self->agree < self->of;
  const std::uint64_t target_agree = self != d.ranked.end() ? self->agree : 0;
  std::stable_sort(d.ranked.begin(), d.ranked.end(), [&](const Alternative& x, const Alternative& y) {
    const bool xt = failing && x.name == target, yt = failing && y.name == target;
    if (xt != yt) return yt;
    return x.agree > y.agree;
  });
  const Alternative& best = d.ranked.front();
  const std::string share = pct(best.agree, best.of) + " of " + std::to_string(best.of) + " " + std::string(unit);
  if (failing && best.name != target && best.agree <= target_agree)
    d.text = "no alternative explains the failures; the closest, \"" + best.name + "\", agrees on " + share;
  else d.text = "agrees with \"" + best.name + "\" on " + share;
  if (!best.bug_class.empty()) d.text += " (" + best.bug_class + ")";
  if (best.name != target) d.text += "; the target on " + pct(target_agree, best.of);
}

namespace report {

std::string headline(const Headline& h) {
  const std::string tested = std::to_string(h.tested);
  if (h.failed == 0)
    return "pass check " + std::string(h.target) + ": " + tested + " cases" + std::string(h.pass_note) + "\n";
  std::string names;
  for (const std::string& c : h.classes) (names += names.empty() ? "" : ", ") += c;
  const bool one = h.classes.size() == 1 && h.noun == ClassNoun::counted;
  return "FAIL [" + names + "] check " + std::string(h.target) + ": " + std::to_string(h.failed) + " of " + tested +
         " cases differ in " + std::to_string(h.classes.size()) + (one ? " class" : " classes") + "\n";
}

std::string text(const Text& t, const Diagnosis& d) {
  std::string s = t.headline;
  for (const std::string& c : t.classes) s += c;
  if (!d.text.empty()) s += std::string(t.diagnosis_indent) + "diagnosis: " + d.text + "\n";
  for (const std::string& r : t.reproduce) s += "  reproduce: " + r + "\n";
  return s;
}

nlohmann::ordered_json diagnosis_json(const Diagnosis& d) {
  nlohmann::ordered_json j;
  j["text"] = d.text;
  j["ranked"] = nlohmann::ordered_json::array();
  for (const Alternative& a : d.ranked)
    j["ranked"].push_back({{"name", a.name}, {"bug_class", a.bug_class}, {"agree", a.agree}, {"of", a.of}});
  return j;
}

std::string json(nlohmann::ordered_json head, const Counts& n, OkField ok, nlohmann::ordered_json minimal,
                 const Diagnosis& d, JsonLayout layout) {
  nlohmann::ordered_json j = std::move(head);
  j["tested"] = n.tested;
  j["failed"] = n.failed;
  if (ok == OkField::yes) j["ok"] = n.failed == 0;
  j["kernel_calls"] = n.kernel_calls;
  j["minimal"] = minimal.is_null() ? nlohmann::ordered_json::array() : std::move(minimal);
  j["diagnosis"] = diagnosis_json(d);
  return j.dump(static_cast<int>(layout));
}

}  // namespace report
}  // namespace minifloat::check
