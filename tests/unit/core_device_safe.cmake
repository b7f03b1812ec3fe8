# SPDX-License-Identifier: Apache-2.0
# core_device_safe.cmake (cmake -P): the test unit.core_is_device_safe. Scans every header of the
# device-safe core (include/minifloat/core/) for what device code and the core's contract exclude:
#   - a standard include outside the allowlist below (so no <cmath>, <string>, <stdexcept>, <vector>,
#     <iostream>, <memory>, ...), or a quoted include that is not another core header (layers point down);
#   - the tokens of exceptions (throw, try, catch), allocation (new, delete, malloc, ...), owning
#     containers and strings (std::string, std::vector, ...), streams, and <cmath> functions.
# Comments are removed before the scan, string literals before the token scan, and `= delete` is allowed.
# Inputs: -DCORE_DIR=<folder>. With -DEXPECT=<file> (the self-test unit.core_is_device_safe_detects)
# the scan must report exactly the violations listed in that file, one per line.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED CORE_DIR)
  message(FATAL_ERROR "core_device_safe.cmake: -DCORE_DIR=<include/minifloat/core> is required")
endif()

set(allowed_system_includes cstdint cstddef cstring cfloat climits type_traits Random123/philox.h)
set(forbidden_tokens
  throw try catch new delete malloc calloc realloc free
  std::string std::wstring std::string_view std::vector std::array std::map std::unordered_map std::set
  std::unordered_set std::list std::deque std::optional std::variant std::any std::function
  std::unique_ptr std::shared_ptr std::make_unique std::make_shared std::allocator
  std::exception std::runtime_error std::logic_error std::invalid_argument std::out_of_range
  std::cout std::cerr std::ostream std::istream std::printf printf fprintf puts
  std::numeric_limits typeid)
set(cmath_functions sqrt cbrt pow exp exp2 expm1 log log2 log10 log1p ldexp frexp ilogb logb scalbn modf fmod
  remainder fmin fmax fabs abs isnan isinf isfinite isnormal signbit copysign fma floor ceil trunc round
  nearbyint rint lround nextafter nexttoward erf erfc)
foreach(f IN LISTS cmath_functions)
  list(APPEND forbidden_tokens "std::${f}" "__builtin_${f}" "__builtin_${f}f")
endforeach()

file(GLOB headers RELATIVE "${CORE_DIR}" "${CORE_DIR}/*.hpp")
list(SORT headers)
set(violations)
set(n_includes 0)
foreach(h IN LISTS headers)
  file(READ "${CORE_DIR}/${h}" text)
  # 1. block comments, then line comments
  while(TRUE)
    string(FIND "${text}" "/*" a)
    if(a EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${text}" 0 ${a} before)
    string(SUBSTRING "${text}" ${a} -1 rest)
    string(FIND "${rest}" "*/" b)
    if(b EQUAL -1)
      set(text "${before}")
    else()
      math(EXPR b "${b} + 2")
      string(SUBSTRING "${rest}" ${b} -1 rest)
      set(text "${before} ${rest}")
    endif()
  endwhile()
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  # 2. includes
  string(REGEX MATCHALL "#[ \t]*include[ \t]*[<\"][^>\"\n]*[>\"]" incs "${text}")
  foreach(inc IN LISTS incs)
    math(EXPR n_includes "${n_includes} + 1")
    string(REGEX REPLACE "^#[ \t]*include[ \t]*[<\"]([^>\"\n]*)[>\"]$" "\\1" name "${inc}")
    if(inc MATCHES "<")
      if(NOT name IN_LIST allowed_system_includes)
        list(APPEND violations "${h}: include <${name}>")
      endif()
    elseif(name MATCHES "/" OR NOT EXISTS "${CORE_DIR}/${name}")
      list(APPEND violations "${h}: include \"${name}\" (not a core header)")
    endif()
  endforeach()
  # 3. tokens, outside string literals and `= delete`
  string(REGEX REPLACE "#[ \t]*include[^\n]*" "" text "${text}")
  string(REGEX REPLACE "\"([^\"\\\\\n]|\\\\.)*\"" "\"\"" text "${text}")
  string(REGEX REPLACE "=[ \t\n]*delete" "=" text "${text}")
  string(REGEX MATCHALL "[A-Za-z_][A-Za-z_0-9]*(::[A-Za-z_][A-Za-z_0-9]*)*" tokens "${text}")
  list(REMOVE_DUPLICATES tokens)
  foreach(t IN LISTS tokens)
    if(t IN_LIST forbidden_tokens)
      list(APPEND violations "${h}: ${t}")
    endif()
  endforeach()
endforeach()

list(LENGTH headers n_headers)
if(n_headers EQUAL 0)
  message(FATAL_ERROR "core_is_device_safe: no headers in ${CORE_DIR}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/scan_verdict.cmake")
mf_scan_verdict(core_is_device_safe "${CORE_DIR}" "the ${n_headers} fixture header(s) give exactly the expected violations"
                "the device-safe core (${CORE_DIR}) must not use exceptions, allocation, <cmath>, strings, containers or streams, nor include anything above it"
                "${n_headers} headers, ${n_includes} includes")
