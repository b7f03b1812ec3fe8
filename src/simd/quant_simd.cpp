// SPDX-License-Identifier: Apache-2.0
// simd/quant_simd.cpp: the block quantizer's fast paths (see simd/quant_simd.hpp). It compiles
// simd/quant-inl.h once per Highway target (foreach_target.h) and exports its kernel for
// run-time dispatch (the arithmetic rne elements, QuantRne). The other loops here are written
// branch-free over 32-bit lanes so that GCC vectorises them for the baseline target; their encoding
// is a lookup in the engine-built QuantKernel table (one scalar load per element).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/quant-inl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/quant-inl.h"

#if HWY_ONCE
#include "simd/quant_simd.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "minifloat/core/convert.hpp"
#include "minifloat/core/fp32_ops.hpp"

namespace minifloat::simd {

HWY_EXPORT(EncodeBlocksRne);
HWY_EXPORT(AbsmaxBlocks);
HWY_EXPORT(AbsmaxColumns);
HWY_EXPORT(FusedRowsRne);
HWY_EXPORT(ErrorSums8F64);
HWY_EXPORT(ErrorSums8F32);
HWY_EXPORT(DequantizeRunF64);
HWY_EXPORT(DequantizeRunF32);
HWY_EXPORT(EncodeBlocksInt8);
HWY_EXPORT(FusedRowsInt8);
HWY_EXPORT(FusedRows4over6);

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
}  // namespace

namespace {
// QuantRne of kernel k (its entries built from table t), or kind none unless the entries show the
// rules the arithmetic kernel counts by (quant_simd.hpp, QuantRne).
QuantRne quant_rne_for(ElementType el, const EncodeTable& t, const QuantKernel& k) {
  QuantRne r;
  const RneKind kind = t.rne.kind;
  if (kind == RneKind::none || kind == RneKind::e8m0fnu) return r;
  const Format f = el.format;
  const std::uint32_t sign_bit = std::uint32_t{1} << (f.bits - 1);
  for (std::uint32_t c = 0; c < (std::uint32_t{1} << f.bits); ++c)
    if ((element_value(el, static_cast<std::uint8_t>(c)) == 0.0) != ((c & ~sign_bit) == 0)) return r;
  const int M = f.mantissa_bits;
  const std::uint32_t finite_keys = encode_finite_keys(M), neg_keys = encode_sign_key(M);
  const std::uint32_t first_ovf = encode_key(t.rne.ovf_min, t.drop);
  const unsigned sat_on = (k.entry[first_ovf] >> 8) & 1u;
  for (std::uint32_t key = 0; key < finite_keys; ++key) {
    const unsigned expect = key >= first_ovf ? sat_on : 0u;
    if (((k.entry[key] >> 8) & 1u) != expect || ((k.entry[key | neg_keys] >> 8) & 1u) != expect) return r;
  }
  r.kind = kind;
  r.max_code = t.rne.max_code;
  r.ovf_min = t.rne.ovf_min;
  r.sat_on_overflow = sat_on != 0;
  return r;
}

QuantKernel make_quant_kernel(ElementType el, const EncodeTable* table) {
  QuantKernel k;
  k.key = KeyKind::top_bits;
  k.drop = table->drop;
  const std::uint32_t ncodes = std::uint32_t{1} << el.format.bits;
  std::array<std::uint16_t, 256> zero{}, finite_class{};
  for (std::uint32_t c = 0; c < ncodes; ++c) {
    zero[c] = element_value(el, static_cast<std::uint8_t>(c)) == 0.0 ? 1 : 0;
    const Class cl = classify(el.format, c);
    finite_class[c] = cl != Class::inf && cl != Class::nan ? 1 : 0;
  }
  k.entry.resize(table->entry.size());
  for (std::size_t i = 0; i < table->entry.size(); ++i) {
    const unsigned e = table->entry[i];
    const std::uint8_t code = static_cast<std::uint8_t>(e);
    const unsigned sat = ((e >> 8) & flag_overflow) != 0 && finite_class[code] ? 1u : 0u;
    k.entry[i] = static_cast<std::uint16_t>(code | sat << 8 | unsigned{zero[code]} << 9);
  }
  k.table = table;
  k.rne = quant_rne_for(el, *table, k);
  return k;
}
// KeyKind::mxint8 (quant_simd.hpp): 2 signs × 14 exponent classes × 256 × 2.
constexpr std::uint32_t kInt8Keys = 2 * 14 * 512;
// QuantInt8 of the MXINT8 table k (quant_simd.hpp): on when Int8Lane's rule (simd/quant-inl.h), written here for
// one lane, gives the entry of every key at its representative (the NaN class, c = 13, is the table's).
QuantInt8 quant_int8_for(const QuantKernel& k, Mxint8Min mn) {
  QuantInt8 q;
  q.neg_limit = mn == Mxint8Min::symmetric ? 127u : 128u;
  for (std::uint32_t key = 0; key < kInt8Keys; ++key) {
    const std::uint32_t sign = key / (14 * 512), c = (key >> 9) % 14, m8 = (key >> 1) & 0xffu, sticky = key & 1u;
    if (c == 13) continue;
    const std::uint32_t e = c == 0 ? 0u : c + 117;
    const std::uint32_t ay = e << 23 | m8 << 15 | sticky;
    const std::uint32_t kk = bits_of(float_of(std::min(ay, 0x40800000u)) + 131072.0f) - 0x48000000u;
    const std::uint32_t lim = sign != 0 ? q.neg_limit : 127u, kc = std::min(kk, lim);
    const std::uint32_t code = (sign != 0 ? 0u - kc : kc) & 0xffu;
    const unsigned want = code | (kk > lim ? 1u : 0u) << 8 | (kc == 0 ? 1u : 0u) << 9;
    if (k.entry[key] != want) return q;
  }
  q.on = true;
  return q;
}
QuantKernel make_int8_kernel(ElementType el, const RoundingSpec& spec, const Profile& prof, Mxint8Min mn) {
  QuantKernel k;
  k.key = KeyKind::mxint8;
  k.entry.resize(kInt8Keys);
  for (std::uint32_t key = 0; key < kInt8Keys; ++key) {
    const std::uint32_t sign = key / (14 * 512), c = (key >> 9) % 14, m8 = (key >> 1) & 0xffu, sticky = key & 1u;
    const std::uint32_t e = c == 0 ? 0u : (c == 13 ? 255u : c + 117);
    const std::uint32_t y = sign << 31 | e << 23 | m8 << 15 | sticky;
    const ElementResult r = quantize_element(el, detail::exact_f32(float_of(y)), 0, spec, prof, 0, mn);
    k.entry[key] = static_cast<std::uint16_t>(r.code | (r.saturated ? 1u : 0u) << 8 |
                                              (element_value(el, r.code) == 0.0 ? 1u : 0u) << 9);
  }
  if (spec.rounding == Rounding::rne) k.int8 = quant_int8_for(k, mn);
  return k;
}
std::mutex g_mutex;
std::map<const EncodeTable*, std::unique_ptr<QuantKernel>> g_kernels;  // tables live for the process
std::array<std::unique_ptr<QuantKernel>, kModes.size() * kPolicies.size() * kProfiles.size() * 2>
    g_int8_kernels;  // mode × overflow × profile × Mxint8Min

// absmax_blocks' per-thread buffer of block maxima (the fused quantizer calls it once per row)
std::vector<std::uint32_t>& absmax_scratch() {
  thread_local std::vector<std::uint32_t> v;
  return v;
}

inline AbsMax absmax_inline(const float* x, std::size_t n) {
  std::uint32_t mx = 0, nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t a = bits_of(x[i]) & 0x7fffffffu;
    const std::uint32_t isnan = a > 0x7f800000u ? 1u : 0u;
    nan |= isnan;
    const std::uint32_t v = isnan ? 0u : a;
    mx = v > mx ? v : mx;
  }
  return absmax_from_bits(mx, nan != 0);
}

constexpr std::size_t kChunk = 256;              // keys per lookup pass (stack buffer)
constexpr std::uint32_t kNonzero = 0x80000000u;  // key bit 31: the source is finite and nonzero

// The table index of the scaled value y (KeyKind, quant_simd.hpp).
template <KeyKind K>
inline std::uint32_t key_of(std::uint32_t y, int drop) {
  if constexpr (K == KeyKind::top_bits) {
    return encode_key(y, drop);
  } else {
    const std::uint32_t a = y & 0x7fffffffu, sign = y >> 31;
    const std::uint32_t r = a == 0             ? 0u
                            : a < 0x3b800000u  ? 0x3b000000u  // 0 < |y| < 2^-8 -> 2^-9
                            : a > 0x7f800000u  ? 0x7fc00000u  // NaN
                            : a >= 0x40800000u ? 0x40800000u  // |y| >= 4, Inf -> 4
                                               : a;
    const std::int32_t e = static_cast<std::int32_t>(r >> 23) - 117;
    const std::uint32_t c = static_cast<std::uint32_t>(e < 0 ? 0 : (e > 13 ? 13 : e));
    return ((sign * 14 + c) << 9) | (((r >> 15) & 0xffu) << 1) | ((r & 0x7fffu) != 0 ? 1u : 0u);
  }
}
// Keys (with kNonzero) of y = x·s over [0, m); branch-free so that GCC vectorises each loop.
// Returns whether some product was not exact (e8m0_exact only).
template <KeyKind K>
inline bool keys_e8m0(const float* x, std::size_t m, float s, int drop, std::uint32_t* key) {
  std::uint32_t bad = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint32_t xb = bits_of(x[i]), ax = xb & 0x7fffffffu;
    const std::uint32_t pb = bits_of(x[i] * s), ap = pb & 0x7fffffffu;
    const std::uint32_t special = (ax == 0 || ax >= 0x7f800000u) ? 1u : 0u;
    bad |= (special == 0 && (ap < 0x00800000u || ap >= 0x7f800000u)) ? 1u : 0u;
    const std::uint32_t y = ax >= 0x7f800000u ? xb : pb;
    key[i] = key_of<K>(y, drop) | (special == 0 ? kNonzero : 0u);
  }
  return bad != 0;
}
template <KeyKind K, bool Divide>
inline void keys_fp32(const float* x, std::size_t m, float s, int drop, std::uint32_t* key) {
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint32_t ax = bits_of(x[i]) & 0x7fffffffu;
    const std::uint32_t y = bits_of(Divide ? fdiv_rn(x[i], s) : fmul_rn(x[i], s));
    key[i] = key_of<K>(y, drop) | ((ax != 0 && ax < 0x7f800000u) ? kNonzero : 0u);
  }
}
inline void lookup(const std::uint16_t* t, const std::uint32_t* key, std::size_t m, std::uint8_t* codes,
                   RunCounts& rc) {
  std::uint64_t sat = 0, fl = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint32_t k = key[i];
    const unsigned e = t[k & ~kNonzero];
    codes[i] = static_cast<std::uint8_t>(e);
    sat += (e >> 8) & 1u;
    fl += (e >> 9) & (k >> 31);
  }
  rc.saturated += sat;
  rc.flushed += fl;
}
}  // namespace

namespace {
// E8m0ExpTable of (rule, el) from the engine's e8m0_exponent (quant_simd.hpp), or false when a binade is
// not a step of at most 1.
bool build_e8m0_exp_table(ScaleRule rule, ElementType el, E8m0ExpTable& t) {
  const auto f = [&](std::uint32_t bits) { return e8m0_exponent(rule, float_of(bits), el); };
  for (std::uint32_t E = 1; E <= 254; ++E) {
    const std::uint32_t b0 = E << 23, b1 = b0 | 0x7fffffu;
    const int lo = f(b0), hi = f(b1);
    if (hi != lo && hi != lo + 1) return false;
    t.lo[E] = static_cast<std::int16_t>(lo);
    t.hi[E] = static_cast<std::int16_t>(hi);
    if (hi == lo) {
      t.thr[E] = 0xffffffffu;
      continue;
    }
    std::uint32_t a = b0, b = b1;  // f(a) = lo, f(b) = hi: the first bits with hi, by bisection
    while (b - a > 1) {
      const std::uint32_t mid = a + (b - a) / 2;
      (f(mid) == lo ? a : b) = mid;
    }
    t.thr[E] = b;
  }
  t.thr[0] = t.thr[255] = 0xffffffffu;  // never read: plain blocks have a normal amax
  return true;
}
std::vector<std::pair<std::pair<ScaleRule, ElementType>, std::unique_ptr<E8m0ExpTable>>> g_exp_tables;
}  // namespace

const E8m0ExpTable* e8m0_exp_table(ScaleRule rule, ElementType el) {
  if (!is_e8m0_rule(rule)) return nullptr;
  const std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& [key, table] : g_exp_tables)
    if (key.first == rule && key.second == el) return table.get();
  auto t = std::make_unique<E8m0ExpTable>();
  if (!build_e8m0_exp_table(rule, el, *t)) t.reset();
  g_exp_tables.emplace_back(std::make_pair(rule, el), std::move(t));
  return g_exp_tables.back().second.get();
}

bool rne_elements_run(const QuantKernel& k) {
  if (k.key == KeyKind::mxint8) return k.int8.on && fpu_default_rounding();
  return k.rne.kind != RneKind::none && rne_kernel_runs(*k.table);
}

RunCounts fused_rows_rne(const QuantKernel& k, const FusedScale& fs, const float* x, std::size_t n,
                         std::size_t readable, std::size_t first, std::size_t bs, std::uint8_t* scale_codes,
                         std::size_t scale_stride, std::uint8_t* codes, std::uint8_t* status) {
  if (k.key == KeyKind::mxint8)
    return HWY_DYNAMIC_DISPATCH(FusedRowsInt8)(k.int8, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes,
                                               status);
  return HWY_DYNAMIC_DISPATCH(FusedRowsRne)(k.rne, fs, x, n, readable, first, bs, scale_codes, scale_stride, codes,
                                            status);
}

const QuantKernel* quant_kernel(ElementType el, const RoundingSpec& spec, const Profile& prof, Mxint8Min mn) {
  if (spec.ftz || spec.daz) return nullptr;  // the kernels hold the engine's results without them
  if (el.kind == ElementKind::int8) {
    if (index_of(kModes, spec.rounding) < 0 || index_of(kPolicies, spec.overflow) < 0 || index_of(kProfiles, prof) < 0)
      return nullptr;
    const int slot_index =
        ((index_of(kModes, spec.rounding) * static_cast<int>(kPolicies.size()) + index_of(kPolicies, spec.overflow)) *
             static_cast<int>(kProfiles.size()) +
         index_of(kProfiles, prof)) *
            2 +
        (mn == Mxint8Min::symmetric ? 1 : 0);
    const std::lock_guard<std::mutex> lock(g_mutex);
    auto& slot = g_int8_kernels[static_cast<std::size_t>(slot_index)];
    if (!slot) slot = std::make_unique<QuantKernel>(make_int8_kernel(el, spec, prof, mn));
    return slot.get();
  }
  if (el.kind != ElementKind::floating) return nullptr;
  const EncodeTable* t = encode_table(el.format, spec, prof);
  if (!t) return nullptr;
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto& slot = g_kernels[t];
  if (!slot) slot = std::make_unique<QuantKernel>(make_quant_kernel(el, t));
  return slot.get();
}

std::size_t absmax_blocks(const float* x, std::size_t n, std::size_t first, std::size_t bs, AbsMax* out) {
  if (n == 0) {
    out[0] = AbsMax{};
    return 1;
  }
  // the magnitude bits' max per block in vectors (quant-inl.h); a block holding a NaN again here
  std::vector<std::uint32_t>& mx = absmax_scratch();
  const std::size_t nb = block_count(n, first, bs);
  mx.resize(nb);
  HWY_DYNAMIC_DISPATCH(AbsmaxBlocks)(x, n, first, bs, mx.data());
  for (std::size_t j = 0; j < nb; ++j) {
    if (mx[j] > 0x7f800000u) {
      out[j] = absmax_inline(x + block_start(j, first, bs), block_length(j, n, first, bs));
      continue;
    }
    out[j] = absmax_from_bits(mx[j], false);
  }
  return nb;
}

void absmax_columns(const float* x, std::size_t n, std::uint32_t* acc, std::uint32_t* nan) {
  HWY_DYNAMIC_DISPATCH(AbsmaxColumns)(x, n, acc, nan);
}
AbsMax absmax_from_bits(std::uint32_t amax_bits, bool nan) {
  AbsMax r;
  r.amax = float_of(amax_bits);
  r.nan = nan;
  r.inf = amax_bits == 0x7f800000u;
  return r;
}

const EncodeTable* nvfp4_scale_table() {
  static const EncodeTable* const t =
      encode_table(formats::e4m3fn, {Rounding::rne, Overflow::satfinite}, profiles::ocp);
  return t;
}

const float* e4m3fn_values() {
  static const std::array<float, 256> v = [] {
    std::array<float, 256> t{};
    for (unsigned c = 0; c < 256; ++c) t[c] = to_float(formats::e4m3fn, c);
    return t;
  }();
  return v.data();
}

RunCounts fused_rows_4over6(const QuantKernel& k, const FourOverSixRows& fs, const float* x, std::size_t n,
                            std::size_t readable, std::size_t first, std::size_t bs, std::uint8_t* scale_codes,
                            std::uint8_t* select, std::uint8_t* codes, std::uint8_t* status) {
  return HWY_DYNAMIC_DISPATCH(FusedRows4over6)(k.rne, fs, x, n, readable, first, bs, scale_codes, select, codes,
                                               status);
}

std::uint8_t nvfp4_block_scale_code_table(float amax, float s_enc, float elem_max) {
  return nvfp4_scale_code(*nvfp4_scale_table(), amax, fmul_rn(s_enc, frcp_rn(elem_max)));
}

namespace {
template <KeyKind K>
RunCounts encode_blocks_of(const QuantKernel& k, const float* x, std::size_t n, std::size_t first, std::size_t bs,
                           const RowBlock* blocks, std::uint8_t* codes, std::uint8_t* fallback) {
  RunCounts rc;
  alignas(64) std::uint32_t key[kChunk];
  const int drop = k.drop;
  const std::uint16_t* t = k.entry.data();
  std::size_t j = 0;
  for (std::size_t s = 0, len = first; s < n; s += len, len = bs, ++j) {
    const std::size_t end = std::min(s + len, n);
    const RowBlock b = blocks[j];
    fallback[j] = b.op == BlockOp::skip ? 1 : 0;
    if (b.op == BlockOp::skip) continue;
    RunCounts local;
    bool bad = false;
    for (std::size_t c = s; c < end && !bad; c += kChunk) {
      const std::size_t m = std::min(kChunk, end - c);
      switch (b.op) {
        case BlockOp::e8m0_exact: bad = keys_e8m0<K>(x + c, m, b.s, drop, key); break;
        case BlockOp::multiply: keys_fp32<K, false>(x + c, m, b.s, drop, key); break;
        default: keys_fp32<K, true>(x + c, m, b.s, drop, key); break;
      }
      if (!bad) lookup(t, key, m, codes + c, local);
    }
    if (bad) {
      fallback[j] = 1;
      continue;
    }
    rc.saturated += local.saturated;
    rc.flushed += local.flushed;
  }
  return rc;
}
}  // namespace

namespace {
// status 2 of the arithmetic kernels (quant-inl.h): a block with a non-finite x or y, redone by the table path
template <KeyKind K>
void redo_status2(const QuantKernel& k, const float* x, std::size_t n, std::size_t first, std::size_t bs,
                  const RowBlock* blocks, std::uint8_t* codes, std::uint8_t* fallback, RunCounts& rc) {
  const std::size_t nb = block_count(n, first, bs);
  for (auto* p = static_cast<std::uint8_t*>(std::memchr(fallback, 2, nb)); p != nullptr;
       p = static_cast<std::uint8_t*>(std::memchr(p + 1, 2, nb - static_cast<std::size_t>(p + 1 - fallback)))) {
    const std::size_t j = static_cast<std::size_t>(p - fallback), s = block_start(j, first, bs);
    const std::size_t m = block_length(j, n, first, bs);
    const RunCounts b = encode_blocks_of<K>(k, x + s, m, m, m, blocks + j, codes + s, p);
    rc.saturated += b.saturated;
    rc.flushed += b.flushed;
  }
}
}  // namespace

RunCounts encode_blocks(const QuantKernel& k, const float* x, std::size_t n, std::size_t first, std::size_t bs,
                        const RowBlock* blocks, std::uint8_t* codes, std::uint8_t* fallback) {
  if (k.key == KeyKind::mxint8) {
    if ((bs == 1 && first == 1) || !rne_elements_run(k))  // column tiles: the table
      return encode_blocks_of<KeyKind::mxint8>(k, x, n, first, bs, blocks, codes, fallback);
    RunCounts rc = HWY_DYNAMIC_DISPATCH(EncodeBlocksInt8)(k.int8, x, n, first, bs, blocks, codes, fallback);
    redo_status2<KeyKind::mxint8>(k, x, n, first, bs, blocks, codes, fallback, rc);
    return rc;
  }
  if (!rne_elements_run(k)) return encode_blocks_of<KeyKind::top_bits>(k, x, n, first, bs, blocks, codes, fallback);
  RunCounts rc = HWY_DYNAMIC_DISPATCH(EncodeBlocksRne)(k.rne, x, n, first, bs, blocks, codes, fallback);
  redo_status2<KeyKind::top_bits>(k, x, n, first, bs, blocks, codes, fallback, rc);
  return rc;
}

bool error_sums8(const double* x, const double* q, std::size_t m, double* sig, double* noi, double& mx) {
  return HWY_DYNAMIC_DISPATCH(ErrorSums8F64)(x, q, m, sig, noi, &mx);
}
bool error_sums8(const float* x, const double* q, std::size_t m, double* sig, double* noi, double& mx) {
  return HWY_DYNAMIC_DISPATCH(ErrorSums8F32)(x, q, m, sig, noi, &mx);
}
void dequantize_run(const std::uint8_t* codes, std::size_t n, const double* lut, double s, double* out) {
  HWY_DYNAMIC_DISPATCH(DequantizeRunF64)(codes, n, lut, s, out);
}
void dequantize_run(const std::uint8_t* codes, std::size_t n, const double* lut, double s, float* out) {
  HWY_DYNAMIC_DISPATCH(DequantizeRunF32)(codes, n, lut, s, out);
}

}  // namespace minifloat::simd
#endif  // HWY_ONCE
