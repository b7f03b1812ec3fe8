# SPDX-License-Identifier: Apache-2.0
# mma_check_all.cmake: runs `minifloat mma-check --all DIR` and checks its per-set summary: each
# FP32-destination set of issue 14 is matched 5000/5000 by a preset validated on it (oracle: the GPUs
# that measured the vectors), the H100 FP8 set's C rule is decided as +0 and the A100 ones as the file's.
execute_process(COMMAND ${CLI} mma-check --all ${DIR} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}${err}")
if(NOT rc MATCHES "^[01]$")
  message(FATAL_ERROR "mma-check --all exited ${rc}")
endif()
foreach(pair "H100-E4M3;hopper-fp8" "Ada-E4M3;ada-fp8" "B200-E4M3;blackwell-fp8" "A100-fp16;ampere-f16"
             "A100-bf16;ampere-bf16" "A100-tf32;ampere-tf32" "H100-tf32;hopper-tf32" "B200-tf32;blackwell-tf32")
  list(GET pair 0 set)
  list(GET pair 1 preset)
  string(REGEX MATCH "\n${set} \\([^\n]*\n  matched 5000/5000 by [^\n]*${preset}[^\n]* \\(validated on this set\\)" hit "${out}")
  if(NOT hit)
    message(FATAL_ERROR "set ${set}: not matched 5000/5000 by the validated preset ${preset}")
  endif()
endforeach()
string(REGEX MATCH "\nH100-E4M3 \\([^\n]*C = \\+0 \\(auto" h100 "${out}")
string(REGEX MATCH "\nA100-fp16 \\([^\n]*C = file \\(auto" a100 "${out}")
if(NOT h100 OR NOT a100)
  message(FATAL_ERROR "the C rules decided from the data are not +0 for H100-E4M3 and file for A100-fp16")
endif()
