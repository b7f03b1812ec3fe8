# SPDX-License-Identifier: Apache-2.0
# layers_scan.cmake (cmake -P): the test unit.layers_point_down. Reads every include line of the
# project's own code (include/, src/, python/src/ under ROOT) and fails on an arrow that points up or
# sideways. The layers, bottom up:
#   core        include/minifloat/core/                      reaches core
#   simd        src/simd/ (the library's SIMD kernels)       reaches core, simd
#   library     include/minifloat/*.hpp, src/*.{cpp,hpp}     reaches core, simd, library
#   check       include/minifloat/check/, src/check/         reaches core, library, check
#   train       include/minifloat/train/, src/train/         reaches core, library, train
#   cuda        include/minifloat/cuda/, src/cuda/           reaches core, library, cuda
#   cuda-check  {include/minifloat,src}/cuda/check_{kernel,device}.*: the kernels as kernels of the
#               checker, the bridge above check and cuda     reaches core, library, check, cuda, cuda-check
#   cli         src/cli/ (the command-line tool)             reaches every layer but python
#   python      python/src/ (the Python extension)           reaches every layer but cli
# check, train and cuda sit beside each other and never include each other; the two apps neither.
# Inside the CLI no command includes another: src/cli/cmd_X*.{cpp,hpp} may include the command
# headers cmd_Y.hpp only where cmd_X starts with cmd_Y (its own command: cmd_probe_dot.cpp →
# cmd_probe.hpp); what commands share lives in common.hpp and options.hpp. main.cpp includes them all.
# A quoted include is resolved against the including file's folder, then ROOT/include, then ROOT/src
# (the library's private include folder); an <minifloat/…> include against ROOT/include. Includes
# that resolve to nothing under ROOT are third-party (hwy/…) and not checked, except a "minifloat/…"
# one, which is reported. Only lines that start with `#include` count (not commented-out ones).
# Inputs: -DROOT=<tree>. With -DEXPECT=<file> (the self-test unit.layers_point_down_detects) the
# scan must report exactly the arrows listed in that file, one per line.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "layers_scan.cmake: -DROOT=<source tree> is required")
endif()

# The layer of a path relative to ROOT ("" when it belongs to none).
function(layer_of rel out)
  set(l "")
  if(rel MATCHES "^include/minifloat/core/")
    set(l core)
  elseif(rel MATCHES "^(include/minifloat|src)/cuda/check_(kernel|device)\\.")
    set(l cuda-check)
  elseif(rel MATCHES "^(include/minifloat|src)/check/")
    set(l check)
  elseif(rel MATCHES "^(include/minifloat|src)/train/")
    set(l train)
  elseif(rel MATCHES "^(include/minifloat|src)/cuda/")
    set(l cuda)
  elseif(rel MATCHES "^src/simd/")
    set(l simd)
  elseif(rel MATCHES "^src/cli/")
    set(l cli)
  elseif(rel MATCHES "^python/src/")
    set(l python)
  elseif(rel MATCHES "^include/minifloat/[^/]+$" OR rel MATCHES "^src/[^/]+$")
    set(l library)
  endif()
  set(${out} "${l}" PARENT_SCOPE)
endfunction()

set(reach_core core)
set(reach_simd core simd)
set(reach_library core simd library)
set(reach_check core library check)
set(reach_train core library train)
set(reach_cuda core library cuda)
set(reach_cuda-check core library check cuda cuda-check)
set(reach_cli core simd library check train cuda cuda-check cli)
set(reach_python core simd library check train cuda cuda-check python)

file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/include/*.hpp" "${ROOT}/include/*.h" "${ROOT}/src/*.cpp"
     "${ROOT}/src/*.hpp" "${ROOT}/src/*.h" "${ROOT}/src/*.cu" "${ROOT}/src/*.cuh" "${ROOT}/python/src/*.cpp"
     "${ROOT}/python/src/*.hpp")
list(SORT files)
set(violations)
set(n_files 0)
set(n_arrows 0)
foreach(f IN LISTS files)
  layer_of("${f}" from)
  if(from STREQUAL "")
    continue()
  endif()
  math(EXPR n_files "${n_files} + 1")
  get_filename_component(dir "${f}" DIRECTORY)
  get_filename_component(stem "${f}" NAME_WE)
  file(STRINGS "${ROOT}/${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
      continue()
    endif()
    set(open "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    set(target "")
    if(open STREQUAL "\"")
      foreach(base "${dir}" include src)
        if(EXISTS "${ROOT}/${base}/${name}" AND NOT IS_DIRECTORY "${ROOT}/${base}/${name}")
          cmake_path(SET target NORMALIZE "${base}/${name}")
          break()
        endif()
      endforeach()
    elseif(name MATCHES "^minifloat/" AND EXISTS "${ROOT}/include/${name}")
      set(target "include/${name}")
    endif()
    if(target STREQUAL "")
      if(name MATCHES "^minifloat/")
        list(APPEND violations "${f}: \"${name}\" (no such project header)")
      endif()
      continue()
    endif()
    math(EXPR n_arrows "${n_arrows} + 1")
    layer_of("${target}" to)
    if(to STREQUAL "")
      list(APPEND violations "${f}: ${from} -> ${target} (outside every layer)")
      continue()
    endif()
    if(NOT to IN_LIST reach_${from})
      list(APPEND violations "${f}: ${from} -> ${to} (${name})")
      continue()
    endif()
    # Inside the CLI: no command includes another command's header.
    if(from STREQUAL "cli" AND target MATCHES "^src/cli/(cmd_[A-Za-z0-9_]+)\\.hpp$" AND NOT stem STREQUAL "main")
      string(LENGTH "${CMAKE_MATCH_1}" len)
      string(SUBSTRING "${stem}" 0 ${len} prefix)
      if(NOT prefix STREQUAL CMAKE_MATCH_1)
        list(APPEND violations "${f}: cli command -> another command (${name}: share through common.hpp)")
      endif()
    endif()
  endforeach()
endforeach()

if(n_files EQUAL 0)
  message(FATAL_ERROR "layers_point_down: no source files under ${ROOT}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/scan_verdict.cmake")
mf_scan_verdict(layers_point_down "${ROOT}" "the ${n_files} fixture file(s) give exactly the expected arrows"
                "includes must point down (core < library < check | train | cuda < cli | python; see tests/unit/layers_scan.cmake)"
                "${n_files} files, ${n_arrows} includes between project files")
