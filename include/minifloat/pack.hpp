// SPDX-License-Identifier: Apache-2.0
// pack.hpp: storage layouts — FP4 two per byte, FP6 one per byte or 4-in-3-bytes, and the
// 128×4 scale-factor swizzle cuBLAS / cuDNN / Transformer Engine expect for MXFP8 and NVFP4.
// Storage only: no numerics. Header-only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "error.hpp"

namespace minifloat {

/// Which nibble holds element 2i when two FP4 codes share a byte: the low one (OCP MX storage as
/// TE, torchao, ml_dtypes packing and the CUDA `__nv_fp4x2_storage_t` helpers use it; T16: PTX
/// `cvt.rn.satfinite.e2m1x2.f32 d, a, b` puts its FIRST source `a` in the HIGH nibble, so a
/// kernel must pass (x[2i+1], x[2i]) to produce this layout).
inline constexpr bool fp4_element0_in_low_nibble = true;

/// Pack 4-bit codes two per byte: byte i = codes[2i] | codes[2i+1] << 4 (an odd count leaves the
/// last high nibble 0). Bits above the low 4 of each code must be 0, else minifloat::Error.
/// **Example**: {0x1, 0x2, 0x7, 0xf} → {0x21, 0xf7}; {0x3} → {0x03}.
inline std::vector<std::uint8_t> pack_fp4(std::span<const std::uint8_t> codes) {
  std::vector<std::uint8_t> out((codes.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] > 0xf)
      throw Error("pack_fp4: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                  " is wider than 4 bits");
    out[i / 2] = static_cast<std::uint8_t>(out[i / 2] | (codes[i] << (4 * (i % 2))));
  }
  return out;
}
/// Inverse of pack_fp4: `count` codes (packed.size() must be (count + 1) / 2, else Error).
inline std::vector<std::uint8_t> unpack_fp4(std::span<const std::uint8_t> packed, std::size_t count) {
  if (packed.size() != (count + 1) / 2)
    throw Error("unpack_fp4: " + std::to_string(packed.size()) + " bytes cannot hold " + std::to_string(count) +
                " codes");
  std::vector<std::uint8_t> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<std::uint8_t>((packed[i / 2] >> (4 * (i % 2))) & 0xf);
  return out;
}

/// FP6 storage layouts.
enum class Fp6Packing : std::uint8_t {
  one_per_byte,  ///< each 6-bit code in the low bits of its own byte, top 2 bits 0 (TOSA, ml_dtypes;
                 ///< also what NVIDIA's `cvt … e2m3x2/e3m2x2` writes: two bytes, 2 zero MSBs each)
  dense,         ///< little-endian bit stream: code i occupies stream bits [6i, 6i + 6), byte k holds
                 ///< stream bits [8k, 8k + 8); 4 codes → 3 bytes. **Example**: {0x01, 0x02, 0x03, 0x04}
                 ///< → {0x81, 0x30, 0x10}; {0x3f, 0, 0, 0} → {0x3f, 0x00, 0x00}.
};

/// Pack 6-bit codes (each ≤ 0x3f, else Error) in `layout`. Dense output has ceil(6·n / 8) bytes.
inline std::vector<std::uint8_t> pack_fp6(std::span<const std::uint8_t> codes, Fp6Packing layout = Fp6Packing::dense) {
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] > 0x3f)
      throw Error("pack_fp6: code " + std::to_string(codes[i]) + " at index " + std::to_string(i) +
                  " is wider than 6 bits");
  if (layout == Fp6Packing::one_per_byte) return {codes.begin(), codes.end()};
  std::vector<std::uint8_t> out((codes.size() * 6 + 7) / 8, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::size_t bit = 6 * i;
    const unsigned v = static_cast<unsigned>(codes[i]) << (bit % 8);  // ≤ 14 bits
    out[bit / 8] = static_cast<std::uint8_t>(out[bit / 8] | (v & 0xffu));
    if ((v >> 8) != 0) out[bit / 8 + 1] = static_cast<std::uint8_t>(out[bit / 8 + 1] | (v >> 8));
  }
  return out;
}
/// Inverse of pack_fp6 (`count` codes; the byte count must match the layout, else Error).
inline std::vector<std::uint8_t> unpack_fp6(std::span<const std::uint8_t> packed, std::size_t count,
                                            Fp6Packing layout = Fp6Packing::dense) {
  const std::size_t need = layout == Fp6Packing::dense ? (count * 6 + 7) / 8 : count;
  if (packed.size() != need)
    throw Error("unpack_fp6: " + std::to_string(packed.size()) + " bytes do not hold " + std::to_string(count) +
                " codes");
  if (layout == Fp6Packing::one_per_byte) return {packed.begin(), packed.end()};
  std::vector<std::uint8_t> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t bit = 6 * i;
    unsigned v = packed[bit / 8] >> (bit % 8);
    if (bit % 8 > 2) v |= static_cast<unsigned>(packed[bit / 8 + 1]) << (8 - bit % 8);
    out[i] = static_cast<std::uint8_t>(v & 0x3fu);
  }
  return out;
}

/// Byte offset of scale (r, c) in the cuBLAS/cuDNN/TE 128×4 tiled ("swizzled") layout of a scale
/// matrix with `cols` columns (one scale per block along K; rows = M or N). The matrix is padded
/// to a multiple of 128 rows and 4 columns; 128×4 tiles are stored row-tile-major, 512 bytes each;
/// inside a tile the scale of row r, column c sits at (r mod 32)·16 + ((r / 32) mod 4)·4 + (c mod 4),
/// i.e. the bytes of a tile run rows 0, 32, 64, 96 (4 scales each), then 1, 33, 65, 97, …
///   offset = ((r / 128) · ceil(cols / 4) + c / 4) · 512 + (r mod 32) · 16 + ((r / 32) mod 4) · 4 + c mod 4
/// **Examples** (cols = 4): (0,0) → 0, (0,3) → 3, (32,0) → 4, (96,1) → 13, (1,0) → 16, (127,3) → 511,
/// (128,0) → 512. With cols = 8: (0,4) → 512, (128,0) → 1024. Column-wise (32×1 or 16×1 along M)
/// scales use the same function on the transposed scale matrix (TE "4×128 for col-scale").
constexpr std::size_t swizzle_128x4_offset(std::size_t r, std::size_t c, std::size_t cols) noexcept {
  const std::size_t col_tiles = (cols + 3) / 4;
  return ((r / 128) * col_tiles + c / 4) * 512 + (r % 32) * 16 + ((r / 32) % 4) * 4 + (c % 4);
}
/// Size in bytes of the swizzled layout: ceil(rows/128)·128 · ceil(cols/4)·4.
constexpr std::size_t swizzled_128x4_size(std::size_t rows, std::size_t cols) noexcept {
  return ((rows + 127) / 128) * 128 * ((cols + 3) / 4) * 4;
}
/// Swizzle a row-major [rows, cols] scale matrix (padding bytes = `pad`, 0 by default).
/// **Example**: rows = 1, cols = 2, {0x7f, 0x80} → 512 bytes: [0] = 0x7f, [1] = 0x80, the rest 0.
inline std::vector<std::uint8_t> swizzle_scales_128x4(std::span<const std::uint8_t> scales, std::size_t rows,
                                                      std::size_t cols, std::uint8_t pad = 0) {
  if (scales.size() != rows * cols)
    throw Error("swizzle_scales_128x4: " + std::to_string(scales.size()) + " scales for a " + std::to_string(rows) +
                "x" + std::to_string(cols) + " matrix");
  std::vector<std::uint8_t> out(swizzled_128x4_size(rows, cols), pad);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[swizzle_128x4_offset(r, c, cols)] = scales[r * cols + c];
  return out;
}
/// Inverse: recover the row-major [rows, cols] matrix from its swizzled layout.
inline std::vector<std::uint8_t> unswizzle_scales_128x4(std::span<const std::uint8_t> swizzled, std::size_t rows,
                                                        std::size_t cols) {
  if (swizzled.size() != swizzled_128x4_size(rows, cols)) throw Error("unswizzle_scales_128x4: wrong size");
  std::vector<std::uint8_t> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[r * cols + c] = swizzled[swizzle_128x4_offset(r, c, cols)];
  return out;
}

}  // namespace minifloat
