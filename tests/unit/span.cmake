# SPDX-License-Identifier: Apache-2.0
# span.cmake: the span (whole-array) conversion test; included from tests/unit/CMakeLists.txt.
add_executable(convert_span_test ${CMAKE_CURRENT_LIST_DIR}/convert_span_test.cpp)
target_link_libraries(convert_span_test PRIVATE minifloat::minifloat GTest::gtest_main
                      $<BUILD_INTERFACE:minifloat_warnings>)
gtest_discover_tests(convert_span_test TEST_PREFIX "unit." NO_PRETTY_VALUES PROPERTIES LABELS "unit")
