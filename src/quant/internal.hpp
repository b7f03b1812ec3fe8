// SPDX-License-Identifier: Apache-2.0
// quant/internal.hpp: what the quantizer's files share (src/quant/; not installed): the scale-code
// helpers, the host tile scale (the core's TileScale plus torchao's element scaling), the fast path's
// NVFP4 table steps, and the thread split of a piece.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "minifloat/core/tile_step.hpp"
#include "minifloat/parallel_for.hpp"
#include "minifloat/quant.hpp"
#include "simd/quant_simd.hpp"

namespace minifloat::quant_detail {

/// RoundingSpec::daz for a block quantizer's input (binary32 or binary64 values): a copy with every
/// subnormal read as ±0 (sign kept), or nullopt when `daz` is off or `v` holds none (read `v` itself).
template <class T>
std::optional<std::vector<T>> daz_copy(bool daz, std::span<const T> v) {
  auto subnormal = [](T x) { return x != 0 && std::fabs(x) < std::numeric_limits<T>::min(); };
  if (!daz || std::none_of(v.begin(), v.end(), subnormal)) return std::nullopt;
  std::vector<T> out(v.begin(), v.end());
  for (T& x : out)
    if (subnormal(x)) x = std::copysign(T{0}, x);
  return out;
}

/// Whether q's block scales are 8-bit codes (E8M0 rules, nvfp4's e4m3fn), a scale's value then being a
/// function of its code.
inline bool coded_scale(const QuantizedTensor& q) {
  return is_e8m0_rule(q.rule) || is_nvfp4_rule(q.rule) || is_ue5m3_rule(q.rule);
}
/// The row of the [rows, cols] view that tile t (file-order index, 1×k tiles) belongs to: with BlockAxis::last
/// t / scale_cols, with BlockAxis::first t % scale_rows (Scheme::amax_scope row: its S_enc).
inline std::size_t row_of_tile(const QuantizedTensor& q, std::size_t t) {
  return q.axis == BlockAxis::first ? t % q.scale_rows : t / q.scale_cols;
}
/// The decode value of scale code `code` under q's coded rule (E8M0: 2^(code − 127); nvfp4: the e4m3fn
/// value × the tensor decode scale); ScaleFtz::yes reads an FP32-subnormal value as 0 (block_scale_value).
inline double coded_scale_value(const QuantizedTensor& q, std::uint8_t code, ScaleFtz ftz) {
  if (is_e8m0_rule(q.rule)) return e8m0_value(code, ftz);
  const Format sf = is_ue5m3_rule(q.rule) ? formats::ue5m3 : formats::e4m3fn;  // UE5M3 rules: × autoround 1/g
  const double v = to_double(sf, code) * static_cast<double>(q.tensor_decode_scale);
  return (ftz == ScaleFtz::yes && std::fabs(v) < static_cast<double>(std::numeric_limits<float>::min())) ? 0.0 : v;
}

/// dequantize's element table: element_value of each code, 0 for codes above a floating format's width.
inline std::array<double, 256> element_lut(const ElementType& el) {
  std::array<double, 256> lut{};
  for (unsigned c = 0; c < 256; ++c)
    lut[c] = (el.kind == ElementKind::floating && c >= (1u << el.format.bits))
                 ? 0.0
                 : element_value(el, static_cast<std::uint8_t>(c));
  return lut;
}

/// The first j in [j, n) with f[j] != 0, else n (eight bytes at a time: the fused rows' statuses are almost all 0).
inline std::size_t next_nonzero(const std::uint8_t* f, std::size_t j, std::size_t n) {
  for (std::uint64_t w; j + 8 <= n; j += 8) {
    std::memcpy(&w, f + j, 8);
    if (w != 0) break;
  }
  while (j < n && f[j] == 0) ++j;
  return j;
}

inline std::size_t checked_product(const std::vector<std::size_t>& dims, const char* what) {
  std::size_t n = 1;
  for (auto d : dims) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d)
      throw Error(std::string(what) + ": the shape's size overflows");
    n *= d;
  }
  return n;
}
inline std::size_t ceil_div(std::size_t a, std::size_t b) { return b == 0 ? 0 : a / b + (a % b != 0); }

// The scale of one tile (core/tile_step.hpp), with MxQuirks::torchao_0_18's own element scaling.
struct QTileScale : TileScale {
  // MxQuirks::torchao_0_18: y = fl32(x / tao_div) or fl32(x * tao_mul), clamped to ±max when tao_clamp
  bool tao = false, tao_divide = false, tao_clamp = false;
  bool tao_nvfp4 = false;  // NVFP4 torchao: y = tao_x86_mul(tao_mul, x), clamped to ±6 (see quant.hpp)
  float tao_div = 1.0f, tao_mul = 1.0f;
  // MxQuirks::te_2 (quant/te2_quirks.hpp): y = x * tao_mul as torch computes it; te2_nvfp4: TE's cast_to_fp4x2
  bool te2 = false, te2_nvfp4 = false;
};

// NVFP4's block steps from the fast path's tables: the e4m3fn rounding of simd::nvfp4_block_scale_code_table
// and the element multipliers of the 256 codes under the tensor's S_enc (the same functions of the same arguments).
struct Nvfp4TableSteps {
  const float* enc;
  std::uint8_t code(float amax, float s_enc, float elem_max) const {
    return simd::nvfp4_block_scale_code_table(amax, s_enc, elem_max);
  }
  float encode_scale(std::uint8_t c, float) const { return enc[c]; }
};
// The core's tile step inlined where the tile loop takes a tile's scale (PieceRun::scale_tile, itself
// flatten: one call per tile with the rule's unpack and comparisons inside it; a call that returned
// Unpacked through memory stalled on the store-forward, half of the scale step). bench_quant against
// ebcb847 in alternating pairs: as separate calls fp8_1x128 was 6-11 % slower; with scale_tile
// always_inline the engine rows were 5-15 % slower; so, within the noise (about 8 %) of both.
template <class T, class Nv>
[[gnu::always_inline]] inline TileScale tile_scale_of(const TileStat<T>& s, const TileRule& r, const Nv& nv) {
  return decide_tile_scale(s, r, nv);
}

// One block's AbsMax into a tile statistic (order-free: max and or).
template <class Stat>
void merge_stat(Stat& s, const simd::AbsMax& m) {
  s.nan = s.nan || m.nan;
  s.inf = s.inf || m.inf;
  if (static_cast<double>(m.amax) > s.amax) s.amax = m.amax;
}

// Threads for one piece: at most `threads` (0 → all cores), at most one per 2^15 elements (a
// thread costs more than it saves below that), at least 1. Any count gives the same bytes.
inline unsigned effective_threads(unsigned threads, const QuantPiece& p) {
  unsigned t = resolve_threads(threads);
  const std::size_t by_size = std::max<std::size_t>(1, p.size() >> 15);
  if (by_size < t) t = static_cast<unsigned>(by_size);
  return std::max(1u, t);
}
// Run fn(worker, r0, r1, c0, c1) on `t` workers (parallel_for) over a split of the piece: by rows when it has
// at least t rows, else by columns (every row of the piece, a column range each; with `align` > 1 the
// column cuts fall on multiples of `align` in tensor columns, so that no tile of that width is split;
// a range may then be empty). The work of every element does not depend on the split; the caller
// merges the workers' results order-free.
template <class Fn>
void for_ranges(const QuantPiece& p, unsigned t, Fn fn, std::size_t align = 1) {
  const bool by_rows = p.rows >= t;
  const std::size_t n = by_rows ? p.rows : p.cols;
  auto cut = [&](unsigned w) -> std::size_t {
    const std::size_t c = n * w / t;
    if (by_rows || align <= 1 || w == 0 || w == t) return c;
    const std::size_t abs = (p.col + c) / align * align;  // round down to a tile edge, within the piece
    return abs <= p.col ? 0 : abs - p.col;
  };
  parallel_for(t, [&](unsigned w) {
    const std::size_t a = cut(w), b = cut(w + 1);
    if (by_rows) fn(w, a, b, std::size_t{0}, p.cols);
    else fn(w, std::size_t{0}, p.rows, a, b);
  });
}

/// The positive whitelist of the fast element path (quant.hpp, BlockQuantizer::element_path; block_quantizer.cpp).
bool fast_path_whitelisted(const Scheme& scheme, const QuantOptions& opt);

/// The values of piece `p` after q.transform (core/hadamard.hpp), in the piece's file order; throws Error for
/// a piece that cuts a 16-element group along the block axis (src/quant/block_quantizer.cpp). With
/// ArrayPath::simd, binary32 values and no transform_gemm, the SIMD transform (simd/hadamard_simd.hpp: the same
/// bits); otherwise rht16_group per group (the oracle).
template <class T>
std::vector<float> transformed_piece(const QuantPiece& p, std::span<const T> v, const QuantizedTensor& q,
                                     std::size_t file_cols, ArrayPath path);
/// The SIMD transform (simd/hadamard_simd.hpp) of a checked piece `p` of binary32 values into `out` (p.size()), on
/// effective_threads(threads, p) workers, each a band of whole 16-row groups of rows (the same bits for any count).
void transform_simd(const QuantPiece& p, std::span<const float> v, const QuantizedTensor& q, std::span<float> out,
                    unsigned threads);
/// Throws transformed_piece's Error for a piece that cuts a 16-element group along the block axis.
void check_transform_piece(const QuantPiece& p, const QuantizedTensor& q, std::size_t file_cols);
/// The file view's extents and tile height (BlockQuantizer's file_rows_, file_cols_, tile_rows_).
struct TransformFile {
  std::size_t rows = 0, cols = 0, tile_rows = 1;
};
/// Rows of `p` per chunk when a piece is transformed and then observed/quantized chunk by chunk (no piece-sized
/// buffer): about 16 Ki elements on one thread (the chunk stays in cache); 1 Mi per worker on t =
/// effective_threads(threads, p) > 1 workers, so that each chunk's transform, observe and quantize keep the workers
/// busy for much longer than they take to start (2 threads on 64 MiB: 93 ms with the whole piece transformed on one
/// thread, 44 ms with 128 Ki per worker, 21 ms with 1 Mi). On the SIMD path, without transform_gemm, a piece inside
/// the file starting on a tile row: a multiple of 16 and of the tile height (whole groups, whole tiles); else p.rows
/// (one chunk).
std::size_t transform_chunk_rows(const QuantPiece& p, const QuantizedTensor& q, ArrayPath path, unsigned threads,
                                 const TransformFile& f);
/// f(chunk, its transformed values) for each chunk of `p` (transform_chunk_rows; one call with the whole piece
/// where the piece is not chunked, `sizes_match` is false or v's size is not p's: the caller's checks then run
/// on the whole piece as without chunks).
template <class T, class F>
void for_transformed_chunks(const QuantPiece& p, std::span<const T> v, const QuantizedTensor& q,
                            const TransformFile& file, ArrayPath path, unsigned threads, bool sizes_match, F&& f) {
  const std::size_t step =
      sizes_match && v.size() == p.size() ? transform_chunk_rows(p, q, path, threads, file) : p.rows;
  if (step == 0 || step >= p.rows) {
    const std::vector<float> t = transformed_piece(p, v, q, file.cols, path);
    f(p, std::span<const float>(t));
    return;
  }
  check_transform_piece(p, q, file.cols);
  std::vector<float> buf;  // one chunk's transformed values, reused
  for (std::size_t r = 0; r < p.rows; r += step) {
    const QuantPiece c{.row = p.row + r, .col = p.col, .rows = std::min(step, p.rows - r), .cols = p.cols};
    if constexpr (std::is_same_v<T, float>) {
      if (buf.size() < c.size()) buf.resize(c.size());
      const std::span<float> t(buf.data(), c.size());
      transform_simd(c, v.subspan(r * p.cols, c.size()), q, t, threads);
      f(c, std::span<const float>(t));
    } else {
      const std::vector<float> t = transformed_piece(c, v.subspan(r * p.cols, c.size()), q, file.cols, path);
      f(c, std::span<const float>(t));
    }
  }
}

}  // namespace minifloat::quant_detail
