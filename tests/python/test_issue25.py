# SPDX-License-Identifier: Apache-2.0
"""Issue 25 items 4-5 from Python: the names the CLI and C++ take (ue5m3, nvfp4_ue5m3, rceil_fp32, nvfp4_ceil,
fp32_order="deepgemm"), with values worked by hand from the stacks' code (tests/blocks/ue5m3_test.cpp and
stack_rules_test.cpp give the derivations)."""
import numpy as np
import pytest

import minifloat as mf


def test_ue5m3_is_a_named_format():
    # CUDA 13.4 __nv_fp8_ue5m3: max 0xfe = 1.75 * 2^16, 0xff NaN, min subnormal 2^-17, one 0x78.
    assert mf.decode(np.array([0xFE, 0x78, 0x01], np.uint8), "ue5m3").tolist() == [114688.0, 1.0, 2.0 ** -17]
    assert np.isnan(mf.decode(np.array([0xFF], np.uint8), "ue5m3")[0])


def test_nvfp4_ue5m3_scheme_and_its_tensor_scale():
    # auto-round nvfp.py:232: g = fl32(688128 * fl32(1/11.75)) = 0x4764c415; block scale 0xfe (clipped 114688).
    x = np.zeros((1, 16), np.float32)
    x[0, 0] = 11.75
    x[0, 1:] = 0.25
    q = mf.quantize(x, "nvfp4_ue5m3")
    assert np.float32(q.tensor_encode_scale).view(np.uint32) == 0x4764C415
    assert q.scales.reshape(-1).tolist() == [0xFE]
    assert q.codes.reshape(-1).tolist() == [0x7] + [0x0] * 15


def test_stack_rules_by_name():
    # TE float_to_e8m0(amax * fl32(1/448)): amax 0x04600001 -> 2^-127 (code 0), exact RCEIL 2^-126 (code 1).
    x = np.zeros(32, np.float32)
    x[0] = np.uint32(0x04600001).view(np.float32)
    assert mf.quantize(x, "mxfp8_e4m3", rule="rceil_fp32").scales.reshape(-1).tolist() == [0x00]
    assert mf.quantize(x, "mxfp8_e4m3", rule="rceil").scales.reshape(-1).tolist() == [0x01]
    # nvfp4_ceil: tensor amax 10, block amax 1: s = 44.8 -> E4M3 48 (0x64), RNE 44 (0x63).
    y = np.ones((2, 16), np.float32)
    y[0, 0] = 10.0
    y[1, 1:] = 0.25
    assert mf.quantize(y, "nvfp4", rule="nvfp4_ceil").scales.reshape(-1).tolist() == [0x7E, 0x64]
    # DeepGEMM math.py:35-37: sf = fl32(0.296875 / 448) = 0x3a2db6db; x = 0x38640000 -> 0x1b (TE order: 0x1a).
    z = np.array([0.296875, np.uint32(0x38640000).view(np.float32)], np.float32)
    q = mf.quantize(z, "e4m3fn/1x2/f32:fp32_amax", fp32_order="deepgemm")
    assert np.float32(q.scales.reshape(-1)[0]).view(np.uint32) == 0x3A2DB6DB
    assert q.codes.reshape(-1).tolist()[1] == 0x1B


def test_bad_names_are_refused_with_the_accepted_ones():
    with pytest.raises(ValueError, match="accepted"):
        mf.quantize(np.ones(16, np.float32), "nvfp4", rule="nvfp4_ceiling")
    with pytest.raises(ValueError, match="fp32_amax rule only"):
        mf.quantize(np.ones(16, np.float32), "nvfp4", fp32_order="deepgemm")
