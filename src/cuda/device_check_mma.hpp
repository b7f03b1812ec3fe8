// SPDX-License-Identifier: Apache-2.0
// device_check_mma.hpp: stage S5 of minifloat_device_check (device_check_mma.cu), the tensor-core probes.
#pragma once
#include <string>
#include <vector>

/// The result of stage S5 in the fields of device_check.cu's Stage.
struct TensorCoreStage {
  std::string status, note;
  unsigned long long inputs = 0, mismatches = 0;
  double seconds = 0;
  std::vector<std::string> first;
};

/// Run S5 on device 0 (sm_major/sm_minor: its compute capability): every probe tile and `quick ? 8 : 256`
/// random tiles per instruction × operand format through mma.sync m16n8k32 (f32 and f16 accumulate) and
/// wgmma m64n8k32 (sm_90a), compared on the host with the T-FDPA hypotheses (cuda/mma_probe.hpp).
/// Writes the per-question findings to `out_dir`/tensor_cores.txt. Throws minifloat::Error on a CUDA error.
TensorCoreStage device_check_tensor_cores(const std::string& out_dir, int sm_major, int sm_minor, bool quick);

/// The dry-run line of S5 (what runs, the probe counts computed on the host, the time budget).
std::string device_check_tensor_cores_plan();
