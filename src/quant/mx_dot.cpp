// SPDX-License-Identifier: Apache-2.0
// quant/mx_dot.cpp: the OCP MX dot product and GEMM (mx_dot.hpp), the stated order D14.
#include "minifloat/mx_dot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace minifloat {

namespace {
__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

// Element as integer · 2^q (q the element format's smallest quantum); false when not finite.
bool element_int(ElementType el, std::uint8_t code, std::int64_t& k, int& q) {
  if (el.kind == ElementKind::int8) {
    k = static_cast<std::int8_t>(code);
    q = -6;
    return true;
  }
  const Format f = el.format;
  q = emin(f) - f.mantissa_bits;
  const Unpacked u = unpack(f, code);
  if (u.cls == Class::nan || u.cls == Class::inf) return false;
  if (u.cls == Class::zero) {
    k = 0;
    return true;
  }
  const auto mag = static_cast<std::int64_t>(u.sig << (u.exp - q));
  k = u.negative ? -mag : mag;
  return true;
}

float round_to_f32(i128 s, int exp) {
  if (s == 0) return 0.0f;
  const bool neg = s < 0;
  const u128 m = neg ? static_cast<u128>(-s) : static_cast<u128>(s);
  detail::Wide w;
  w.w[0] = static_cast<std::uint64_t>(m);
  w.w[1] = static_cast<std::uint64_t>(m >> 64);
  const RoundResult r =
      round_pack(formats::f32, detail::wide_to_unpacked(neg, w, exp, false), {Rounding::rne, Overflow::nonsat});
  return detail::bit_cast<float>(static_cast<std::uint32_t>(r.code));
}

void check_mx(const QuantizedTensor& t, const char* which) {
  if (!is_e8m0_rule(t.rule) || t.axis != BlockAxis::last || t.block_rows != 1)
    throw Error(std::string("mx_dot: operand ") + which +
                " must be quantized with an E8M0 rule in 1×k blocks along the last axis");
}
}  // namespace

float mx_dot(const QuantizedTensor& a, std::size_t ra, const QuantizedTensor& b, std::size_t rb) {
  check_mx(a, "A");
  check_mx(b, "B");
  if (a.cols != b.cols || a.block_cols != b.block_cols)
    throw Error("mx_dot: operands differ in length or block size (" + std::to_string(a.cols) + "/" +
                std::to_string(a.block_cols) + " vs " + std::to_string(b.cols) + "/" + std::to_string(b.block_cols) +
                ")");
  if (ra >= a.rows || rb >= b.rows) throw Error("mx_dot: row index out of range");
  float acc = 0.0f;
  const std::size_t K = a.cols, bs = a.block_cols;
  for (std::size_t j = 0; j * bs < K; ++j) {
    const std::uint8_t xa = a.scale_codes[ra * a.scale_cols + j], xb = b.scale_codes[rb * b.scale_cols + j];
    float blockv;
    if (xa == 0xff || xb == 0xff) {
      blockv = std::numeric_limits<float>::quiet_NaN();
    } else {
      i128 s = 0;
      bool finite = true;
      int qa = 0, qb = 0;
      double dsum = 0;
      for (std::size_t c = j * bs; c < std::min(K, (j + 1) * bs); ++c) {
        std::int64_t ka, kb;
        const std::uint8_t ca = a.codes[ra * K + c], cb = b.codes[rb * K + c];
        if (!element_int(a.element, ca, ka, qa) || !element_int(b.element, cb, kb, qb)) finite = false;
        else s += static_cast<i128>(ka) * kb;
        dsum += element_value(a.element, ca) * element_value(b.element, cb);
      }
      if (!finite) blockv = static_cast<float>(dsum);  // NaN / ±Inf propagate
      else blockv = round_to_f32(s, qa + qb + (xa - 127) + (xb - 127));
    }
    acc = acc + blockv;
  }
  return acc;
}

std::vector<float> mx_gemm(const QuantizedTensor& a, const QuantizedTensor& b) {
  std::vector<float> c(a.rows * b.rows);
  for (std::size_t m = 0; m < a.rows; ++m)
    for (std::size_t n = 0; n < b.rows; ++n) c[m * b.rows + n] = mx_dot(a, m, b, n);
  return c;
}

}  // namespace minifloat
