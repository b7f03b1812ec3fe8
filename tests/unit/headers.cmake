# SPDX-License-Identifier: Apache-2.0
# Every public header compiles on its own (style.md §2.4 rule 1): one generated .cpp per header,
# compiled with our warnings; the build fails when a header misses an include.
set(minifloat_public_headers
  accumulate.hpp arith.hpp block.hpp config.hpp convert.hpp convert_span.hpp decimal.hpp error.hpp file_io.hpp
  format.hpp gaussws.hpp minifloat.hpp mma_vectors.hpp npy.hpp pack.hpp parse.hpp profile.hpp quant.hpp random.hpp registry.hpp
  round_pack.hpp rounding.hpp safetensors.hpp stochastic.hpp tables.hpp unpacked.hpp detail/bits.hpp
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
