#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# make_seeds.py: writes the seed corpora fuzz/corpus/<target>/ of every fuzz target: small,
# meaningful inputs — valid files of each dtype and version, and one input per rejection class.
# Regressions found by fuzzing are kept beside them as regression_* files (never rewritten here).
# Run with the project's Python (numpy and ml_dtypes write the .npy seeds):
#   /work/main/.venv/bin/python fuzz/make_seeds.py          (or .venv/bin/python after scripts/setup)
import io
import json
import os
import struct

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def out_dir(target):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):  # rewrite the seeds, keep the regressions
        if not f.startswith("regression_"):
            os.remove(os.path.join(d, f))
    return d


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# ---- convert: [name length][target name][mode][policy][source][8 bytes of source bits, little endian] --
# (fuzz_convert.cpp: the seed names its target, so adding a format re-targets none)
MODES = ["rne", "rna", "rtz", "rtp", "rtn", "rto"]
POLICIES = ["nonsat", "satfinite", "satpropagate"]
SOURCES = ["f64", "f32", "f16", "bf16"]


def f64bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


# the traps of spec-digest §11 and the "must show" values
CONVERT = [
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


def convert_seeds():
    d = out_dir("convert")
    for name, fmt, mode, pol, src, bits in CONVERT:
        data = bytes([len(fmt)]) + fmt.encode() + bytes([MODES.index(mode), POLICIES.index(pol), SOURCES.index(src)])
        write(d, name, data + struct.pack("<Q", bits))
    return len(CONVERT)


# ---- npy: whole .npy files --------------------------------------------------------------------
def npy_bytes(a, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, a)
    else:
        np.lib.format.write_array(b, a, version=version)
    return b.getvalue()


def npy_header(header, data=b"", version=1):
    """A file with a hand-written header dict (padded as numpy pads it)."""
    pre = 10 if version == 1 else 12
    h = header
    while (pre + len(h) + 1) % 64:
        h += " "
    h = (h + "\n").encode("latin1")
    size = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + data


def npy_seeds():
    d = out_dir("npy")
    ok = {
        "ok_f32_2x3": np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
        "ok_f16": np.array([1, -2, np.inf], dtype=np.float16),
        "ok_f64_0d": np.array(2.5),
        "ok_u8": np.array([0, 127, 128, 255], dtype=np.uint8),
        "ok_i8": np.array([-128, -1, 0, 127], dtype=np.int8),
        "ok_u16": np.array([0, 0x3c00, 0xffff], dtype=np.uint16),
        "ok_bf16_V2": np.array([1, -2, 0.5], dtype=ml_dtypes.bfloat16),
        "ok_e4m3fn_V1": np.array([1, -448, 0.5], dtype=ml_dtypes.float8_e4m3fn),
        "ok_empty_0x3": np.zeros((0, 3), dtype=np.float32),
        "ok_4d": np.ones((1, 2, 1, 2), dtype=np.float32),
    }
    for name, a in ok.items():
        write(d, name, npy_bytes(a))
    f32 = np.array([1.5, -2], dtype=np.float32)
    write(d, "ok_v2", npy_bytes(f32, (2, 0)))
    write(d, "ok_v3", npy_bytes(f32, (3, 0)))
    write(d, "ok_double_quotes", npy_header('{"descr": "<f4", "fortran_order": False, "shape": (2,)}', f32.tobytes()))
    write(d, "ok_long_suffix", npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }", f32.tobytes()))
    good = npy_bytes(f32)
    rejects = {
        "bad_trailing_bytes": good + b"\0",
        "bad_truncated_data": good[:-1],
        "bad_truncated_header": good[:30],
        "bad_preamble": good[:9],
        "bad_magic": b"\x93NUMPX" + good[6:],
        "bad_version_4": good[:6] + b"\x04\x00" + good[8:],
        "bad_version_1_1": good[:6] + b"\x01\x01" + good[8:],
        "bad_header_len_past_end": good[:8] + b"\xff\xff" + good[10:],
        "bad_fortran": npy_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", f32.tobytes()),
        "bad_big_endian": npy_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", f32.tobytes()),
        "bad_complex": npy_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", bytes(8)),
        "bad_structured": npy_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", bytes(4)),
        "bad_unknown_key": npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", f32.tobytes()),
        "bad_duplicate_key": npy_header("{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                        f32.tobytes()),
        "bad_missing_shape": npy_header("{'descr': '<f4', 'fortran_order': False}", f32.tobytes()),
        "bad_after_brace": npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", f32.tobytes()),
        "bad_huge_dim": npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"),
        "bad_shape_overflow": npy_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }"),
        "bad_shape_syntax": npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,,), }", f32.tobytes()),
        "bad_unterminated": npy_header("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", f32.tobytes()),
    }
    for name, data in rejects.items():
        write(d, name, data)
    return len(ok) + 4 + len(rejects)


# ---- safetensors: whole files -----------------------------------------------------------------
def st_file(header, data=b"", pad=True):
    h = header if isinstance(header, bytes) else json.dumps(header, separators=(",", ":")).encode()
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def entry(dtype, shape, begin, end):
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def st_seeds():
    d = out_dir("safetensors")
    f32 = np.array([1, 2, 3, 4], dtype=np.float32).tobytes()
    ok = {
        "ok_f32_metadata": st_file({"__metadata__": {"scheme": "mxfp8"}, "w": entry("F32", [2, 2], 0, 16)}, f32),
        "ok_every_numeric_dtype": st_file(
            {"a": entry("F32", [1], 0, 4), "b": entry("F16", [2], 4, 8), "c": entry("BF16", [2], 8, 12),
             "d": entry("F64", [1], 12, 20), "e": entry("U8", [2], 20, 22), "f": entry("I8", [2], 22, 24),
             "g": entry("U16", [1], 24, 26)},
            bytes(range(26))),
        "ok_f8_codes": st_file(
            {"e4m3": entry("F8_E4M3", [2], 0, 2), "e5m2": entry("F8_E5M2", [2], 2, 4),
             "e8m0": entry("F8_E8M0", [1], 4, 5)},
            bytes([0x38, 0xfe, 0x3c, 0x7c, 0x7f])),
        "ok_no_tensors": st_file({}),
        "ok_empty_tensor": st_file({"z": entry("F32", [0, 4], 0, 0), "w": entry("F32", [4], 0, 16)}, f32),
        "ok_i64_listed": st_file({"p": entry("I64", [2], 0, 16)}, bytes(16)),
        "ok_unknown_dtype": st_file({"q": entry("F4", [4], 0, 2)}, bytes(2)),
        "ok_json_order_differs": st_file(b'{"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},'
                                         b'"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', f32),
        "ok_scalar": st_file({"s": entry("F32", [], 0, 4)}, f32[:4]),
        "ok_unpadded": st_file({"w": entry("U8", [3], 0, 3)}, b"abc", pad=False),
    }
    for name, data in ok.items():
        write(d, name, data)
    two = '"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}'
    rejects = {
        "bad_trailing_bytes": st_file({"w": entry("F32", [4], 0, 16)}, f32 + b"\0\0\0\0"),
        "bad_no_tensors_but_data": st_file({}, b"\0"),
        "bad_gap_between": st_file({"a": entry("F32", [1], 0, 4), "b": entry("F32", [2], 8, 16)}, f32),
        "bad_gap_at_start": st_file({"a": entry("F32", [3], 4, 16)}, f32),
        "bad_overlap": st_file({"a": entry("F32", [4], 0, 16), "b": entry("F32", [2], 8, 16)}, f32),
        "bad_same_range": st_file({"a": entry("F32", [2], 0, 8), "b": entry("F32", [2], 0, 8)}, f32[:8]),
        "bad_end_before_begin": st_file({"a": entry("U8", [0], 16, 8)}, f32),
        "bad_duplicate_tensor": st_file(("{" + two + "," + two + "}").encode(), f32[:8]),
        "bad_duplicate_escaped_name": st_file(
            b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
            b'"\\u0061":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', f32[:8]),
        "bad_duplicate_in_entry": st_file(b'{"a":{"dtype":"F64","dtype":"F32","shape":[2],"data_offsets":[0,8]}}',
                                          f32[:8]),
        "bad_duplicate_metadata": st_file(b'{"__metadata__":{"k":"1","k":"2"},' + two.encode() + b"}", f32[:8]),
        "bad_past_end": st_file({"w": entry("F32", [4], 0, 16)}, f32[:8]),
        "bad_size_mismatch": st_file({"w": entry("F32", [3], 0, 16)}, f32),
        "bad_negative_dim": st_file(b'{"w":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}}', f32),
        "bad_float_offset": st_file(b'{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16.0]}}', f32),
        "bad_missing_dtype": st_file(b'{"w":{"shape":[4],"data_offsets":[0,16]}}', f32),
        "bad_metadata_not_string": st_file({"__metadata__": {"n": 1}}),
        "bad_not_object": st_file(b"[1,2]"),
        "bad_json": st_file(b"{not json"),
        "bad_header_past_end": struct.pack("<Q", 1 << 40) + b"{}",
        "bad_short": b"\x02\0\0\0",
        "bad_shape_overflow": st_file(b'{"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}'),
        "bad_f8_size": st_file({"e": entry("F8_E4M3", [4], 0, 2)}, b"\0\0"),
    }
    for name, data in rejects.items():
        write(d, name, data)
    return len(ok) + len(rejects)


# ---- parse_value: texts -----------------------------------------------------------------------
def value_seeds():
    d = out_dir("parse_value")
    ok = ["0.1", "-1e-7", "448", "-.5", "1.0625E+2", "0x1.8p3", "-0x.8p-2", "0x1p-1074", "0X1P0", "0x1f", "inf",
          "-Infinity", "nan", "+NaN", "0", "-0.000e5", "1.", "3.14159265358979323846264338327950288",
          "1.0625000000000000000000001", "464.0000000000000000000001", "2.4703282292062328e-324",
          "1.7976931348623158e308", "123456789012345678901234567890", "9999999999999999999e19",
          "1e-19", "18446744073709551615", "1e999999999", "-1e-999999999", "1e100000", "1e-100000", "9.9e99999",
          "1e-99999", "0x1p332192", "0x1p332193", "0x1p-332192", "0x1p-332193", "0x1p99999999999999999999",
          "1e99999999999999999999999", "0.000000000000000000000000000000000000000001e42"]
    exact_min_sub = "%.760e" % 4.9406564584124654e-324  # the exact 751-digit expansion of 2^-1074
    ok.append(exact_min_sub)
    bad = ["", "abc", "1.2.3", "1e", "0x1.8", "--1", "1x", "0x", "e5", ".", " 1", "1 ", "nan(1)", "0b101", "1e+",
           "0x1p", "infinit", "1e5.5", "0x.p1", "+", "1,5", "1\n", "\xff"]
    for i, t in enumerate(ok):
        write(d, f"ok_{i:02d}", t)
    for i, t in enumerate(bad):
        write(d, f"bad_{i:02d}", t.encode("latin1"))
    write(d, "ok_digit_limit", "1" * 40000)
    write(d, "bad_digit_limit", "1" * 40001)
    write(d, "ok_digit_limit_leading_zeros", "0." + "0" * 1000 + "1" * 40000)
    return len(ok) + len(bad) + 3


# ---- format_name: names -----------------------------------------------------------------------
def format_seeds():
    d = out_dir("format_name")
    ok = NAMED + ["f32", "f64", "float8_e4m3fn", "bfloat16", "E4M3FN", "ue8m0", "Binary8p3se", "binary8p3se",
                  "Binary16p1ue", "Binary3p1sf", "Binary16p16ue", "custom:4,3,7,signed,fn", "custom:5,2,15,signed,ieee",
                  "custom:8,0,127,unsigned,fn,nozero", "custom:3,2,3,signed,none", "custom:16,3,131072,signed,none",
                  "custom:16,3,-131072,signed,ieee", "custom:11,52,1023,signed,ieee", "custom:4,3,8,signed,fnuz",
                  "custom:5,2,16,unsigned,p3109_extended", "custom:1,1,0,unsigned,none"]
    bad = ["", "e4m3fn ", "e9m9", "custom:", "custom:4,3,7,signed", "custom:a,3,7,signed,fn", "custom:0,3,7,signed,fn",
           "custom:17,3,7,signed,fn", "custom:4,53,7,signed,fn", "custom:16,3,131073,signed,none",
           "custom:16,3,2147483647,signed,ieee", "custom:16,3,-2147483648,signed,ieee", "custom:4,3,+7,signed,fn",
           "custom:5,0,15,signed,ieee", "custom:4,3,7,unsigned,fnuz", "custom:4,3,7,signed,ieee,nozero",
           "custom:4,3,7,signed,fn,zero", "custom:16,52,0,signed,fn", "Binary17p3se", "Binary8p8se", "custom:4,3,7,signed,fn\n"]
    for i, t in enumerate(ok):
        write(d, f"ok_{i:02d}", t)
    for i, t in enumerate(bad):
        write(d, f"bad_{i:02d}", t)
    return len(ok) + len(bad)


# ---- mma_vectors: [element index] a \0 b \0 c \0 d ---------------------------------------------
MMA_ELEMENTS = ["e4m3fn", "e5m2", "f16", "bf16", "e2m1fn", "e4m3fnuz", "e8m0fnu", "f32"]


def mma(element, a, b, c, dd):
    return bytes([MMA_ELEMENTS.index(element)]) + "\0".join([a, b, c, dd]).encode()


def f32hex(v):
    return "%08x" % struct.unpack("<I", struct.pack("<f", v))[0]


def f32bin(v):
    return "{:032b}".format(struct.unpack("<I", struct.pack("<f", v))[0])


def mma_seeds():
    d = out_dir("mma_vectors")
    row_a = " ".join(f32hex(v) for v in (1.0, -0.5, 448.0, 0.001953125))  # e4m3fn values (2^-9 the least)
    row_b = " ".join(f32hex(v) for v in (2.0, 0.25, -1.0, 0.0))
    a = row_a + "\n" + row_b + "\n"
    b = row_b + "\n" + row_a + "\n"
    c = f32bin(0.0) + "\n" + f32bin(1.5) + "\n"
    dd = f32bin(-446.0) + "\n" + f32bin(-447.5) + "\n"
    ok = {
        "ok_e4m3fn_k4": mma("e4m3fn", a, b, c, dd),
        "ok_crlf_blank_lines": mma("e4m3fn", a.replace("\n", "\r\n") + "\r\n\n", "\n" + b, c + "  \n", dd),
        "ok_tabs_spaced_bits": mma("e4m3fn", a.replace(" ", "\t"), b, c.replace("0000", "0000 "), dd),
        "ok_e5m2_inf": mma("e5m2", f32hex(float("inf")) + " " + f32hex(-57344.0) + "\n", f32hex(1.0) + " 80000000\n",
                           f32bin(0.0) + "\n", f32bin(float("-inf")) + "\n"),
        "ok_fnuz_negzero": mma("e4m3fnuz", "80000000\n", "3f800000\n", f32bin(0.0) + "\n", f32bin(0.0) + "\n"),
        "ok_f32_k1_uppercase": mma("f32", "3F800001\n", "BF800000\n", f32bin(2.0) + "\n", "1" * 32 + "\n"),
        "ok_no_final_newline": mma("e4m3fn", a.rstrip("\n"), b.rstrip("\n"), c.rstrip("\n"), dd.rstrip("\n")),
    }
    for name, data in ok.items():
        write(d, name, data)
    short_row = row_b.rsplit(" ", 1)[0]
    rejects = {
        "bad_short_row_b": mma("e4m3fn", a, row_b + "\n" + short_row + "\n", c, dd),
        "bad_short_first_row": mma("e4m3fn", short_row + "\n" + row_a + "\n", b, c, dd),
        "bad_long_row": mma("e4m3fn", row_a + "\n" + row_b + " 3f800000\n", b, c, dd),
        "bad_hex_word": mma("e4m3fn", a.replace(f32hex(448.0), "43e0000g"), b, c, dd),
        "bad_short_word": mma("e4m3fn", a.replace(f32hex(448.0), "43e0000"), b, c, dd),
        "bad_nan_word": mma("e4m3fn", a.replace(f32hex(448.0), "7fc00000"), b, c, dd),
        "bad_not_exact": mma("e4m3fn", a.replace(f32hex(1.0), "3f800001"), b, c, dd),
        "bad_out_of_range": mma("e4m3fn", a.replace(f32hex(448.0), f32hex(480.0)), b, c, dd),
        "bad_c_31_bits": mma("e4m3fn", a, b, c.replace(f32bin(1.5), f32bin(1.5)[1:]), dd),
        "bad_d_not_binary": mma("e4m3fn", a, b, c, dd.replace("1", "2", 1)),
        "bad_row_counts": mma("e4m3fn", a, b, c, dd.split("\n")[0] + "\n"),
        "bad_empty": mma("e4m3fn", "", "", "", ""),
        "bad_missing_files": bytes([0]) + a.encode(),
    }
    for name, data in rejects.items():
        write(d, name, data)
    return len(ok) + len(rejects)


# ---- probe_manifest: manifest.json texts (probe_files.hpp) ------------------------------------
def probe_manifest_seeds():
    d = out_dir("probe_manifest")
    conv = {"from": "f32", "to": "e4m3fn", "round": "rne", "overflow": "satfinite", "sr_variant": "exact",
            "sr_bits": 8, "profile": "ocp"}
    dot = {"kind": "dot", "a": "e4m3fn", "b": "e5m2", "k": 32, "model": "hopper-fp8"}
    blk = {"scheme": "e4m3fn/1x32/e8m0fnu:rceil", "block": 32, "round": "rne", "overflow": "satfinite", "profile": "ocp",
           "packing": "none", "mx_quirks": "none"}
    ok = {
        "convert": {"generator": "minifloat probe gen", "format_version": 1, "target": conv, "ulps": 8},
        "convert_sr_c13": {"target": dict(conv, round="sr", sr_variant="C", sr_bits=13, profile="nvidia")},
        "convert_f16_to_e2m1fn": {"target": dict(conv, **{"from": "f16", "to": "e2m1fn"}), "ulps": 64},
        "dot": {"target": dot},
        "dot_blocked": {"target": dict(dot, model="ampere-f16+blocked64", a="f16", b="f16", k=4096)},
        "dot_f16_dest": {"target": dict(dot, model="ada-fp8-f16", k=1)},
        "block": {"generator": "minifloat probe gen", "format_version": 1, "block_target": blk},
        "block_fp4x2_quirks": {"block_target": dict(blk, scheme="mxfp4", scheme_name="mxfp4", packing="fp4x2",
                                                    mx_quirks="torchao_0_18", block=32, profile="torch")},
        "block_nvfp4": {"block_target": dict(blk, scheme="nvfp4", block=16, overflow="satfinite")},
        "block_fp8_1x128": {"block_target": dict(blk, scheme="fp8_1x128", block=128)},
        "block_fp6_dense": {"block_target": dict(blk, scheme="mxfp6_e2m3", packing="fp6_dense")},
        "convert_fp6_dense": {"target": dict(conv, to="e3m2fn", packing="fp6_dense")},
        "convert_fp4x2": {"target": dict(conv, to="e2m1fn", packing="fp4x2")},
        "gemm": {"target": dict(dot, kind="gemm", m=40, n=24, k=16)},
        "gemm_1x1024": {"target": dict(dot, kind="gemm", model="fp32", m=1, n=1024, k=4096)},
    }
    for name, m in ok.items():
        write(d, name, json.dumps(m))
    rejects = {
        "bad_not_json": "{target",
        "bad_array": "[1, 2]",
        "bad_no_target": json.dumps({"ulps": 8}),
        "bad_target_string": json.dumps({"target": "f32"}),
        "bad_unknown_format": json.dumps({"target": dict(conv, to="e9m9")}),
        "bad_sr_bits_0": json.dumps({"target": dict(conv, sr_bits=0)}),
        "bad_sr_bits_string": json.dumps({"target": dict(conv, sr_bits="8")}),
        "bad_wide_to": json.dumps({"target": dict(conv, to="f32")}),
        "bad_ulps_65": json.dumps({"target": conv, "ulps": 65}),
        "bad_kind": json.dumps({"target": dict(dot, kind="gemm")}),
        "bad_k_0": json.dumps({"target": dict(dot, k=0)}),
        "bad_k_negative": json.dumps({"target": dict(dot, k=-1)}),
        "bad_model": json.dumps({"target": dict(dot, model="hopper-fp9")}),
        "bad_block_size": json.dumps({"target": dict(dot, model="blocked0")}),
        "bad_nested_nul": '{"target": {"from": "f3\u00002"}}',
        "bad_block_target_string": json.dumps({"block_target": "mxfp8_e4m3"}),
        "bad_block_no_scheme": json.dumps({"block_target": {k: v for k, v in blk.items() if k != "scheme"}}),
        "bad_block_scheme": json.dumps({"block_target": dict(blk, scheme="e4m3fn/1x0/e8m0fnu:rceil")}),
        "bad_block_tile_2d": json.dumps({"block_target": dict(blk, scheme="e4m3fn/32x32/e8m0fnu:rceil")}),
        "bad_block_sr": json.dumps({"block_target": dict(blk, round="sr")}),
        "bad_block_size_mismatch": json.dumps({"block_target": dict(blk, block=16)}),
        "bad_block_fp4x2_e4m3": json.dumps({"block_target": dict(blk, packing="fp4x2")}),
        "bad_block_quirks": json.dumps({"block_target": dict(blk, mx_quirks="torchao_0_99")}),
        "bad_block_packing_int": json.dumps({"block_target": dict(blk, packing=2)}),
        "bad_block_fp6_dense_e2m1": json.dumps({"block_target": dict(blk, scheme="mxfp4", packing="fp6_dense")}),
        "bad_convert_fp6_dense_e4m3": json.dumps({"target": dict(conv, packing="fp6_dense")}),
        "bad_convert_packing_name": json.dumps({"target": dict(conv, to="e2m3fn", packing="fp6x4")}),
        "bad_gemm_no_m": json.dumps({"target": dict(dot, kind="gemm", n=4)}),
        "bad_gemm_n_1025": json.dumps({"target": dict(dot, kind="gemm", m=4, n=1025)}),
        "bad_gemm_m_0": json.dumps({"target": dict(dot, kind="gemm", m=0, n=4)}),
    }
    for name, m in rejects.items():
        write(d, name, m)
    return len(ok) + len(rejects)


# ---- probe_got: [target index][count][.npy bytes] (even index: got_codes, odd: got_results) ----
def probe_got_seeds():
    d = out_dir("probe_got")
    cases = {
        "codes_u1": (0, 4, np.array([0, 1, 0x7f, 0xff], dtype=np.uint8)),
        "codes_ml_dtypes": (0, 3, np.array([1.0, 2.0, 448.0], dtype=np.float32).astype(ml_dtypes.float8_e4m3fn)),
        "codes_u2_f16": (4, 2, np.array([0x3c00, 0x7e00], dtype=np.uint16)),
        "codes_2d": (0, 6, np.zeros((2, 3), dtype=np.uint8)),
        "results_f4": (1, 3, np.array([1.0, -0.0, np.nan], dtype=np.float32)),
        "results_u4": (3, 2, np.array([0x3f800000, 0x7fffffff], dtype=np.uint32)),
        "results_f2": (5, 2, np.array([1.0, 65504.0], dtype=np.float16)),
        "bad_count": (0, 5, np.zeros(4, dtype=np.uint8)),
        "bad_float_codes": (0, 2, np.zeros(2, dtype=np.float32)),
        "bad_u1_for_f16": (4, 2, np.zeros(2, dtype=np.uint8)),
        "bad_f8_results": (1, 2, np.zeros(2, dtype=np.float64)),
        "bad_f4_for_f16_dest": (5, 2, np.zeros(2, dtype=np.float32)),
    }
    for name, (sel, n, a) in cases.items():
        write(d, name, bytes([sel, n]) + npy_bytes(a))
    write(d, "bad_truncated_npy", bytes([0, 4]) + npy_bytes(np.zeros(4, dtype=np.uint8))[:-2])
    # Block targets (index >= 128; (index - 128) / 2 picks mxfp8_e4m3, mxfp4 fp4x2, nvfp4, fp8_1x128, mxfp6_e3m2
    # fp6_dense; odd: --got-scales).
    blocks = {
        "block_codes_mxfp8": (128, 2, np.zeros((2, 32), dtype=np.uint8)),
        "block_codes_mxfp8_flat": (128, 1, np.arange(32, dtype=np.uint8)),
        "block_codes_fp4x2": (130, 3, np.full((3, 16), 0x21, dtype=np.uint8)),
        "block_codes_ml_dtypes": (128, 1, np.ones(32, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn)),
        "block_scales_e8m0": (129, 3, np.array([0x7f, 0x00, 0xff], dtype=np.uint8)),
        "block_scales_ue4m3": (133, 2, np.array([0x38, 0x7e], dtype=np.uint8)),
        "block_scales_fp32": (135, 2, np.array([1.0, 2.0 ** -126], dtype=np.float32)),
        "block_scales_fp32_bits": (135, 2, np.array([0x3f800000, 0x7fc00000], dtype=np.uint32)),
        "bad_block_codes_count": (128, 2, np.zeros((2, 31), dtype=np.uint8)),
        "bad_block_codes_unpacked_fp4": (130, 1, np.zeros(32, dtype=np.uint8)),
        "bad_block_codes_u2": (128, 1, np.zeros(32, dtype=np.uint16)),
        "bad_block_scales_f4_for_e8m0": (129, 2, np.zeros(2, dtype=np.float32)),
        "bad_block_scales_u1_for_fp32": (135, 2, np.zeros(2, dtype=np.uint8)),
        "bad_block_scales_count": (129, 3, np.zeros(2, dtype=np.uint8)),
        "block_codes_fp6_dense": (136, 2, np.zeros((2, 24), dtype=np.uint8)),
        "packed_fp4x2": (74, 5, np.array([0x21, 0xf7, 0x03], dtype=np.uint8)),
        "packed_fp6_dense": (70, 4, np.array([0x81, 0x30, 0x10], dtype=np.uint8)),
        "bad_packed_fp6_count": (70, 5, np.array([0x81, 0x30, 0x10], dtype=np.uint8)),
        "bad_block_codes_fp6_unpacked": (136, 1, np.zeros(32, dtype=np.uint8)),
    }
    for name, (sel, n, a) in blocks.items():
        write(d, name, bytes([sel, n]) + npy_bytes(a))
    return len(cases) + 1 + len(blocks)


def main():
    for target, make in (("convert", convert_seeds), ("npy", npy_seeds), ("safetensors", st_seeds),
                         ("parse_value", value_seeds), ("format_name", format_seeds), ("mma_vectors", mma_seeds)):
        print(f"{target}: {make()} seeds")
    for target, make in (("probe_manifest", probe_manifest_seeds), ("probe_got", probe_got_seeds)):
        print(f"{target}: {make()} seeds")


if __name__ == "__main__":
    main()
