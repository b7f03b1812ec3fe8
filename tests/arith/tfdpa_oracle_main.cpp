// SPDX-License-Identifier: Apache-2.0
// tfdpa_oracle_main.cpp: the MPFR oracle of tfdpa_oracle.cpp as a filter, so the Python tests
// (tests/python/test_dot.py, env MINIFLOAT_TFDPA_ORACLE) check mf.dot/mf.gemm against it. Includes no
// minifloat header. One dot product per input line, whitespace-separated:
//   RULE L F ZERO_EXP SCALE_BLOCK SUBBLOCK SCALE_FMT FA FB K C NB a_0..a_{K-1} b_0..b_{K-1} sa_0..sa_{NB-1}
//   sb_0..sb_{NB-1}
// RULE product|subblock; formats e4m3fn e5m2 e2m3fn e3m2fn e2m1fn e8m0fnu ue4m3; C the FP32 code; codes
// in decimal or 0x hex. Prints the FP32 code of the result (0x%08x) per line; exit 2 on a malformed line.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tfdpa_oracle.hpp"

namespace {

namespace ao = arith_oracle;

bool format_of(const std::string& s, ao::BsFormat& f) {
  const std::pair<const char*, ao::BsFormat> names[] = {
      {"e4m3fn", ao::BsFormat::e4m3fn}, {"e5m2", ao::BsFormat::e5m2},     {"e2m3fn", ao::BsFormat::e2m3fn},
      {"e3m2fn", ao::BsFormat::e3m2fn}, {"e2m1fn", ao::BsFormat::e2m1fn}, {"e8m0fnu", ao::BsFormat::e8m0fnu},
      {"ue4m3", ao::BsFormat::ue4m3}};
  for (const auto& [n, v] : names)
    if (s == n) {
      f = v;
      return true;
    }
  return false;
}

bool codes(std::istringstream& in, std::size_t n, std::vector<std::uint64_t>& out) {
  out.resize(n);
  for (auto& c : out) {
    std::string t;
    if (!(in >> t)) return false;
    c = std::stoull(t, nullptr, 0);
  }
  return true;
}

}  // namespace

int main() {
  std::string line;
  int number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    std::istringstream in(line);
    std::string rule, scale, fa, fb, c;
    ao::BsModel m{};
    ao::BsFormat a_fmt{}, b_fmt{};
    std::size_t k = 0, nb = 0;
    std::vector<std::uint64_t> a, b, sa, sb;
    if (!(in >> rule >> m.group >> m.frac_bits >> m.zero_exponent >> m.scale_block >> m.subblock >> scale >> fa >> fb >>
          k >> c >> nb) ||
        (rule != "product" && rule != "subblock") || !format_of(scale, m.scale) || !format_of(fa, a_fmt) ||
        !format_of(fb, b_fmt) || !codes(in, k, a) || !codes(in, k, b) || !codes(in, nb, sa) || !codes(in, nb, sb)) {
      std::cerr << "tfdpa_oracle: line " << number << " is malformed\n";
      return 2;
    }
    m.rule = rule == "product" ? ao::BsRule::per_product : ao::BsRule::per_subblock;
    const auto c32 = static_cast<std::uint32_t>(std::stoull(c, nullptr, 0));
    std::printf("0x%08x\n", ao::block_scaled_dot(m, a_fmt, a, b_fmt, b, sa, sb, c32));
  }
  return 0;
}
