# SPDX-License-Identifier: Apache-2.0
# src/cuda/cuda.cmake (included from the top-level CMakeLists.txt, issue 10): minifloat::cuda.
#   minifloat_cuda_host   always: request validation + the CPU launcher API (cuda/api.hpp), plain C++
#   minifloat::cuda       when CUDA is enabled: the kernels and the device API (cuda/cuda.hpp)
#   minifloat_cuda_check  the kernels as kernels of the checker (cuda/check_kernel.hpp; with CUDA also
#                         cuda/check_device.hpp): the bridge above both minifloat::check and the CUDA
#                         layer, which know nothing of each other (unit.layers_point_down)
#   minifloat_device_check  the staged device validation (scripts/device-check)
# MINIFLOAT_CUDA=AUTO (default: build when a CUDA compiler is found), ON (required), OFF.
# MINIFLOAT_CUDA_ARCHITECTURES (default 89;90a;100a: each with its PTX embedded). Every device TU is
# compiled with -fmad=false (minifloat::core's INTERFACE flags). The CUDA runtime is linked statically
# (CMAKE_CUDA_RUNTIME_LIBRARY Static) so the device check runs where only the driver is installed.
set(MINIFLOAT_CUDA AUTO CACHE STRING "Build minifloat::cuda: AUTO (when a CUDA compiler is found), ON, OFF")
set_property(CACHE MINIFLOAT_CUDA PROPERTY STRINGS AUTO ON OFF)
set(MINIFLOAT_CUDA_ARCHITECTURES "89;90a;100a" CACHE STRING "CUDA architectures of minifloat::cuda (PTX embedded for each)")
if(NOT MINIFLOAT_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "MINIFLOAT_CUDA must be AUTO, ON or OFF (got '${MINIFLOAT_CUDA}')")
endif()

add_library(minifloat_cuda_host STATIC ${CMAKE_CURRENT_LIST_DIR}/api.cpp
            ${CMAKE_CURRENT_LIST_DIR}/mma_probe.cpp ${CMAKE_CURRENT_LIST_DIR}/names.cpp ${CMAKE_CURRENT_LIST_DIR}/blocks_host.cpp)
target_link_libraries(minifloat_cuda_host PUBLIC minifloat PRIVATE $<BUILD_INTERFACE:minifloat_warnings>)
set_target_properties(minifloat_cuda_host PROPERTIES POSITION_INDEPENDENT_CODE ON)  # linked into the Python module
add_library(minifloat_cuda_check STATIC ${CMAKE_CURRENT_LIST_DIR}/check_kernel.cpp)
target_link_libraries(minifloat_cuda_check PUBLIC minifloat_cuda_host minifloat_check
                      PRIVATE $<BUILD_INTERFACE:minifloat_warnings>)

set(MINIFLOAT_CUDA_ENABLED OFF)
if(NOT MINIFLOAT_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(_mf_nvcc nvcc HINTS /usr/local/cuda/bin)
    if(_mf_nvcc)
      set(CMAKE_CUDA_COMPILER "${_mf_nvcc}" CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${MINIFLOAT_CUDA_ARCHITECTURES})
    endif()
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER} CACHE FILEPATH "CUDA host compiler")
    enable_language(CUDA)
    # CMake 3.25 predates nvcc 13 and does not know its -std=c++20 (nvcc supports it since 12.0).
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    set(MINIFLOAT_CUDA_ENABLED ON)
  elseif(MINIFLOAT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "MINIFLOAT_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or put nvcc on PATH)")
  else()
    message(STATUS "minifloat: no CUDA compiler found; minifloat::cuda not built (MINIFLOAT_CUDA=AUTO)")
  endif()
endif()

if(MINIFLOAT_CUDA_ENABLED)
  find_package(CUDAToolkit REQUIRED)
  add_library(minifloat_cuda STATIC ${CMAKE_CURRENT_LIST_DIR}/kernels.cu ${CMAKE_CURRENT_LIST_DIR}/blocks.cu)
  add_library(minifloat::cuda ALIAS minifloat_cuda)
  target_link_libraries(minifloat_cuda PUBLIC minifloat_cuda_host minifloat_core CUDA::cudart_static)
  target_compile_options(minifloat_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--Werror all-warnings>)
  set_target_properties(minifloat_cuda PROPERTIES CUDA_ARCHITECTURES "${MINIFLOAT_CUDA_ARCHITECTURES}"
                        CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF CUDA_SEPARABLE_COMPILATION OFF
                        POSITION_INDEPENDENT_CODE ON)
  target_sources(minifloat_cuda_check PRIVATE ${CMAKE_CURRENT_LIST_DIR}/check_device.cpp)
  target_link_libraries(minifloat_cuda_check PUBLIC minifloat_cuda)

  add_executable(minifloat_device_check ${CMAKE_CURRENT_LIST_DIR}/device_check.cu ${CMAKE_CURRENT_LIST_DIR}/device_check_curand.cu
                 ${CMAKE_CURRENT_LIST_DIR}/device_check_mma.cu
                 ${CMAKE_CURRENT_LIST_DIR}/device_check_blocks.cu)
  target_link_libraries(minifloat_device_check PRIVATE minifloat_cuda minifloat_cuda_host minifloat)
  target_compile_options(minifloat_device_check PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--Werror all-warnings>)
  target_compile_definitions(minifloat_device_check PRIVATE
                             MINIFLOAT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  set_target_properties(minifloat_device_check PROPERTIES CUDA_ARCHITECTURES "${MINIFLOAT_CUDA_ARCHITECTURES}"
                        CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
endif()
