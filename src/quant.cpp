// SPDX-License-Identifier: Apache-2.0
// quant.cpp: the tensor quantizers of quant.hpp (scheme table, tiling, special blocks, NVFP4 two-level
// scaling, TE delayed scaling), dequantization, error statistics and the OCP MX dot product / GEMM.
#include "minifloat/quant.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "minifloat/core/arith.hpp"
#include "minifloat/core/convert.hpp"
#include "minifloat/core/random.hpp"
#include "minifloat/registry.hpp"

namespace minifloat {
namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

const std::vector<Scheme>& schemes() {
  static const std::vector<Scheme> s = {
      {"mxfp8_e4m3", elements::e4m3fn, 1, 32, ScaleRule::ocp_floor, "OCP MX v1.0 MXFP8 (E4M3 elements, E8M0 scale, 32)"},
      {"mxfp8_e5m2", elements::e5m2, 1, 32, ScaleRule::ocp_floor, "OCP MX v1.0 MXFP8 (E5M2 elements, E8M0 scale, 32)"},
      {"mxfp6_e2m3", elements::e2m3fn, 1, 32, ScaleRule::ocp_floor, "OCP MX v1.0 MXFP6 (E2M3 elements, E8M0 scale, 32)"},
      {"mxfp6_e3m2", elements::e3m2fn, 1, 32, ScaleRule::ocp_floor, "OCP MX v1.0 MXFP6 (E3M2 elements, E8M0 scale, 32)"},
      {"mxfp4", elements::e2m1fn, 1, 32, ScaleRule::ocp_floor, "OCP MX v1.0 MXFP4 (E2M1 elements, E8M0 scale, 32)"},
      {"mxint8", elements::mxint8, 1, 32, ScaleRule::ocp_floor, "OCP MX v1.0 MXINT8 (int8·2^-6 elements, E8M0 scale, 32)"},
      {"nvfp4", elements::e2m1fn, 1, 16, ScaleRule::nvfp4, "NVIDIA NVFP4 (E2M1, E4M3 scale per 16, FP32 per tensor; TE order)"},
      {"fp8_tensor", elements::e4m3fn, 0, 0, ScaleRule::fp32_amax, "E4M3, one FP32 scale per tensor (TE current scaling)"},
      {"fp8_row", elements::e4m3fn, 1, 0, ScaleRule::fp32_amax, "E4M3, one FP32 scale per row (per token / output channel)"},
      {"fp8_channel", elements::e4m3fn, 0, 1, ScaleRule::fp32_amax, "E4M3, one FP32 scale per column (per channel)"},
      {"fp8_1x128", elements::e4m3fn, 1, 128, ScaleRule::fp32_amax, "E4M3, FP32 scale per 1x128 tile (DeepSeek-V3 activations)"},
      {"fp8_128x128", elements::e4m3fn, 128, 128, ScaleRule::fp32_amax, "E4M3, FP32 scale per 128x128 block (DeepSeek-V3 weights)"},
      {"fp8_1x128_ue8m0", elements::e4m3fn, 1, 128, ScaleRule::rceil, "E4M3, UE8M0 round-up scale per 1x128 tile (DeepSeek-V3.1, InfiR2)"},
      {"fp8_128x128_ue8m0", elements::e4m3fn, 128, 128, ScaleRule::rceil, "E4M3, UE8M0 round-up scale per 128x128 block (DeepSeek-V3.1, InfiR2)"},
  };
  return s;
}

const Scheme& find_scheme(std::string_view name) {
  for (const auto& s : schemes())
    if (iequal(s.name, name)) return s;
  std::string names;
  for (const auto& s : schemes()) {
    if (!names.empty()) names += ' ';
    names += s.name;
  }
  throw NameError("unknown scheme '" + std::string(name) + "'; accepted: " + names);
}

// ---- quantize -------------------------------------------------------------------------------

QuantizedTensor quantize(std::span<const float> x, const std::vector<std::size_t>& shape, const Scheme& scheme,
                         const QuantOptions& opt) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n != x.size())
    throw Error("quantize: " + std::to_string(x.size()) + " values do not match the shape (" + std::to_string(n) +
                " elements)");
  QuantizedTensor q;
  q.scheme = scheme.name;
  q.element = scheme.element;
  q.rule = opt.rule.value_or(scheme.default_rule);
  q.shape = shape;
  q.transposed = opt.along_first_axis;
  if (opt.element) {
    if (scheme.element.kind != ElementKind::floating || scheme.default_rule == ScaleRule::nvfp4)
      throw Error("quantize: scheme " + scheme.name + " has a fixed element type");
    if (opt.element->bits > 8 || validate(*opt.element) != FormatError::ok)
      throw Error("quantize: the element format must be a valid format of at most 8 bits");
    q.element.format = *opt.element;
  }
  const bool two_level = q.rule == ScaleRule::nvfp4;
  if (two_level != (scheme.default_rule == ScaleRule::nvfp4))
    throw Error("quantize: scale rule " + std::string(scale_rule_name(q.rule)) + " does not apply to scheme " +
                scheme.name + " (nvfp4 uses only the nvfp4 rule)");
  if (opt.rounding.rounding == Rounding::sr && (opt.rounding.sr_bits < 1 || opt.rounding.sr_bits > 32))
    throw Error("quantize: sr_bits must be 1..32");

  // The [rows, cols] view.
  std::size_t R = 1, C = 1;
  if (!shape.empty()) {
    if (opt.along_first_axis) {
      C = shape[0];
      R = C ? n / C : 0;
    } else {
      C = shape.back();
      R = C ? n / C : 0;
    }
  }
  if (n == 0) R = C = 0;
  q.rows = R;
  q.cols = C;
  q.block_rows = scheme.block_rows ? scheme.block_rows : std::max<std::size_t>(R, 1);
  q.block_cols = scheme.block_cols ? scheme.block_cols : std::max<std::size_t>(C, 1);
  q.scale_rows = (R + q.block_rows - 1) / q.block_rows;
  q.scale_cols = (C + q.block_cols - 1) / q.block_cols;
  const std::size_t ntiles = q.scale_rows * q.scale_cols;
  q.codes.assign(n, 0);
  const bool e8m0 = is_e8m0_rule(q.rule);
  if (e8m0 || two_level) q.scale_codes.assign(ntiles, 0);
  if (is_fp32_rule(q.rule)) q.scales.assign(ntiles, 1.0f);

  auto flat = [&](std::size_t r, std::size_t c) { return opt.along_first_axis ? c * R + r : r * C + c; };
  const ElementType el = q.element;
  const BlockPolicy& pol = opt.policy;
  const float emax_f = static_cast<float>(element_max(el));
  const std::uint8_t nan_code = element_nan_code(el, opt.profile);
  auto rbits_of = [&](std::size_t i) -> std::uint64_t {
    if (opt.rounding.rounding != Rounding::sr) return 0;
    return sr_bits(opt.sr_seed, opt.sr_stream, opt.sr_step, i, opt.rounding.sr_variant);
  };
  auto put = [&](std::size_t i, float xi, const ElementResult& er) {
    q.codes[i] = er.code;
    if (er.saturated) ++q.saturated;
    if (std::isfinite(xi) && xi != 0.0f && element_value(el, er.code) == 0.0) ++q.flushed;
  };

  if (two_level) {  // NVFP4 global scale: amax over the tensor, NaN ignored (fmaxf)
    float g = 0.0f;
    for (float v : x) g = std::fmax(g, std::fabs(v));
    q.tensor_encode_scale = nvfp4_global_encode_scale(g);
    q.tensor_decode_scale = 1.0f / q.tensor_encode_scale;
  }

  for (std::size_t ti = 0; ti < q.scale_rows; ++ti) {
    const std::size_t r0 = ti * q.block_rows, r1 = std::min(R, r0 + q.block_rows);
    for (std::size_t tj = 0; tj < q.scale_cols; ++tj) {
      const std::size_t c0 = tj * q.block_cols, c1 = std::min(C, c0 + q.block_cols);
      const std::size_t t = ti * q.scale_cols + tj;
      float amax = 0.0f;
      bool has_nan = false, has_inf = false;
      for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = c0; c < c1; ++c) {
          const float v = x[flat(r, c)];
          if (std::isnan(v)) has_nan = true;
          else {
            if (std::isinf(v)) has_inf = true;
            amax = std::max(amax, std::fabs(v));
          }
        }
      auto fill_nan_block = [&] {
        if (e8m0) q.scale_codes[t] = 0xff;
        if (two_level) q.scale_codes[t] = 0x7f;
        if (!q.scales.empty()) q.scales[t] = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t r = r0; r < r1; ++r)
          for (std::size_t c = c0; c < c1; ++c) q.codes[flat(r, c)] = nan_code;
      };
      if (has_nan && pol.nan == NanInBlock::whole_block_nan) {
        fill_nan_block();
        continue;
      }
      if (has_inf && pol.inf == InfInBlock::nan_scale) {
        fill_nan_block();
        continue;
      }
      if (std::isfinite(amax) && amax < pol.amax_epsilon) amax = pol.amax_epsilon;
      bool flush = false;
      if (amax > 0.0f && amax < std::numeric_limits<float>::min() && pol.subnormal == SubnormalAmax::flush_block) {
        flush = true;
        amax = 0.0f;
      }
      const bool zero = amax == 0.0f;
      if (zero && pol.zero == ZeroBlock::nan && !two_level) {
        if (e8m0) q.scale_codes[t] = 0xff;
        if (!q.scales.empty()) q.scales[t] = 0.0f;  // decode scale 0: y = 0/0
        for (std::size_t r = r0; r < r1; ++r)
          for (std::size_t c = c0; c < c1; ++c) q.codes[flat(r, c)] = nan_code;
        continue;
      }
      auto each = [&](auto&& fn) {
        for (std::size_t r = r0; r < r1; ++r)
          for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t i = flat(r, c);
            float v = x[i];
            if (flush && std::isfinite(v)) v = std::copysign(0.0f, v);
            ElementResult er = fn(v, i);
            put(i, x[i], er);
          }
      };
      if (e8m0) {
        int e;
        if (zero) e = pol.zero == ZeroBlock::unit_scale ? 0 : -127;
        else if (has_inf) e = 127;  // InfInBlock::max_scale
        else e = e8m0_exponent(q.rule, amax, el);
        q.scale_codes[t] = static_cast<std::uint8_t>(e + 127);
        each([&](float v, std::size_t i) {
          return quantize_element(el, v, e, opt.rounding, opt.profile, rbits_of(i), pol.mxint8_min);
        });
      } else if (two_level) {
        const std::uint8_t sc = nvfp4_block_scale_code(amax, q.tensor_encode_scale);
        q.scale_codes[t] = sc;
        const float enc = nvfp4_element_encode_scale(sc, q.tensor_encode_scale);
        each([&](float v, std::size_t i) {
          return quantize_element(el, v * enc, 0, opt.rounding, opt.profile, rbits_of(i), pol.mxint8_min);
        });
      } else {  // FP32 rules
        Fp32Scale s;
        if (!zero) s = fp32_scale(amax, emax_f, q.rule, 0.0f, pol.fp32_order);
        const bool divide = pol.fp32_order == Fp32ScaleOrder::divide && q.rule == ScaleRule::fp32_amax && !zero;
        q.scales[t] = s.decode;
        each([&](float v, std::size_t i) {
          const float y = divide ? v / s.decode : v * s.encode;
          return quantize_element(el, y, 0, opt.rounding, opt.profile, rbits_of(i), pol.mxint8_min);
        });
      }
    }
  }
  return q;
}

// ---- dequantize and statistics --------------------------------------------------------------

double block_scale_value(const QuantizedTensor& q, std::size_t t, ScaleFtz ftz) {
  if (is_e8m0_rule(q.rule)) return e8m0_value(q.scale_codes.at(t), ftz);
  if (q.rule == ScaleRule::nvfp4) {
    const double v = to_double(formats::e4m3fn, q.scale_codes.at(t)) * static_cast<double>(q.tensor_decode_scale);
    return (ftz == ScaleFtz::yes && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min())) ? 0.0 : v;
  }
  const double v = static_cast<double>(q.scales.at(t));
  return (ftz == ScaleFtz::yes && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min())) ? 0.0 : v;
}

std::vector<double> dequantize(const QuantizedTensor& q, ScaleFtz scale_ftz) {
  std::vector<double> out(q.codes.size());
  const std::size_t R = q.rows, C = q.cols;
  std::vector<double> sv(q.scale_rows * q.scale_cols);
  for (std::size_t t = 0; t < sv.size(); ++t) sv[t] = block_scale_value(q, t, scale_ftz);
  double lut[256];
  for (int c = 0; c < 256; ++c)
    lut[c] = (q.element.kind == ElementKind::floating && c >= (1 << q.element.format.bits))
                 ? 0.0
                 : element_value(q.element, static_cast<std::uint8_t>(c));
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      const std::size_t i = q.transposed ? c * R + r : r * C + c;
      const std::size_t t = (r / q.block_rows) * q.scale_cols + c / q.block_cols;
      out[i] = lut[q.codes[i]] * sv[t];
    }
  return out;
}

double ErrorStats::sqnr_db() const {
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}
double ErrorStats::rel_frobenius() const { return signal > 0 ? std::sqrt(noise / signal) : (noise > 0 ? INFINITY : 0.0); }
void ErrorStats::merge(const ErrorStats& o) {
  const bool had = scale_max > 0, ohad = o.scale_max > 0;
  count += o.count;
  signal += o.signal;
  noise += o.noise;
  max_abs_err = std::max(max_abs_err, o.max_abs_err);
  saturated += o.saturated;
  flushed += o.flushed;
  nonfinite_out += o.nonfinite_out;
  if (ohad) {
    scale_min = had ? std::min(scale_min, o.scale_min) : o.scale_min;
    scale_max = had ? std::max(scale_max, o.scale_max) : o.scale_max;
  }
}

ErrorStats error_stats(std::span<const float> x, const QuantizedTensor& q, const std::vector<double>& deq) {
  ErrorStats s;
  if (deq.size() != x.size()) throw Error("error_stats: sizes differ");
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) continue;
    if (!std::isfinite(deq[i])) {  // a finite input lost to NaN/Inf: its error is unbounded
      ++s.nonfinite_out;
      ++s.count;
      s.signal += static_cast<double>(x[i]) * x[i];
      s.noise = std::numeric_limits<double>::infinity();
      s.max_abs_err = std::numeric_limits<double>::infinity();
      continue;
    }
    const double xv = x[i], e = xv - deq[i];
    ++s.count;
    s.signal += xv * xv;
    s.noise += e * e;
    s.max_abs_err = std::max(s.max_abs_err, std::fabs(e));
  }
  s.saturated = q.saturated;
  s.flushed = q.flushed;
  const std::size_t nt = q.scale_rows * q.scale_cols;
  for (std::size_t t = 0; t < nt; ++t) {
    const double v = block_scale_value(q, t);
    if (!(v > 0) || !std::isfinite(v)) continue;
    if (s.scale_max == 0) s.scale_min = s.scale_max = v;
    s.scale_min = std::min(s.scale_min, v);
    s.scale_max = std::max(s.scale_max, v);
  }
  return s;
}

// ---- delayed scaling ------------------------------------------------------------------------

DelayedScaling::DelayedScaling(Config cfg) : cfg_(cfg), history_(std::max<std::size_t>(cfg.history_len, 1), 0.0f) {
  if (cfg_.element.bits > 8 || validate(cfg_.element) != FormatError::ok)
    throw Error("DelayedScaling: the element format must be a valid format of at most 8 bits");
}

QuantizedTensor DelayedScaling::quantize(std::span<const float> x, const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  if (n != x.size()) throw Error("DelayedScaling::quantize: values do not match the shape");
  QuantizedTensor q;
  q.scheme = "fp8_tensor_delayed";
  q.rule = ScaleRule::fp32_amax;
  q.element = ElementType{ElementKind::floating, cfg_.element};
  q.shape = shape;
  q.rows = n ? 1 : 0;
  q.cols = n;
  q.block_rows = 1;
  q.block_cols = std::max<std::size_t>(n, 1);
  q.scale_rows = q.scale_cols = 1;
  q.scales = {scale_inv_};
  q.codes.resize(n);
  float amax = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    amax = std::fmax(amax, std::fabs(x[i]));
    const ElementResult er = quantize_element(q.element, x[i] * scale_, 0, cfg_.rounding, cfg_.profile);
    q.codes[i] = er.code;
    if (er.saturated) ++q.saturated;
    if (std::isfinite(x[i]) && x[i] != 0.0f && element_value(q.element, er.code) == 0.0) ++q.flushed;
  }
  history_[0] = std::fmax(history_[0], amax);
  return q;
}

void DelayedScaling::update() {
  const std::size_t len = history_.size();
  const float last = history_[0];
  float amax = 0.0f;
  std::vector<float> rolled(len);
  for (std::size_t i = 0; i < len; ++i) {
    const float a = i < len - 1 ? history_[i + 1] : last;
    amax = std::fmax(amax, a);
    rolled[i] = i > 0 ? a : 0.0f;
  }
  if (cfg_.algo == AmaxAlgo::most_recent) amax = last;
  const float scaled_max = static_cast<float>(element_max(ElementType{ElementKind::floating, cfg_.element})) *
                           std::pow(2.0f, -cfg_.margin);
  if (std::isfinite(amax) && amax > 0.0f) scale_ = scaled_max / amax;
  scale_inv_ = 1.0f / scale_;
  history_ = std::move(rolled);
}

// ---- MX dot product and GEMM ----------------------------------------------------------------

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
  const RoundResult r = round_pack(formats::f32, detail::wide_to_unpacked(neg, w, exp, false), {Rounding::rne, Overflow::nonsat});
  return detail::bit_cast<float>(static_cast<std::uint32_t>(r.code));
}

void check_mx(const QuantizedTensor& t, const char* which) {
  if (!is_e8m0_rule(t.rule) || t.transposed || t.block_rows != 1)
    throw Error(std::string("mx_dot: operand ") + which + " must be quantized with an E8M0 rule in 1×k blocks along the last axis");
}
}  // namespace

float mx_dot(const QuantizedTensor& a, std::size_t ra, const QuantizedTensor& b, std::size_t rb) {
  check_mx(a, "A");
  check_mx(b, "B");
  if (a.cols != b.cols || a.block_cols != b.block_cols)
    throw Error("mx_dot: operands differ in length or block size (" + std::to_string(a.cols) + "/" +
                std::to_string(a.block_cols) + " vs " + std::to_string(b.cols) + "/" + std::to_string(b.block_cols) + ")");
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
