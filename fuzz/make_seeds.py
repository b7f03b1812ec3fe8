#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# make_seeds.py: writes the seed corpus fuzz/corpus/fuzz_convert/ (the traps of spec-digest §11
# and the "must show" values) in fuzz_convert.cpp's 12-byte input layout:
# [target][mode][policy][source][8 bytes of source bits, little endian].
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "fuzz_convert")
NAMED = ["e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e4m3", "e3m4", "e3m2fn", "e2m3fn",
         "e2m1fn", "e8m0fnu", "ue4m3", "f16", "bf16"]
P3109 = [f"Binary8p{p}{s}{e}" for s, pmax in (("s", 7), ("u", 8)) for p in range(1, pmax + 1) for e in "ef"]
FORMATS = NAMED + P3109
MODES = ["rne", "rna", "rtz", "rtp", "rtn", "rto"]
POLICIES = ["nonsat", "satfinite", "satpropagate"]
SOURCES = ["f64", "f32", "f16", "bf16"]


def f64bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


SEEDS = [
    # name, target, mode, policy, source, bits
    ("t1_464_e4m3fn_rne_nonsat", "e4m3fn", "rne", "nonsat", "f32", 0x43E80000),
    ("t1_464_e4m3fn_rne_satfinite", "e4m3fn", "rne", "satfinite", "f32", 0x43E80000),
    ("t2_464ulp_e4m3fn_nonsat", "e4m3fn", "rne", "nonsat", "f32", 0x43E80001),
    ("t2_464ulp_e4m3fn_satfinite", "e4m3fn", "rne", "satfinite", "f32", 0x43E80001),
    ("t2_464ulp_e4m3fn_rtp", "e4m3fn", "rtp", "nonsat", "f32", 0x43E80001),
    ("t3_61440_e5m2_nonsat", "e5m2", "rne", "nonsat", "f32", 0x47700000),
    ("t3_61440m_e5m2", "e5m2", "rne", "nonsat", "f32", 0x476FFFFF),
    ("t4_inf_e4m3fn_satfinite", "e4m3fn", "rne", "satfinite", "f32", 0x7F800000),
    ("t4_neginf_e5m2_nonsat", "e5m2", "rne", "nonsat", "f32", 0xFF800000),
    ("t4_inf_e5m2_satpropagate", "e5m2", "rtz", "satpropagate", "f32", 0x7F800000),
    ("t5_negnan_e4m3fn", "e4m3fn", "rne", "nonsat", "f32", 0xFFC00000),
    ("t5_negnan_e5m2", "e5m2", "rne", "nonsat", "f32", 0xFFC00000),
    ("t6_2m10_e4m3fn", "e4m3fn", "rne", "nonsat", "f32", 0x3A800000),
    ("t6_neg2m10_e4m3fn", "e4m3fn", "rne", "nonsat", "f32", 0xBA800000),
    ("t6_2m10_e4m3fn_rto", "e4m3fn", "rto", "nonsat", "f32", 0x3A800000),
    ("t7_negzero_e4m3fnuz", "e4m3fnuz", "rne", "nonsat", "f32", 0x80000000),
    ("t7_neg1em7_e4m3fnuz", "e4m3fnuz", "rne", "nonsat", "f64", f64bits(-1e-7)),
    ("t8_248_e4m3fnuz_nonsat", "e4m3fnuz", "rne", "nonsat", "f32", 0x43780000),
    ("t9_zero_e8m0fnu", "e8m0fnu", "rne", "nonsat", "f32", 0x00000000),
    ("t10_3_e8m0fnu_rtz", "e8m0fnu", "rtz", "nonsat", "f32", 0x40400000),
    ("t10_3_e8m0fnu_rtp", "e8m0fnu", "rtp", "satfinite", "f32", 0x40400000),
    ("t10_1p5_e8m0fnu_rne", "e8m0fnu", "rne", "nonsat", "f32", 0x3FC00000),
    ("t10_neg4_e8m0fnu", "e8m0fnu", "rne", "nonsat", "f32", 0xC0800000),
    ("t11_double_rounding_e4m3fn", "e4m3fn", "rne", "nonsat", "f64", f64bits(1.0625 + 2.0**-40)),
    ("t12_2p5_e2m1fn_rna", "e2m1fn", "rna", "nonsat", "f32", 0x40200000),
    ("t13_nan_e2m1fn", "e2m1fn", "rne", "nonsat", "f32", 0x7FC00000),
    ("t19_1000_e4m3fnuz", "e4m3fnuz", "rne", "nonsat", "f32", 0x447A0000),
    ("t22_1e6_binary8p3se_rne", "Binary8p3se", "rne", "nonsat", "f32", 0x49742400),
    ("t22_1e6_binary8p3se_rtz", "Binary8p3se", "rtz", "nonsat", "f32", 0x49742400),
    ("t23_fltmax_e8m0fnu_rtp", "e8m0fnu", "rtp", "nonsat", "f32", 0x7F7FFFFF),
    ("t24_e8m0fnu_rtp_sub", "e8m0fnu", "rtp", "nonsat", "f32", 0x00400001),
    ("t26_7p75_e3m2fn_rtz", "e3m2fn", "rtz", "nonsat", "f32", 0x40F80000),
    ("issue_c07afff_e4m3fn", "e4m3fn", "rne", "nonsat", "f64", 0xC07AFFFFFFFFFFFF),
    ("f16max_e5m2_rto", "e5m2", "rto", "nonsat", "f16", 0x7BFF),
    ("bf16_negtiny_binary8p1ue", "Binary8p1ue", "rtn", "satpropagate", "bf16", 0x8001),
    ("f16_min_sub_e8m0fnu_rtp", "e8m0fnu", "rtp", "nonsat", "f16", 0x0001),
    ("ue4m3_neg", "ue4m3", "rne", "nonsat", "bf16", 0xBF80),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, fmt, mode, pol, src, bits in SEEDS:
        data = bytes([FORMATS.index(fmt), MODES.index(mode), POLICIES.index(pol), SOURCES.index(src)])
        data += struct.pack("<Q", bits)
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(SEEDS)} seeds to {OUT}")


if __name__ == "__main__":
    main()
