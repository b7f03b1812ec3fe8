# SPDX-License-Identifier: Apache-2.0
# cuda_compile.cmake: the `cuda-compile` test; included from tests/unit/CMakeLists.txt.
# Compiles cuda_compile.cu (core headers on the device, a class-type-NTTP kernel) with nvcc for
# sm_90, -std=c++20, every nvcc warning an error (a __host__-only call from device code is a
# warning in nvcc). Compile only: no GPU needed. Skipped, with the reason, when nvcc is absent.
find_program(MINIFLOAT_NVCC nvcc HINTS /usr/local/cuda/bin DOC "nvcc for the cuda-compile test")
if(MINIFLOAT_NVCC)
  add_test(NAME unit.cuda_compile_core_sm90
           COMMAND ${MINIFLOAT_NVCC} -std=c++20 -arch=sm_90 --Werror all-warnings -ccbin ${CMAKE_CXX_COMPILER}
                   -I${minifloat_SOURCE_DIR}/include -c ${CMAKE_CURRENT_LIST_DIR}/cuda_compile.cu
                   -o ${CMAKE_CURRENT_BINARY_DIR}/cuda_compile.o)
else()
  add_test(NAME unit.cuda_compile_core_sm90
           COMMAND ${CMAKE_COMMAND} -E echo
                   "SKIPPED: nvcc not found (not on PATH nor in /usr/local/cuda/bin; set -DMINIFLOAT_NVCC=...)")
  set_tests_properties(unit.cuda_compile_core_sm90 PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
endif()
set_tests_properties(unit.cuda_compile_core_sm90 PROPERTIES LABELS "cuda-compile" TIMEOUT 300)
