// SPDX-License-Identifier: Apache-2.0
// check/run.hpp: the one skeleton every checker runs (elementwise check.hpp, dot check_dot.hpp, block
// check_block.hpp): compare the kernel's outputs of the first pass with the expected ones, keep the simplest
// failing case of every class, shrink them all together with one kernel call per round, and hand back one
// reproducer per failing class. What differs between the checkers is a Domain: its cases, its outputs, the
// expected output, the simplicity key, the shrink candidates and the kernel rerun. The domains live next to
// their checkers (check.cpp, check_dot.cpp, check_block.cpp); so do their diagnosis panels. The report step
// (text, report.json, the diagnosis ranking) is shared too: src/check/report.hpp.
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace minifloat::check {

/// What run_domain needs of a checker target. Case indices i are those of the first pass (0..size()-1);
/// classes are 0..classes()-1, listed in that order.
///  - case_at(i), class_at(i), got_at(i): the first pass's case i, its class and the kernel's output for it.
///  - passes(c, got): whether `got` is the expected output of case c (the checker's comparison, NaN rule included).
///  - key(c): c's simplicity key (a strict weak order; smaller is simpler).
///  - candidates(c): cases simpler than c to try when shrinking (deterministic in c).
///  - admissible(cls, c, got_c, y, got_y): whether failing candidate y (the kernel gave got_y) may replace c
///    (of class cls; the kernel gave got_c): it stays in its class and fails the same way, so a class's example
///    is never another class's case.
///  - rerun(cases): the kernel's outputs for `cases`, in one kernel call.
template <class D>
concept Domain = requires(const D& d, std::size_t i, const typename D::Case& c, const typename D::Got& g,
                          std::span<const typename D::Case> cs) {
  typename D::Case;
  typename D::Got;
  typename D::Key;
  { d.size() } -> std::convertible_to<std::size_t>;
  { d.classes() } -> std::convertible_to<std::size_t>;
  { d.case_at(i) } -> std::convertible_to<typename D::Case>;
  { d.class_at(i) } -> std::convertible_to<std::size_t>;
  { d.got_at(i) } -> std::convertible_to<typename D::Got>;
  { d.passes(c, g) } -> std::convertible_to<bool>;
  { d.key(c) } -> std::convertible_to<typename D::Key>;
  { d.candidates(c) } -> std::convertible_to<std::vector<typename D::Case>>;
  { d.admissible(i, c, g, c, g) } -> std::convertible_to<bool>;
  { d.rerun(cs) } -> std::convertible_to<std::vector<typename D::Got>>;
};

/// One failing class: its simplest failing case found, the kernel's output for it, how many cases failed.
template <class Case, class Got>
struct FailingClass {
  std::size_t cls = 0;
  Case c;
  Got got;
  std::uint64_t failures = 0;  ///< failing cases of the class in the first pass
};

/// What run_domain found.
template <class Case, class Got>
struct DomainRun {
  std::uint64_t failed = 0;                      ///< failing cases of the first pass
  std::vector<FailingClass<Case, Got>> minimal;  ///< one per failing class, in class order
  std::uint64_t shrink_calls = 0;                ///< kernel calls spent on shrinking
};

/// Whether and how long run_domain shrinks.
struct ShrinkPlan {
  enum class Shrink : std::uint8_t { yes, no } shrink = Shrink::yes;  ///< no: keep the first pass's cases
  int max_rounds = 64;                                                ///< kernel calls at most
};
/// The plan of a checker's options (each checker's Options has `shrink` yes|no and `max_shrink_rounds`):
/// shrink only when asked and a rerun kernel is given.
template <class Options>
ShrinkPlan shrink_plan(const Options& o, bool has_rerun) {
  const bool yes = has_rerun && o.shrink == decltype(o.shrink)::yes;
  return {yes ? ShrinkPlan::Shrink::yes : ShrinkPlan::Shrink::no, o.max_shrink_rounds};
}

/// The shared skeleton: compare, keep the simplest failing case of each class (the first of equal keys),
/// then shrink. Each round runs the kernel once on the candidates of every class still shrinking; a class
/// takes its simplest admissible failing candidate that is simpler than its case (the first of equal keys),
/// and stops when none is. Stops when no class moved, or after plan.max_rounds rounds.
template <Domain D>
DomainRun<typename D::Case, typename D::Got> run_domain(const D& d, const ShrinkPlan& plan) {
  using C = typename D::Case;
  using G = typename D::Got;
  using Key = typename D::Key;
  DomainRun<C, G> r;
  struct Best {
    std::optional<std::size_t> idx;
    Key key{};
    std::uint64_t failures = 0;
  };
  std::vector<Best> best(d.classes());
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto& c = d.case_at(i);
    if (d.passes(c, d.got_at(i))) continue;
    ++r.failed;
    Best& b = best[d.class_at(i)];
    ++b.failures;
    const Key k = d.key(c);
    if (!b.idx || k < b.key) {
      b.idx = i;
      b.key = k;
    }
  }
  std::vector<Key> keys;
  for (std::size_t k = 0; k < best.size(); ++k)
    if (best[k].idx) {
      r.minimal.push_back({k, d.case_at(*best[k].idx), d.got_at(*best[k].idx), best[k].failures});
      keys.push_back(best[k].key);
    }
  if (plan.shrink == ShrinkPlan::Shrink::no) return r;
  std::vector<bool> done(r.minimal.size(), false);
  for (int round = 0; round < plan.max_rounds; ++round) {
    std::vector<C> cand;
    std::vector<std::size_t> owner;
    for (std::size_t j = 0; j < r.minimal.size(); ++j) {
      if (done[j]) continue;
      for (C& y : d.candidates(r.minimal[j].c)) {
        cand.push_back(std::move(y));
        owner.push_back(j);
      }
    }
    if (cand.empty()) break;
    const std::vector<G> out = d.rerun(std::span<const C>(cand));
    ++r.shrink_calls;
    std::vector<std::optional<std::size_t>> pick(r.minimal.size());
    std::vector<Key> pick_key = keys;
    for (std::size_t i = 0; i < cand.size(); ++i) {
      const std::size_t j = owner[i];
      if (d.passes(cand[i], out[i])) continue;
      const Key k = d.key(cand[i]);
      if (!(k < pick_key[j]) || !d.admissible(r.minimal[j].cls, r.minimal[j].c, r.minimal[j].got, cand[i], out[i]))
        continue;
      pick[j] = i;
      pick_key[j] = k;
    }
    bool moved = false;
    for (std::size_t j = 0; j < r.minimal.size(); ++j) {
      if (done[j]) continue;
      if (!pick[j]) {
        done[j] = true;
        continue;
      }
      r.minimal[j].c = cand[*pick[j]];
      r.minimal[j].got = out[*pick[j]];
      keys[j] = pick_key[j];
      moved = true;
    }
    if (!moved) break;
  }
  return r;
}

}  // namespace minifloat::check
