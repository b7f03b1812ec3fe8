# SPDX-License-Identifier: Apache-2.0
# layers.cmake: the checks of the layer layout (issue 9 items 2 and 3, issue 24 item 3); included from
# tests/unit/CMakeLists.txt.
#   unit.core_is_device_safe          include/minifloat/core/ has no exceptions, allocation, <cmath>, strings,
#                                     containers, streams, nor includes from above (core_device_safe.cmake)
#   unit.core_is_device_safe_detects  the same scan reports exactly the planted violations of core_scan_fixture/
#   unit.fp_contract_off_everywhere   every TU of this build carries -ffp-contract=off (fp_contract_check.cmake)
#   unit.layers_point_down            every include of include/, src/ and python/src points down or within its
#                                     layer: core < library (simd inside) < check | train | cuda < cli | python,
#                                     and no CLI command includes another (layers_scan.cmake)
#   unit.layers_point_down_rejects_fixture  the same scan fails on layers_fixture/ (WILL_FAIL), a fake tree with
#                                     upward and sideways includes, and
#   unit.layers_point_down_detects    reports exactly the arrows of layers_fixture/expected.txt there
# (FpContract.MulAddIsNotFusedWhereFmaIsAvailable, in minifloat_unit_tests, shows the flag works.)
add_test(NAME unit.core_is_device_safe
         COMMAND ${CMAKE_COMMAND} -DCORE_DIR=${PROJECT_SOURCE_DIR}/include/minifloat/core
                 -P ${CMAKE_CURRENT_LIST_DIR}/core_device_safe.cmake)
add_test(NAME unit.core_is_device_safe_detects
         COMMAND ${CMAKE_COMMAND} -DCORE_DIR=${CMAKE_CURRENT_LIST_DIR}/core_scan_fixture
                 -DEXPECT=${CMAKE_CURRENT_LIST_DIR}/core_scan_fixture/expected.txt
                 -P ${CMAKE_CURRENT_LIST_DIR}/core_device_safe.cmake)
set_tests_properties(unit.core_is_device_safe unit.core_is_device_safe_detects PROPERTIES LABELS unit)

add_test(NAME unit.layers_point_down
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/layers_scan.cmake)
add_test(NAME unit.layers_point_down_rejects_fixture
         COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_CURRENT_LIST_DIR}/layers_fixture -P ${CMAKE_CURRENT_LIST_DIR}/layers_scan.cmake)
add_test(NAME unit.layers_point_down_detects
         COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_CURRENT_LIST_DIR}/layers_fixture
                 -DEXPECT=${CMAKE_CURRENT_LIST_DIR}/layers_fixture/expected.txt
                 -P ${CMAKE_CURRENT_LIST_DIR}/layers_scan.cmake)
set_tests_properties(unit.layers_point_down_rejects_fixture PROPERTIES WILL_FAIL TRUE)
set_tests_properties(unit.layers_point_down unit.layers_point_down_rejects_fixture unit.layers_point_down_detects
                     PROPERTIES LABELS unit)

if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
  # Sources that must be in the database ('|'-separated): the library, the CLI, a test, the FMA probe.
  set(required "${PROJECT_SOURCE_DIR}/src/quant/tile_loops.cpp|${PROJECT_SOURCE_DIR}/src/cli/main.cpp")
  string(APPEND required "|${PROJECT_SOURCE_DIR}/src/train/study.cpp|${CMAKE_CURRENT_LIST_DIR}/fp_contract_test.cpp")
  add_test(NAME unit.fp_contract_off_everywhere
           COMMAND ${CMAKE_COMMAND} -DCOMPILE_COMMANDS=${PROJECT_BINARY_DIR}/compile_commands.json
                   "-DREQUIRED=${required}" -P ${CMAKE_CURRENT_LIST_DIR}/fp_contract_check.cmake)
else()
  add_test(NAME unit.fp_contract_off_everywhere
           COMMAND ${CMAKE_COMMAND} -E echo
                   "SKIPPED: the ${CMAKE_GENERATOR} generator writes no compile_commands.json (use Ninja or Makefiles)")
  set_tests_properties(unit.fp_contract_off_everywhere PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
endif()
set_tests_properties(unit.fp_contract_off_everywhere PROPERTIES LABELS unit)

# Front ends learn why the library refused something from data, never from an error message's text
# (error_text_scan.cmake); the self-test plants 3 such readings the scan must report.
add_test(NAME unit.front_ends_read_no_error_text
         COMMAND ${CMAKE_COMMAND} "-DDIRS=${PROJECT_SOURCE_DIR}/src/cli;${PROJECT_SOURCE_DIR}/python/src;${PROJECT_SOURCE_DIR}/python/minifloat"
                 -P ${CMAKE_CURRENT_LIST_DIR}/error_text_scan.cmake)
add_test(NAME unit.front_ends_read_no_error_text_detects
         COMMAND ${CMAKE_COMMAND} -DDIRS=${CMAKE_CURRENT_LIST_DIR}/error_text_fixture -DEXPECT=3
                 -P ${CMAKE_CURRENT_LIST_DIR}/error_text_scan.cmake)
set_tests_properties(unit.front_ends_read_no_error_text unit.front_ends_read_no_error_text_detects PROPERTIES LABELS unit)
