// SPDX-License-Identifier: Apache-2.0
// common.cpp: the SR flags every command shares (common.hpp).
#include "common.hpp"

#include <algorithm>

#include "minifloat/registry.hpp"

namespace minifloat::cli {

const CLI::Validator uint64_text(
    [](std::string& t) -> std::string {
      static const std::string kMax = "18446744073709551615";
      const bool digits = !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
      std::string v = t;
      v.erase(0, std::min(v.find_first_not_of('0'), v.size() - 1));
      if (!digits || v.size() > kMax.size() || (v.size() == kMax.size() && v > kMax))
        return "'" + t + "' is not an unsigned 64-bit integer (accepted: 0.." + kMax + ")";
      return {};
    },
    "");  // no description: CLI11 would print it after the type ("UINT:UINT64", read as a colon form)

namespace {
std::string range_text(IntRange r) { return std::to_string(r.lo) + ".." + std::to_string(r.hi); }
}  // namespace

SrEncodePlan validate_sr_encode_flags(const SrEncodeFlags& f) {
  if (f.rounding != Rounding::sr) {
    const char* given = f.sr_variant ? "--sr-variant"
                        : f.sr_bits  ? "--sr-bits"
                        : f.seed     ? "--seed"
                        : f.stream   ? "--stream"
                        : f.count    ? "--count"
                                     : nullptr;
    if (given != nullptr)
      throw Error(std::string(given) + " only applies to stochastic rounding; add --round sr (given: --round " +
                  std::string(rounding_name(f.rounding)) + ")");
    return {};
  }
  SrEncodePlan p;
  if (!f.seed) throw Error("--round sr needs --seed S (an unsigned 64-bit integer) so the output is reproducible");
  p.seed = *f.seed;
  if (f.sr_variant) {
    try {
      p.variant = parse_sr_variant(*f.sr_variant);
    } catch (const NameError&) {
      throw Error("--sr-variant '" + quote_input(*f.sr_variant) +
                  "' is unknown; accepted: " + accepted_names(name_table(SrVariant{})));
    }
  }
  if (f.sr_bits) {
    if (!reads_sr_bits(p.variant))
      throw Error("--sr-bits applies to --sr-variant A, B, C or stochastic_odd only (" +
                  std::string(sr_variant_name(p.variant)) +
                  (p.variant == SrVariant::exact ? " reads 64 random bits)" : " reads 1 random bit)"));
    if (*f.sr_bits < kSrBitsRange.lo || *f.sr_bits > kSrBitsRange.hi)
      throw Error("--sr-bits " + std::to_string(*f.sr_bits) +
                  " is out of range; accepted: " + range_text(kSrBitsRange));
    p.sr_bits = static_cast<std::uint8_t>(*f.sr_bits);
  }
  if (f.stream) {
    if (*f.stream < kStreamRange.lo || *f.stream > kStreamRange.hi)
      throw Error("--stream " + std::to_string(*f.stream) + " is out of range; accepted: " + range_text(kStreamRange));
    p.stream = static_cast<std::uint32_t>(*f.stream);
  }
  if (f.count) {
    if (*f.count < kCountRange.lo || *f.count > kCountRange.hi)
      throw Error("--count " + std::to_string(*f.count) + " is out of range; accepted: " + range_text(kCountRange));
    p.count = static_cast<std::uint64_t>(*f.count);
  }
  return p;
}

}  // namespace minifloat::cli
