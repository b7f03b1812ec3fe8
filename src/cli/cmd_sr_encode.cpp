// SPDX-License-Identifier: Apache-2.0
// cmd_sr_encode.cpp: the codes of `minifloat encode --round sr --count K` (the flags: common.cpp).
#include "cmd_sr_encode.hpp"

#include <cstdio>

#include "minifloat/convert_array.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/core/round_pack.hpp"
#include "minifloat/registry.hpp"

namespace minifloat::cli {

std::vector<std::uint64_t> sr_encode_codes(Format to, const Unpacked& value, RoundingSpec spec, Profile prof,
                                           std::uint64_t seed, std::uint32_t stream, std::uint64_t count) {
  if (spec.rounding != Rounding::sr)
    throw Error("sr_encode_codes: rounding is " + std::string(rounding_name(spec.rounding)) + "; accepted: sr");
  if (const std::string p = sr_bits_problem(spec.sr_bits); !p.empty()) throw Error("sr_encode_codes: sr_bits " + p);
  if (validate(to) != FormatError::ok) throw Error("sr_encode_codes: invalid format descriptor");
  std::vector<std::uint64_t> codes(count);
  for (std::uint64_t k = 0; k < count; ++k)
    codes[k] = round_pack(to, value, spec, prof, sr_bits(seed, stream, 0, k, spec)).code;
  return codes;
}

std::vector<std::uint64_t> sr_encode_codes(Format to, const Unpacked& value, Overflow overflow, Profile prof,
                                           const SrEncodePlan& plan) {
  RoundingSpec spec{Rounding::sr, overflow, plan.variant, plan.sr_bits};
  return sr_encode_codes(to, value, spec, prof, plan.seed, plan.stream, plan.count);
}

void print_codes(std::ostream& os, Format to, const std::vector<std::uint64_t>& codes) {
  const int digits = (to.bits + 3) / 4;
  char buf[32];
  for (std::uint64_t c : codes) {
    std::snprintf(buf, sizeof buf, "0x%0*llx\n", digits, static_cast<unsigned long long>(c));
    os << buf;
  }
}

}  // namespace minifloat::cli
