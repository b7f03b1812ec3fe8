# SPDX-License-Identifier: Apache-2.0
# span.cmake: the span (whole-array) conversion test; included from tests/unit/CMakeLists.txt.
add_executable(convert_span_test ${CMAKE_CURRENT_LIST_DIR}/convert_span_test.cpp)
target_link_libraries(convert_span_test PRIVATE minifloat::minifloat GTest::gtest_main
                      $<BUILD_INTERFACE:minifloat_warnings>)
gtest_discover_tests(convert_span_test TEST_PREFIX "unit." NO_PRETTY_VALUES PROPERTIES LABELS "unit")

# The array door (convert_array.hpp): the door against the named wrappers and the scalar engine for
# every input type (codes → codes against decode → encode), threads 0/1/2/N, and the one sr_bits check.
add_executable(convert_array_test ${CMAKE_CURRENT_LIST_DIR}/convert_array_test.cpp)
target_link_libraries(convert_array_test PRIVATE minifloat::minifloat GTest::gtest_main
                      $<BUILD_INTERFACE:minifloat_warnings>)
gtest_discover_tests(convert_array_test TEST_PREFIX "unit." NO_PRETTY_VALUES PROPERTIES LABELS "unit")
