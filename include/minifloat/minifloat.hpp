// SPDX-License-Identifier: Apache-2.0
// minifloat.hpp: umbrella header of the whole public library: the device-safe core (core/, target
// minifloat::core; device code includes core/core.hpp) and the compiled library (this folder,
// target minifloat::minifloat). Not included: the layers above it, the kernel checker (check/,
// minifloat::check), the training simulator (train/, minifloat::train) and the CUDA layer (cuda/).
#pragma once
#include "accumulate.hpp"
#include "convert_span.hpp"
#include "core/core.hpp"
#include "decimal.hpp"
#include "delayed_scaling.hpp"
#include "error.hpp"
#include "error_stats.hpp"
#include "file_io.hpp"
#include "mx_dot.hpp"
#include "gaussws.hpp"
#include "names.hpp"
#include "npy.hpp"
#include "pack.hpp"
#include "parse.hpp"
#include "quant.hpp"
#include "registry.hpp"
#include "safetensors.hpp"
#include "scheme.hpp"
#include "stochastic.hpp"
#include "tables.hpp"
#include "tensor_file.hpp"
