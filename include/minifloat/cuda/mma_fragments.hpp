// SPDX-License-Identifier: Apache-2.0
// cuda/mma_fragments.hpp: the tensor-core probe tile of device-check stage S5 and where each of its
// elements lives in the registers of the FP8 MMA instructions (host and device; plain C++ + the core).
//
// Tile (MmaTile): one 64×8×32 product D = A·B + C, row-major:
//   a[r·32 + k]  A, 64 rows × 32 codes (e4m3fn or e5m2), byte per code
//   b[n·32 + k]  B, 8 columns × 32 codes (B is K-major: column n's 32 codes are contiguous)
//   c[r·8 + n]   C, 64 × 8 accumulator codes: FP32 bits, or FP16 bits in the low half for an f16 destination
// `mma.sync.aligned.m16n8k32.row.col` covers rows 16w..16w+15 in warp w (w = 0..3);
// `wgmma.mma_async.m64n8k32` covers all 64 rows in one warpgroup (warp w = rows 16w..16w+15).
//
// Fragment layouts (PTX ISA 9.0 §9.7.14.5.x "Matrix Fragments for mma.m16n8k32" (.e4m3/.e5m2, as .s8),
// §9.7.15.5 wgmma register fragments for A/D, whose per-warp 16-row slices repeat the mma.m16n8k32 ones);
// lane = 0..31, g = lane / 4 (groupID), t = lane % 4 (threadID_in_group); byte i of a .b32 register
// holds the element of index 4·j + i (little-endian, element 0 in bits 0..7):
//   A  reg j = 0..3, byte i: row g + 8·(j % 2),  k = 4t + i + 16·(j / 2)
//   B  reg j = 0..1, byte i: k = 4t + i + 16·j,  column g
//   C/D f32  reg j = 0..3:   row g + 8·(j / 2),  column 2t + j % 2
//   C/D f16  reg j = 0..1, half h (0 = bits 0..15): row g + 8·j, column 2t + h
// wgmma's B comes from shared memory through a matrix descriptor, K-major, no swizzle (PTX ISA §9.7.15.5.1
// "canonical layouts"): two 8-row × 16-byte core matrices (k 0..15, then k 16..31) of 128 contiguous
// bytes each: byte offset of (n, k) = 128·(k / 16) + 16·n + k % 16. The descriptor's leading and stride
// byte offsets are both 128 (with N = 8 there is no second core matrix along N, so either reading of the two
// offsets addresses the same bytes).
#pragma once
#include <cstdint>

#include "../core/config.hpp"

namespace minifloat::cuda {

inline constexpr int kMmaTileRows = 64;  ///< M of wgmma m64n8k32; four mma.sync m16n8k32 slices
inline constexpr int kMmaTileCols = 8;   ///< N
inline constexpr int kMmaTileK = 32;     ///< K of one FP8 instruction

/// One probe tile (layout in the header comment).
struct MmaTile {
  std::uint8_t a[kMmaTileRows * kMmaTileK];
  std::uint8_t b[kMmaTileCols * kMmaTileK];
  std::uint32_t c[kMmaTileRows * kMmaTileCols];
};

/// A (row, column) position of a tile matrix.
struct MmaPos {
  int row, col;
};

/// A's element in byte `i` of register `j` of `lane` (mma.sync m16n8k32 slice: row 0..15; col = k).
MINIFLOAT_HOST_DEVICE constexpr MmaPos mma_a_pos(int lane, int j, int i) noexcept {
  return {lane / 4 + 8 * (j % 2), 4 * (lane % 4) + i + 16 * (j / 2)};
}
/// B's element in byte `i` of register `j` of `lane`: row = k, col = n.
MINIFLOAT_HOST_DEVICE constexpr MmaPos mma_b_pos(int lane, int j, int i) noexcept {
  return {4 * (lane % 4) + i + 16 * j, lane / 4};
}
/// C/D (f32) in register `j` of `lane` (slice row 0..15, column 0..7).
MINIFLOAT_HOST_DEVICE constexpr MmaPos mma_cd_f32_pos(int lane, int j) noexcept {
  return {lane / 4 + 8 * (j / 2), 2 * (lane % 4) + j % 2};
}
/// C/D (f16) in half `h` of register `j` of `lane`.
MINIFLOAT_HOST_DEVICE constexpr MmaPos mma_cd_f16_pos(int lane, int j, int h) noexcept {
  return {lane / 4 + 8 * j, 2 * (lane % 4) + h};
}
/// wgmma B in shared memory (K-major, no swizzle): byte offset of (n, k).
MINIFLOAT_HOST_DEVICE constexpr int wgmma_b_offset(int n, int k) noexcept { return 128 * (k / 16) + 16 * n + k % 16; }
inline constexpr int kWgmmaBBytes = 256;
/// The wgmma matrix descriptor of a K-major, unswizzled B at shared-memory address `smem_addr` (16-byte
/// aligned): start address >> 4 in bits 0..13, leading byte offset >> 4 in 16..29, stride byte offset
/// >> 4 in 32..45, base offset 0 (49..51), layout type 0 = no swizzle (62..63).
MINIFLOAT_HOST_DEVICE constexpr std::uint64_t wgmma_b_descriptor(std::uint32_t smem_addr) noexcept {
  return ((std::uint64_t{smem_addr} & 0x3ffffu) >> 4) | (std::uint64_t{128 >> 4} << 16) |
         (std::uint64_t{128 >> 4} << 32);
}

/// The A registers of `lane` for the 16-row slice starting at row `row0` of `t`.
MINIFLOAT_HOST_DEVICE inline void pack_a(const MmaTile& t, int row0, int lane, std::uint32_t (&r)[4]) noexcept {
  for (int j = 0; j < 4; ++j) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const MmaPos p = mma_a_pos(lane, j, i);
      v |= std::uint32_t{t.a[(row0 + p.row) * kMmaTileK + p.col]} << (8 * i);
    }
    r[j] = v;
  }
}
/// The B registers of `lane`.
MINIFLOAT_HOST_DEVICE inline void pack_b(const MmaTile& t, int lane, std::uint32_t (&r)[2]) noexcept {
  for (int j = 0; j < 2; ++j) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const MmaPos p = mma_b_pos(lane, j, i);
      v |= std::uint32_t{t.b[p.col * kMmaTileK + p.row]} << (8 * i);
    }
    r[j] = v;
  }
}
/// The C registers (f32 bits) of `lane` for the slice at `row0`.
MINIFLOAT_HOST_DEVICE inline void pack_c_f32(const MmaTile& t, int row0, int lane, std::uint32_t (&r)[4]) noexcept {
  for (int j = 0; j < 4; ++j) {
    const MmaPos p = mma_cd_f32_pos(lane, j);
    r[j] = t.c[(row0 + p.row) * kMmaTileCols + p.col];
  }
}
/// The C registers (f16x2) of `lane` for the slice at `row0`.
MINIFLOAT_HOST_DEVICE inline void pack_c_f16(const MmaTile& t, int row0, int lane, std::uint32_t (&r)[2]) noexcept {
  for (int j = 0; j < 2; ++j) {
    std::uint32_t v = 0;
    for (int h = 0; h < 2; ++h) {
      const MmaPos p = mma_cd_f16_pos(lane, j, h);
      v |= (t.c[(row0 + p.row) * kMmaTileCols + p.col] & 0xffffu) << (16 * h);
    }
    r[j] = v;
  }
}
/// D registers (f32 bits) of `lane` into d[r·8 + n] of a 64×8 result, slice at `row0`.
MINIFLOAT_HOST_DEVICE inline void unpack_d_f32(const std::uint32_t (&r)[4], int row0, int lane,
                                               std::uint32_t* d) noexcept {
  for (int j = 0; j < 4; ++j) {
    const MmaPos p = mma_cd_f32_pos(lane, j);
    d[(row0 + p.row) * kMmaTileCols + p.col] = r[j];
  }
}
/// D registers (f16x2) of `lane` into d[r·8 + n] (f16 bits in the low half), slice at `row0`.
MINIFLOAT_HOST_DEVICE inline void unpack_d_f16(const std::uint32_t (&r)[2], int row0, int lane,
                                               std::uint32_t* d) noexcept {
  for (int j = 0; j < 2; ++j)
    for (int h = 0; h < 2; ++h) {
      const MmaPos p = mma_cd_f16_pos(lane, j, h);
      d[(row0 + p.row) * kMmaTileCols + p.col] = (r[j] >> (16 * h)) & 0xffffu;
    }
}

}  // namespace minifloat::cuda
