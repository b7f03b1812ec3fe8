# SPDX-License-Identifier: Apache-2.0
# fp_contract_check.cmake (cmake -P): the test unit.fp_contract_off_everywhere. Every translation
# unit of the build (compile_commands.json: library, CLI, train, tests, oracles, fuzzers, benchmarks,
# examples, header checks) must be compiled with -ffp-contract=off, so no a*b+c is fused into an
# FMA behind the code's back (GCC does so in GNU mode whenever the target has FMA).
# Inputs: -DCOMPILE_COMMANDS=<build>/compile_commands.json, -DREQUIRED=<sources that must be listed,
# |-separated> (so an empty or stale database cannot pass).
cmake_minimum_required(VERSION 3.25)
foreach(v COMPILE_COMMANDS REQUIRED)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "fp_contract_check.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${COMPILE_COMMANDS}")
  message(FATAL_ERROR "fp_contract_off_everywhere: ${COMPILE_COMMANDS} is missing (CMAKE_EXPORT_COMPILE_COMMANDS)")
endif()
file(READ "${COMPILE_COMMANDS}" db)
string(JSON n LENGTH "${db}")
set(missing)
set(files)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON file GET "${db}" ${i} file)
  string(JSON command ERROR_VARIABLE no_command GET "${db}" ${i} command)
  if(no_command)  # the `arguments` form
    string(JSON command GET "${db}" ${i} arguments)
  endif()
  list(APPEND files "${file}")
  # CUDA TUs (nvcc, -x cu): -fmad=false for the device code and -Xcompiler=-ffp-contract=off for the host side.
  if(command MATCHES "(^|[ \t;\"])-x cu([ \t;\"]|$)")
    if(NOT command MATCHES "(^|[ \t;\"])-fmad=false([ \t;\"]|$)" OR
       NOT command MATCHES "(^|[ \t;\"])-Xcompiler=-ffp-contract=off([ \t;\"]|$)")
      list(APPEND missing "${file} (CUDA: needs -fmad=false and -Xcompiler=-ffp-contract=off)")
    endif()
  # the flag as its own argument (not e.g. -ffp-contract=off-by-one or inside a -D value)
  elseif(NOT command MATCHES "(^|[ \t;\"])-ffp-contract=off([ \t;\"]|$)")
    list(APPEND missing "${file}")
  elseif(command MATCHES "(^|[ \t;\"])-ffp-contract=(fast|on)([ \t;\"]|$)")
    list(APPEND missing "${file} (also -ffp-contract=fast/on)")
  endif()
endforeach()
string(REPLACE "|" ";" REQUIRED "${REQUIRED}")
foreach(r IN LISTS REQUIRED)
  if(NOT r IN_LIST files)
    message(FATAL_ERROR "fp_contract_off_everywhere: ${r} is not in ${COMPILE_COMMANDS} (stale database?)")
  endif()
endforeach()
if(missing)
  string(REPLACE ";" "\n  " m "${missing}")
  message(FATAL_ERROR "fp_contract_off_everywhere: compiled without -ffp-contract=off:\n  ${m}")
endif()
message("fp_contract_off_everywhere: ${n} translation units, all with -ffp-contract=off: ok")
