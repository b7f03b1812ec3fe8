// SPDX-License-Identifier: Apache-2.0
// api.cpp: request validation of the CUDA kernels and the CPU launcher API (cuda/api.hpp).
#include "minifloat/cuda/api.hpp"

#include <string>

#include "minifloat/cuda/launch_cpu.hpp"
#include "minifloat/convert_array.hpp"
#include "minifloat/error.hpp"
#include "minifloat/cuda/names.hpp"
#include "minifloat/registry.hpp"

namespace minifloat::cuda {
namespace {

bool is_ieee_source(Format f) {
  return f == formats::f64 || f == formats::f32 || f == formats::f16 || f == formats::bf16;
}
bool is_decode_target(Format f) { return f == formats::f32 || f == formats::f16 || f == formats::bf16; }

[[noreturn]] void refuse(const std::string& msg) { throw Error("cuda: " + msg); }

void validate_common(const ConvertRequest& r) {
  if (validate(r.from) != FormatError::ok) refuse("invalid source format " + format_name(r.from));
  if (validate(r.to) != FormatError::ok) refuse("invalid target format " + format_name(r.to));
  if (r.spec.rounding == Rounding::sr &&
      (r.spec.sr_variant == SrVariant::a || r.spec.sr_variant == SrVariant::b || r.spec.sr_variant == SrVariant::c ||
       r.spec.sr_variant == SrVariant::stochastic_odd) &&
      !sr_bits_problem(r.spec.sr_bits).empty())
    refuse("sr_bits " + sr_bits_problem(r.spec.sr_bits) + " (sr_words(spec) 32-bit cuRAND words per element)");
}

HwCvt pick_hardware(const ConvertRequest& r) {
  const std::string conv = format_name(r.from) + " -> " + format_name(r.to);
  if (!(r.profile == profiles::nvidia))
    refuse("the hardware path follows profile nvidia (what the PTX cvt instructions do); got profile " +
           std::string(profile_name(r.profile)) + "; use Path::engine for other profiles");
  if (r.spec.rounding == Rounding::sr)
    refuse(
        "hardware path: cvt.rs (stochastic, sm_100a/sm_103a) is not offered: its rbits alignment is unspecified "
        "(cuda-notes A1.3); use Path::engine for Rounding::sr");
  if (r.spec.ftz || r.spec.daz)
    refuse("hardware path: the PTX cvt instructions keep subnormals; use Path::engine for ftz/daz (RoundingSpec)");
  HwCvt op{};
  bool found = false;
  const Format to = r.to;
  if (to == formats::e4m3fn || to == formats::e5m2) {
    const bool e4 = to == formats::e4m3fn;
    if (r.from == formats::f32) op = e4 ? HwCvt::e4m3x2_f32_rn_satfinite : HwCvt::e5m2x2_f32_rn_satfinite, found = true;
    else if (r.from == formats::f16)
      op = e4 ? HwCvt::e4m3x2_f16x2_rn_satfinite : HwCvt::e5m2x2_f16x2_rn_satfinite, found = true;
  } else if (r.from == formats::f32 && to == formats::e2m1fn) {
    op = HwCvt::e2m1x2_f32_rn_satfinite, found = true;
  } else if (r.from == formats::f32 && to == formats::e2m3fn) {
    op = HwCvt::e2m3x2_f32_rn_satfinite, found = true;
  } else if (r.from == formats::f32 && to == formats::e3m2fn) {
    op = HwCvt::e3m2x2_f32_rn_satfinite, found = true;
  } else if (to == formats::e8m0fnu && (r.from == formats::f32 || r.from == formats::bf16)) {
    const bool sat = r.spec.overflow == Overflow::satfinite;
    if (r.from == formats::bf16) {
      if (r.spec.rounding != Rounding::rtp || !sat)
        refuse("hardware path: bf16 -> e8m0fnu is cvt.rp.satfinite.ue8m0x2.bf16x2 only; accepted: rtp satfinite");
      op = HwCvt::ue8m0x2_bf16x2_rp_satfinite;
    } else if (r.spec.rounding == Rounding::rtz) {
      op = sat ? HwCvt::ue8m0x2_f32_rz_satfinite : HwCvt::ue8m0x2_f32_rz;
    } else if (r.spec.rounding == Rounding::rtp) {
      op = sat ? HwCvt::ue8m0x2_f32_rp_satfinite : HwCvt::ue8m0x2_f32_rp;
    } else {
      refuse("hardware path: cvt.{rz,rp}.ue8m0x2.f32 has no " + std::string(rounding_name(r.spec.rounding)) +
             "; accepted: rtz rtp");
    }
    if (r.spec.overflow == Overflow::satpropagate)
      refuse("hardware path: " + std::string(ptx_name(op)) + " has no satpropagate; accepted: nonsat satfinite");
    found = true;
  }
  if (!found)
    refuse(
        "hardware path: no PTX cvt converts " + conv +
        "; hardware forms: f32|f16 -> e4m3fn|e5m2, f32 -> e2m1fn|e2m3fn|e3m2fn, f32|bf16 -> e8m0fnu; use Path::engine");
  if (to != formats::e8m0fnu) {
    if (r.spec.rounding != Rounding::rne)
      refuse("hardware path: " + std::string(ptx_name(op)) + " has no " + std::string(rounding_name(r.spec.rounding)) +
             "; accepted: rne");
    if (r.spec.overflow != Overflow::satfinite)
      refuse("hardware path: " + std::string(ptx_name(op)) + " has no " + std::string(overflow_name(r.spec.overflow)) +
             " (the FP8/FP6/FP4 forms are .satfinite only); accepted: satfinite");
  }
  if (r.relu == Relu::on && !hw_has_relu(op))
    refuse("hardware path: " + std::string(ptx_name(op)) + " has no .relu form; accepted: Relu::off");
  return op;
}

}  // namespace

void validate(const ConvertRequest& r) {
  validate_common(r);
  if (r.path == Path::hardware) {
    (void)pick_hardware(r);
    return;
  }
  if (r.relu == Relu::on) refuse("Relu::on is the hardware path's .relu post-op; the engine path has none");
  const bool convert_ok = is_ieee_source(r.from) && r.to.bits <= 16;
  const bool decode_ok = r.from.bits <= 16 && is_decode_target(r.to);
  if (!convert_ok && !decode_ok)
    refuse("engine path: " + format_name(r.from) + " -> " + format_name(r.to) +
           " not offered; accepted: f64|f32|f16|bf16 -> any format of at most 16 bits, or any format of at most 16 "
           "bits -> f32|f16|bf16");
}

HwCvt hardware_cvt(const ConvertRequest& r) {
  validate_common(r);
  if (r.path != Path::hardware) refuse("hardware_cvt needs Path::hardware");
  return pick_hardware(r);
}

std::string_view ptx_name(HwCvt op) noexcept { return name(op); }  // the registry holds the PTX spellings

std::string_view hw_architectures(HwCvt op) noexcept {
  return hw_needs(op) == hw_caps_fp8 ? "sm_89+" : "sm_100a/sm_100f/sm_103a/sm_110a/sm_120a/sm_120f";
}

namespace cpu {

void convert(const void* in, void* out, std::uint8_t* flags, std::size_t n, const ConvertRequest& r, unsigned threads) {
  if (r.path == Path::hardware) {
    const HwCvt op = hardware_cvt(r);
    if (flags) refuse("hardware path: the cvt instructions give no flags; pass flags = nullptr");
    HardwareBody b{in, static_cast<std::uint8_t*>(out), n, op, r.relu, nullptr};
    launch_cpu(b, (n + 1) / 2, threads);
    return;
  }
  validate(r);
  ConvertBody b{in, r.from, out, r.to, r.spec, r.profile, r.sr, flags};
  launch_cpu(b, n, threads);
}

void sweep_chunk_digests(Format to, RoundingSpec spec, Profile prof, SweepSampling sampling, std::uint64_t stride,
                         std::uint64_t* out, unsigned threads) {
  if (sampling == SweepSampling::strided && (stride == 0 || stride > (std::uint64_t{1} << 32)))
    refuse("sweep stride " + std::to_string(stride) + " out of range; accepted: 1..2^32");
  if (to.bits > 8) refuse("the sweep digests ≤ 8-bit targets (one code byte per input); got " + format_name(to));
  SweepChunkBody b{to, spec, prof, sampling, stride, out};
  launch_cpu(b, sweep_chunks(sampling, stride), threads);
}

}  // namespace cpu
}  // namespace minifloat::cuda
