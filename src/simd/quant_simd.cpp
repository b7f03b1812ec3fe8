// SPDX-License-Identifier: Apache-2.0
// simd/quant_simd.cpp: the block quantizer's fast paths (see simd/quant_simd.hpp). The loops here
// are written branch-free over 32-bit lanes so that GCC vectorises them for the baseline target;
// the encoding itself is the Highway kernel of simd/convert-inl.h (run-time dispatch).
#include "simd/quant_simd.hpp"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/fp32_ops.hpp"

namespace minifloat::simd {
namespace {
std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float float_of(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
// The table key of simd/convert-inl.h (encode_key_scalar): sign, exponent, top M + 2 mantissa
// bits, sticky.
std::uint32_t key_of(std::uint32_t x, int drop) {
  return ((x >> drop) << 1) | ((x & ((std::uint32_t{1} << drop) - 1)) != 0 ? 1u : 0u);
}
}  // namespace

namespace {
QuantKernel make_quant_kernel(ElementType el, const EncodeTable* table) {
  QuantKernel k;
  k.table = table;
  for (std::size_t i = 0; i + 1 < k.table->entry.size(); ++i) {
    const unsigned e = k.table->entry[i];
    const std::uint8_t code = static_cast<std::uint8_t>(e);
    const Class c = classify(el.format, code);
    if (((e >> 8) & flag_overflow) != 0 && c != Class::inf && c != Class::nan) k.may_saturate[code] = 1;
  }
  const std::uint32_t ncodes = std::uint32_t{1} << el.format.bits;
  for (std::uint32_t c = 0; c < ncodes; ++c)
    k.is_zero[c] = element_value(el, static_cast<std::uint8_t>(c)) == 0.0 ? 1 : 0;
  return k;
}
std::mutex g_mutex;
std::map<const EncodeTable*, std::unique_ptr<QuantKernel>> g_kernels;  // tables live for the process
}  // namespace

const QuantKernel* quant_kernel(ElementType el, const RoundingSpec& spec, const Profile& prof) {
  if (el.kind != ElementKind::floating) return nullptr;
  const EncodeTable* t = encode_table(el.format, spec, prof);
  if (!t) return nullptr;
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto& slot = g_kernels[t];
  if (!slot) slot = std::make_unique<QuantKernel>(make_quant_kernel(el, t));
  return slot.get();
}

AbsMax absmax_f32(const float* x, std::size_t n) {
  std::uint32_t mx = 0, nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t a = bits_of(x[i]) & 0x7fffffffu;
    const std::uint32_t isnan = a > 0x7f800000u ? 1u : 0u;
    nan |= isnan;
    const std::uint32_t v = isnan ? 0u : a;
    mx = v > mx ? v : mx;
  }
  AbsMax r;
  r.amax = float_of(mx);
  r.nan = nan != 0;
  r.inf = mx == 0x7f800000u;
  return r;
}

bool scale_e8m0_exact(const float* x, std::size_t n, int e, float* y) {
  // 2^−e as a binary32 (2^−127 is the subnormal 0x00400000).
  const float s = e == 127 ? float_of(0x00400000u) : float_of(static_cast<std::uint32_t>(127 - e) << 23);
  std::uint32_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t xb = bits_of(x[i]), ax = xb & 0x7fffffffu;
    const float p = x[i] * s;
    const std::uint32_t pb = bits_of(p), ap = pb & 0x7fffffffu;
    const bool special = ax == 0 || ax >= 0x7f800000u;
    bad |= (!special && (ap < 0x00800000u || ap >= 0x7f800000u)) ? 1u : 0u;
    y[i] = float_of(ax >= 0x7f800000u ? xb : pb);
  }
  return bad == 0;
}

void scale_fp32(const float* x, std::size_t n, float s, ScaleOp op, float* y) {
  if (op == ScaleOp::divide)
    for (std::size_t i = 0; i < n; ++i) y[i] = fdiv_rn(x[i], s);
  else
    for (std::size_t i = 0; i < n; ++i) y[i] = fmul_rn(x[i], s);
}

RunCounts encode_run(const QuantKernel& k, const float* y, const float* x0, std::size_t n, std::uint8_t* codes) {
  RunCounts rc;
  if (n == 0) return rc;
  const unsigned flags = encode_f32(*k.table, y, codes, n);
  if ((flags & flag_overflow) != 0) {
    const std::uint16_t* t = k.table->entry.data();
    for (std::size_t i = 0; i < n; ++i)
      if (k.may_saturate[codes[i]] && ((t[key_of(bits_of(y[i]), k.table->drop)] >> 8) & flag_overflow) != 0)
        ++rc.saturated;
  }
  std::uint64_t fl = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t a = bits_of(x0[i]) & 0x7fffffffu;
    fl += (a != 0 && a < 0x7f800000u && k.is_zero[codes[i]]) ? 1u : 0u;
  }
  rc.flushed = fl;
  return rc;
}

}  // namespace minifloat::simd
