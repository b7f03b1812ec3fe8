# SPDX-License-Identifier: Apache-2.0
"""Load the fetched peer references (scripts/fetch-peers) without installing TransformerEngine or torchao.

Only the pinned files themselves run; around them go stub packages of our own, written into a temporary folder:
  TE: transformer_engine/__init__.py, transformer_engine/pytorch/__init__.py (empty);
      transformer_engine/pytorch/quantized_tensor.py: `Quantizer` (its __init__(*, rowwise, columnwise) setting
      rowwise_usage, columnwise_usage, internal, optimize_for_gemm as TE's quantized_tensor.py:402-406) and an
      empty `QuantizedTensorStorage`; transformer_engine/pytorch/tensor/utils.py: `is_custom` (imported by
      gemm.py, unused by the quantizer). The four custom_recipes files are TE's, unchanged.
  torchao: empty torchao/, torchao/prototype/, .../moe_training/, .../nvfp4_training/, .../mx_formats/ packages;
      torchao/prototype/mx_formats/kernels.py: a stub holding torchao's own `EBITS_F4_E2M1, MBITS_F4_E2M1`,
      `down_size`, `f32_to_f4_unpacked` and `pack_uint4`, their source taken verbatim from the fetched kernels.py
      (whose module imports need triton and the rest of torchao); torchao/prototype/mx_formats/utils.py: a stub
      whose `to_blocked` raises (the tests ask for the plain scale layout). custom_fp_utils.py, hadamard_utils.py
      and nvfp4_reference.py are torchao's, unchanged.
"""
import ast
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

DEFAULT_DIR = Path(tempfile.gettempdir()) / "minifloat-peers-d0067d0-36027d8"
TE_FILES = ["transformer_engine/pytorch/custom_recipes/" + f
            for f in ("__init__.py", "reference_nvfp4.py", "reference_utils.py", "gemm.py")]
TAO_FILES = ["test/prototype/moe_training/nvfp4_training/nvfp4_reference.py",
             "torchao/prototype/moe_training/nvfp4_training/hadamard_utils.py",
             "torchao/prototype/mx_formats/kernels.py", "torchao/prototype/mx_formats/utils.py",
             "torchao/prototype/custom_fp_utils.py"]


def peers_dir() -> Path:
    return Path(os.environ.get("MINIFLOAT_PEERS_DIR", str(DEFAULT_DIR)))


def missing() -> list:
    d = peers_dir()
    return [str(d / "te" / f) for f in TE_FILES if not (d / "te" / f).is_file()] + \
           [str(d / "torchao" / f) for f in TAO_FILES if not (d / "torchao" / f).is_file()]


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


_STAGE = None


def _stage() -> Path:
    global _STAGE
    if _STAGE is None:
        _STAGE = Path(tempfile.mkdtemp(prefix="minifloat-peers-stage-"))
    return _STAGE


def load_te():
    """TE's reference_nvfp4 module (NVFP4QuantizerRef) and reference_utils."""
    root = _stage() / "te"
    src = peers_dir() / "te"
    for f in TE_FILES:
        _write(root, f, (src / f).read_text())
    _write(root, "transformer_engine/__init__.py", "")
    _write(root, "transformer_engine/pytorch/__init__.py", "")
    _write(root, "transformer_engine/pytorch/tensor/__init__.py", "")
    _write(root, "transformer_engine/pytorch/tensor/utils.py",
           "def is_custom(*args, **kwargs):\n    return False\n")
    _write(root, "transformer_engine/pytorch/quantized_tensor.py",
           "class QuantizedTensorStorage:\n    pass\n\n\n"
           "class Quantizer:\n"
           "    def __init__(self, *, rowwise, columnwise):\n"
           "        self.rowwise_usage = rowwise\n        self.columnwise_usage = columnwise\n"
           "        self.internal = False\n        self.optimize_for_gemm = False\n")
    sys.path.insert(0, str(root))
    ref = importlib.import_module("transformer_engine.pytorch.custom_recipes.reference_nvfp4")
    utils = importlib.import_module("transformer_engine.pytorch.custom_recipes.reference_utils")
    return ref, utils


def _functions(path: Path, names: set) -> str:
    """The source of the top-level functions and assignments named in `names`, verbatim."""
    text = path.read_text()
    out = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            out.append(ast.get_source_segment(text, node))
        elif isinstance(node, ast.Assign):
            targets = [t for t in node.targets]
            ids = {e.id for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])
                   if isinstance(e, ast.Name)}
            if ids & names:
                out.append(ast.get_source_segment(text, node))
    return "\n\n".join(out)


def load_torchao():
    """torchao's nvfp4_reference module (nvfp4_reference_quantize, reference_rht, global_encode_scale)."""
    root = _stage() / "torchao"
    src = peers_dir() / "torchao"
    for rel in ("torchao/prototype/custom_fp_utils.py",
                "torchao/prototype/moe_training/nvfp4_training/hadamard_utils.py"):
        _write(root, rel, (src / rel).read_text())
    for pkg in ("torchao", "torchao/prototype", "torchao/prototype/moe_training",
                "torchao/prototype/moe_training/nvfp4_training", "torchao/prototype/mx_formats"):
        _write(root, pkg + "/__init__.py", "")
    kern = _functions(src / "torchao/prototype/mx_formats/kernels.py",
                      {"EBITS_F4_E2M1", "MBITS_F4_E2M1", "down_size", "f32_to_f4_unpacked", "pack_uint4"})
    _write(root, "torchao/prototype/mx_formats/kernels.py",
           "import torch\nfrom torchao.prototype.custom_fp_utils import _f32_to_floatx_unpacked\n\n" + kern + "\n")
    _write(root, "torchao/prototype/mx_formats/utils.py",
           "def to_blocked(*args, **kwargs):\n    raise NotImplementedError('stub: the tests use layout=plain')\n")
    sys.path.insert(0, str(root))
    path = src / "test/prototype/moe_training/nvfp4_training/nvfp4_reference.py"
    spec = importlib.util.spec_from_file_location("torchao_nvfp4_reference", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cleanup() -> None:
    if _STAGE is not None:
        shutil.rmtree(_STAGE, ignore_errors=True)
