# SPDX-License-Identifier: Apache-2.0
# cuda_compile.cmake: the `cuda-compile` tests; included from tests/unit/CMakeLists.txt.
#   cuda_compile_core_sm90            cuda_compile.cu: kernels that instantiate the core on the device
#                                     (conversions, SR, arithmetic, block scaling, T-FDPA, GaussWS noise,
#                                     a class-type-NTTP kernel)
#   unit.cuda_header.every_core_header  one TU including every core header (each twice)
# nvcc for sm_90, -std=c++20, -fmad=false (FP contraction off on the device; -ffp-contract=off for the
# host side), every nvcc warning an error (a __host__-only call from device code is a warning in nvcc).
# Compile only: no GPU needed. Skipped, with the reason, when nvcc is absent.
find_program(MINIFLOAT_NVCC nvcc HINTS /usr/local/cuda/bin DOC "nvcc for the cuda-compile test")
set(inc ${PROJECT_SOURCE_DIR}/include/minifloat)
file(GLOB cuda_core_headers RELATIVE ${inc}/core CONFIGURE_DEPENDS ${inc}/core/*.hpp)
set(nvcc_flags -std=c++20 -arch=sm_90 -fmad=false -Xcompiler=-ffp-contract=off --Werror all-warnings
               -ccbin ${CMAKE_CXX_COMPILER} -I${PROJECT_SOURCE_DIR}/include)
set(cuda_tests unit.cuda_compile_core_sm90)
if(MINIFLOAT_NVCC)
  add_test(NAME unit.cuda_compile_core_sm90
           COMMAND ${MINIFLOAT_NVCC} ${nvcc_flags} -c ${CMAKE_CURRENT_LIST_DIR}/cuda_compile.cu
                   -o ${CMAKE_CURRENT_BINARY_DIR}/cuda_compile.o)
else()
  add_test(NAME unit.cuda_compile_core_sm90
           COMMAND ${CMAKE_COMMAND} -E echo
                   "SKIPPED: nvcc not found (not on PATH nor in /usr/local/cuda/bin; set -DMINIFLOAT_NVCC=...)")
endif()
# Every core header under nvcc in one TU (each twice: include guards). That each header also compiles on its
# own (no missing include) is checked per header by the host compiler (headers.cmake), at a fraction of
# nvcc's ~6-14 s start-up per TU; this TU checks what only nvcc sees (device annotations, EDG front end).
set(content "")
foreach(h IN LISTS cuda_core_headers)
  string(APPEND content "#include <minifloat/core/${h}>\n#include <minifloat/core/${h}>  // and include guards\n")
endforeach()
set(src "${CMAKE_CURRENT_BINARY_DIR}/cuda_header_check/every_core_header.cu")
file(CONFIGURE OUTPUT "${src}" CONTENT "${content}")
if(MINIFLOAT_NVCC)
  add_test(NAME unit.cuda_header.every_core_header
           COMMAND ${MINIFLOAT_NVCC} ${nvcc_flags} -c ${src} -o ${CMAKE_CURRENT_BINARY_DIR}/cuda_header_check/every_core_header.o)
else()
  add_test(NAME unit.cuda_header.every_core_header COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: nvcc not found (set -DMINIFLOAT_NVCC=...)")
endif()
list(APPEND cuda_tests unit.cuda_header.every_core_header)
set_tests_properties(${cuda_tests} PROPERTIES LABELS "cuda-compile" TIMEOUT 300 SKIP_REGULAR_EXPRESSION "SKIPPED:")
