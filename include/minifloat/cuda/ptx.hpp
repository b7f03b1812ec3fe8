// SPDX-License-Identifier: Apache-2.0
// cuda/ptx.hpp: the hardware conversion path — one inline-PTX wrapper per PTX `cvt` form that converts
// to a ≤ 8-bit format (PTX ISA 9.0 §9.7.9.21; acceptance per target in ../shared/cuda-notes.md A1.1),
// and, for the host and for builds whose architecture lacks the instruction, its MODEL: the engine
// under profiles::nvidia with the instruction's rounding and overflow, then the .relu post-op.
//
// | HwCvt                          | PTX                                         | needs (CUDA 13 ptxas)              |
// |--------------------------------|---------------------------------------------|------------------------------------|
// | e4m3x2_f32_rn_satfinite        | cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b  | sm_89+                             |
// | e5m2x2_f32_rn_satfinite        | cvt.rn.satfinite{.relu}.e5m2x2.f32          | sm_89+                             |
// | e4m3x2_f16x2_rn_satfinite      | cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, ab  | sm_89+                             |
// | e5m2x2_f16x2_rn_satfinite      | cvt.rn.satfinite{.relu}.e5m2x2.f16x2        | sm_89+                             |
// | e2m1x2_f32_rn_satfinite        | cvt.rn.satfinite{.relu}.e2m1x2.f32 (d .b8)  | sm_100a/f, 103a, 110a, 120a/f      |
// | e2m3x2_f32_rn_satfinite        | cvt.rn.satfinite{.relu}.e2m3x2.f32          | same                               |
// | e3m2x2_f32_rn_satfinite        | cvt.rn.satfinite{.relu}.e3m2x2.f32          | same                               |
// | ue8m0x2_f32_rz{,_satfinite}    | cvt.rz{.satfinite}.ue8m0x2.f32              | same                               |
// | ue8m0x2_f32_rp{,_satfinite}    | cvt.rp{.satfinite}.ue8m0x2.f32              | same                               |
// | ue8m0x2_bf16x2_rp_satfinite    | cvt.rp.satfinite.ue8m0x2.bf16x2 d, ab       | same                               |
// `cvt.rs` (stochastic, sm_100a/sm_103a) is not offered: how it aligns `rbits` is not stated by the ISA
// text (cuda-notes A1.3), so it has no model to be checked against; the host API refuses Rounding::sr
// on the hardware path saying so.
//
// The model (= what the hardware must do, checked against NVIDIA's own host code in tests/cuda and
// against the hardware by minifloat_device_check): code = convert(source, x, target, {rounding,
// overflow}, profiles::nvidia): NaN → 0x7f for FP8 (sign and payload dropped), FP6/FP4 NaN → +max,
// e8m0 takes |x|. `.relu` (FP8/FP6/FP4 forms): a result with the sign bit set becomes +0 (0x00); a
// NaN result stays the canonical NaN (what -0 and tiny negatives give is device-check stage S0).
#pragma once
#include <cstdint>

#include "../core/bits.hpp"
#include "../core/convert.hpp"
#include "../core/format.hpp"
#include "../core/profile.hpp"
#include "../core/rounding.hpp"

// Which instructions this device compilation may emit (host compilation: none).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MINIFLOAT_HAS_PTX_FP8 1
#else
#define MINIFLOAT_HAS_PTX_FP8 0
#endif
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000 && \
    __CUDA_ARCH_FAMILY_SPECIFIC__ < 1300
#define MINIFLOAT_HAS_PTX_FP6_FP4_E8M0 1
#else
#define MINIFLOAT_HAS_PTX_FP6_FP4_E8M0 0
#endif

namespace minifloat::cuda {

/// One PTX cvt form of the hardware path (table above).
enum class HwCvt : std::uint8_t {
  e4m3x2_f32_rn_satfinite,
  e5m2x2_f32_rn_satfinite,
  e4m3x2_f16x2_rn_satfinite,
  e5m2x2_f16x2_rn_satfinite,
  e2m1x2_f32_rn_satfinite,
  e2m3x2_f32_rn_satfinite,
  e3m2x2_f32_rn_satfinite,
  ue8m0x2_f32_rz,
  ue8m0x2_f32_rz_satfinite,
  ue8m0x2_f32_rp,
  ue8m0x2_f32_rp_satfinite,
  ue8m0x2_bf16x2_rp_satfinite,
};
inline constexpr int kHwCvtCount = 12;

/// The .relu post-op of the FP8/FP6/FP4 forms (never a silent default: Relu::off is "no .relu").
enum class Relu : std::uint8_t { off, on };

/// Capability bits of a device binary (what hw_caps_kernel reports; host: 0).
enum HwCaps : unsigned {
  hw_caps_none = 0,
  hw_caps_fp8 = 1,           ///< the sm_89+ FP8 cvt forms
  hw_caps_fp6_fp4_e8m0 = 2,  ///< the sm_100a-family FP6/FP4/UE8M0 forms
};

/// The source format of `op` (f32, f16 or bf16).
MINIFLOAT_HOST_DEVICE constexpr Format hw_source(HwCvt op) noexcept {
  switch (op) {
    case HwCvt::e4m3x2_f16x2_rn_satfinite:
    case HwCvt::e5m2x2_f16x2_rn_satfinite: return formats::f16;
    case HwCvt::ue8m0x2_bf16x2_rp_satfinite: return formats::bf16;
    default: return formats::f32;
  }
}
/// The target format of `op`.
MINIFLOAT_HOST_DEVICE constexpr Format hw_target(HwCvt op) noexcept {
  switch (op) {
    case HwCvt::e4m3x2_f32_rn_satfinite:
    case HwCvt::e4m3x2_f16x2_rn_satfinite: return formats::e4m3fn;
    case HwCvt::e5m2x2_f32_rn_satfinite:
    case HwCvt::e5m2x2_f16x2_rn_satfinite: return formats::e5m2;
    case HwCvt::e2m1x2_f32_rn_satfinite: return formats::e2m1fn;
    case HwCvt::e2m3x2_f32_rn_satfinite: return formats::e2m3fn;
    case HwCvt::e3m2x2_f32_rn_satfinite: return formats::e3m2fn;
    default: return formats::e8m0fnu;
  }
}
/// The rounding and overflow of `op`.
MINIFLOAT_HOST_DEVICE constexpr RoundingSpec hw_spec(HwCvt op) noexcept {
  switch (op) {
    case HwCvt::ue8m0x2_f32_rz: return {Rounding::rtz, Overflow::nonsat};
    case HwCvt::ue8m0x2_f32_rz_satfinite: return {Rounding::rtz, Overflow::satfinite};
    case HwCvt::ue8m0x2_f32_rp: return {Rounding::rtp, Overflow::nonsat};
    case HwCvt::ue8m0x2_f32_rp_satfinite:
    case HwCvt::ue8m0x2_bf16x2_rp_satfinite: return {Rounding::rtp, Overflow::satfinite};
    default: return {Rounding::rne, Overflow::satfinite};
  }
}
/// The capability `op` needs.
MINIFLOAT_HOST_DEVICE constexpr HwCaps hw_needs(HwCvt op) noexcept {
  switch (op) {
    case HwCvt::e4m3x2_f32_rn_satfinite:
    case HwCvt::e5m2x2_f32_rn_satfinite:
    case HwCvt::e4m3x2_f16x2_rn_satfinite:
    case HwCvt::e5m2x2_f16x2_rn_satfinite: return hw_caps_fp8;
    default: return hw_caps_fp6_fp4_e8m0;
  }
}
/// Whether `op` has a .relu form (the FP8/FP6/FP4 ones; not UE8M0).
MINIFLOAT_HOST_DEVICE constexpr bool hw_has_relu(HwCvt op) noexcept { return hw_target(op) != formats::e8m0fnu; }

/// The capability bits of the code being compiled (device: per architecture; host: none).
MINIFLOAT_HOST_DEVICE constexpr unsigned compiled_hw_caps() noexcept {
  return (MINIFLOAT_HAS_PTX_FP8 ? hw_caps_fp8 : 0u) | (MINIFLOAT_HAS_PTX_FP6_FP4_E8M0 ? hw_caps_fp6_fp4_e8m0 : 0u);
}

/// The model of one element of `op` (source code `x` of hw_source(op)), .relu applied.
MINIFLOAT_HOST_DEVICE inline std::uint8_t model_cvt(HwCvt op, Relu relu, std::uint32_t x) noexcept {
  const Format to = hw_target(op);
  const RoundResult r = convert(hw_source(op), x, to, hw_spec(op), profiles::nvidia);
  std::uint64_t c = r.code;
  if (relu == Relu::on && hw_has_relu(op) && classify(to, c) != Class::nan && (c & sign_mask(to)) != 0) c = 0;
  return static_cast<std::uint8_t>(c);
}

namespace detail {
MINIFLOAT_HOST_DEVICE inline float f32_of(std::uint32_t b) noexcept { return minifloat::detail::bit_cast<float>(b); }
}  // namespace detail

/// One hardware cvt of the pair (a, b) → (code(a), code(b)): the PTX instruction on a device
/// compilation that has it, the model on the host. Returns false (codes untouched) on a device
/// compilation for an architecture without the instruction: never NVIDIA's software emulation.
MINIFLOAT_HOST_DEVICE inline bool cvt_pair(HwCvt op, Relu relu, std::uint32_t a, std::uint32_t b, std::uint8_t& ca,
                                           std::uint8_t& cb) noexcept {
#if !defined(__CUDA_ARCH__)
  ca = model_cvt(op, relu, a);
  cb = model_cvt(op, relu, b);
  return true;
#else
  unsigned short d = 0;
  const bool r = relu == Relu::on;
  switch (op) {
#if MINIFLOAT_HAS_PTX_FP8
    case HwCvt::e4m3x2_f32_rn_satfinite:
      if (r)
        asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      else asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::e5m2x2_f32_rn_satfinite:
      if (r)
        asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      else asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::e4m3x2_f16x2_rn_satfinite: {
      const unsigned ab = (a << 16) | (b & 0xffffu);  // upper half → high byte
      if (r) asm("cvt.rn.satfinite.relu.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(ab));
      else asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(ab));
      break;
    }
    case HwCvt::e5m2x2_f16x2_rn_satfinite: {
      const unsigned ab = (a << 16) | (b & 0xffffu);
      if (r) asm("cvt.rn.satfinite.relu.e5m2x2.f16x2 %0, %1;" : "=h"(d) : "r"(ab));
      else asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(d) : "r"(ab));
      break;
    }
#endif
#if MINIFLOAT_HAS_PTX_FP6_FP4_E8M0
    case HwCvt::e2m1x2_f32_rn_satfinite: {
      unsigned d32 = 0;  // the .b8 result, widened
      if (r)
        asm("{ .reg .b8 t; cvt.rn.satfinite.relu.e2m1x2.f32 t, %1, %2; cvt.u32.u8 %0, t; }"
            : "=r"(d32)
            : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      else
        asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u32.u8 %0, t; }"
            : "=r"(d32)
            : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      ca = static_cast<std::uint8_t>((d32 >> 4) & 0xf);
      cb = static_cast<std::uint8_t>(d32 & 0xf);
      return true;
    }
    case HwCvt::e2m3x2_f32_rn_satfinite:
      if (r)
        asm("cvt.rn.satfinite.relu.e2m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      else asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::e3m2x2_f32_rn_satfinite:
      if (r)
        asm("cvt.rn.satfinite.relu.e3m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      else asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::ue8m0x2_f32_rz:
      asm("cvt.rz.ue8m0x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::ue8m0x2_f32_rz_satfinite:
      asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::ue8m0x2_f32_rp:
      asm("cvt.rp.ue8m0x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::ue8m0x2_f32_rp_satfinite:
      asm("cvt.rp.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(d) : "f"(detail::f32_of(a)), "f"(detail::f32_of(b)));
      break;
    case HwCvt::ue8m0x2_bf16x2_rp_satfinite: {
      const unsigned ab = (a << 16) | (b & 0xffffu);
      asm("cvt.rp.satfinite.ue8m0x2.bf16x2 %0, %1;" : "=h"(d) : "r"(ab));
      break;
    }
#endif
    default: return false;
  }
  ca = static_cast<std::uint8_t>(d >> 8);
  cb = static_cast<std::uint8_t>(d & 0xff);
  return true;
#endif
}

}  // namespace minifloat::cuda
