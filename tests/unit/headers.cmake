# SPDX-License-Identifier: Apache-2.0
# Every public header compiles on its own (style.md §2.4 rule 1): one generated .cpp per header,
# compiled with our warnings; the build fails when a header misses an include. Each layer sees only
# what it may use (issue 9 item 3):
#   core/*.hpp   against minifloat::core alone (the device-safe core; its content rules: unit.core_is_device_safe)
#   *.hpp        against minifloat::minifloat (the compiled library; not train)
#   check/*.hpp  against minifloat::check (the kernel checker)
#   train/*.hpp  against minifloat::train
# (The same core headers compile for the device with nvcc: cuda_compile.cmake.)
set(inc ${PROJECT_SOURCE_DIR}/include/minifloat)
file(GLOB core_headers RELATIVE ${inc} CONFIGURE_DEPENDS ${inc}/core/*.hpp)
file(GLOB library_headers RELATIVE ${inc} CONFIGURE_DEPENDS ${inc}/*.hpp)
file(GLOB check_headers RELATIVE ${inc} CONFIGURE_DEPENDS ${inc}/check/*.hpp)
file(GLOB train_headers RELATIVE ${inc} CONFIGURE_DEPENDS ${inc}/train/*.hpp)
foreach(layer core library check train)
  set(sources)
  foreach(h IN LISTS ${layer}_headers)
    string(MAKE_C_IDENTIFIER "${h}" id)
    set(src "${CMAKE_CURRENT_BINARY_DIR}/header_check/${id}.cpp")
    file(CONFIGURE OUTPUT "${src}" CONTENT "#include <minifloat/${h}>\n#include <minifloat/${h}>  // and include guards\n")
    list(APPEND sources "${src}")
  endforeach()
  add_library(minifloat_header_check_${layer} OBJECT ${sources})
endforeach()
target_link_libraries(minifloat_header_check_core PRIVATE minifloat::core $<BUILD_INTERFACE:minifloat_warnings>)
target_link_libraries(minifloat_header_check_library PRIVATE minifloat::minifloat $<BUILD_INTERFACE:minifloat_warnings>)
target_link_libraries(minifloat_header_check_check PRIVATE minifloat::check $<BUILD_INTERFACE:minifloat_warnings>)
target_link_libraries(minifloat_header_check_train PRIVATE minifloat::train $<BUILD_INTERFACE:minifloat_warnings>)
