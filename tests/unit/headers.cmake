# SPDX-License-Identifier: Apache-2.0
# Every public header compiles on its own (style.md §2.4 rule 1): one generated .cpp per header,
# compiled with our warnings; the build fails when a header misses an include.
set(minifloat_public_headers
  accumulate.hpp convert_span.hpp decimal.hpp error.hpp file_io.hpp gaussws.hpp minifloat.hpp npy.hpp pack.hpp
  parse.hpp quant.hpp registry.hpp safetensors.hpp stochastic.hpp tables.hpp
  core/arith.hpp core/bits.hpp core/block_scale.hpp core/config.hpp core/convert.hpp core/core.hpp core/format.hpp
  core/fp32_ops.hpp core/gaussws_noise.hpp core/profile.hpp core/random.hpp core/round_pack.hpp core/rounding.hpp
  core/tfdpa.hpp core/unpacked.hpp
  train/quantizer.hpp train/recipe.hpp train/study.hpp train/tensor.hpp)
set(header_check_sources)
foreach(h IN LISTS minifloat_public_headers)
  string(MAKE_C_IDENTIFIER "${h}" id)
  set(src "${CMAKE_CURRENT_BINARY_DIR}/header_check/${id}.cpp")
  file(CONFIGURE OUTPUT "${src}" CONTENT "#include <minifloat/${h}>\n#include <minifloat/${h}>  // and include guards\n")
  list(APPEND header_check_sources "${src}")
endforeach()
add_library(minifloat_header_check OBJECT ${header_check_sources})
target_link_libraries(minifloat_header_check PRIVATE minifloat::train $<BUILD_INTERFACE:minifloat_warnings>)
