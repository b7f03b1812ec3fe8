# SPDX-License-Identifier: Apache-2.0
# budgets.cmake: the budgets of issue 24 item 7 (F8), scanned by budget_scan.cmake; included from
# tests/unit/CMakeLists.txt. Each check runs on the tree and, as a self-test, on budget_fixture/, where it
# must fail with its verdict (…_rejects_fixture) and report exactly the fixture's *_expected.txt (…_detects).
#   unit.functions_within_budget   no function of src/, include/, python/src/ over 150 lines; a CLI command's
#                                  run_* and main.cpp's run (src/cli/) up to 200 (universal-ctags)
#   unit.long_lines_within_budget  at most 60 lines over 120 characters in the C++ and Python of src/,
#                                  include/, python/ (the fixture runs with a budget of 2 for its 3)
#   unit.clang_format_clean        the C++ of src/, include/, python/src/ is as clang-format lays it out with
#                                  the top .clang-format (the fixture's files are checked with that style too)
# scripts/setup installs universal-ctags and clang-format; without them the checks fail saying so.
find_program(MINIFLOAT_CTAGS NAMES ctags-universal universal-ctags ctags)
find_program(MINIFLOAT_CLANG_FORMAT NAMES clang-format clang-format-14)
set(_mf_budget_fixture ${CMAKE_CURRENT_LIST_DIR}/budget_fixture)
set(_mf_budget_args_functions -DCTAGS=${MINIFLOAT_CTAGS})
set(_mf_budget_args_long_lines)
set(_mf_budget_args_clang_format -DCLANG_FORMAT=${MINIFLOAT_CLANG_FORMAT} -DSTYLE=${PROJECT_SOURCE_DIR}/.clang-format)
set(_mf_budget_fixture_args_long_lines -DMAX_LONG=2)
set(_mf_budget_fails_functions "functions: functions over budget")
set(_mf_budget_fails_long_lines "long_lines: 3 lines over 120 characters, budget 2")
set(_mf_budget_fails_clang_format "clang_format: files clang-format would change")
foreach(_mf_check IN ITEMS functions long_lines clang_format)
  if(_mf_check STREQUAL "clang_format")
    set(_mf_name unit.clang_format_clean)
  else()
    set(_mf_name unit.${_mf_check}_within_budget)
  endif()
  set(_mf_args -DCHECK=${_mf_check} ${_mf_budget_args_${_mf_check}})
  set(_mf_scan -P ${CMAKE_CURRENT_LIST_DIR}/budget_scan.cmake)
  add_test(NAME ${_mf_name} COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} ${_mf_args} ${_mf_scan})
  add_test(NAME ${_mf_name}_rejects_fixture
           COMMAND ${CMAKE_COMMAND} -DROOT=${_mf_budget_fixture} ${_mf_args} ${_mf_budget_fixture_args_${_mf_check}}
                   ${_mf_scan})
  add_test(NAME ${_mf_name}_detects
           COMMAND ${CMAKE_COMMAND} -DROOT=${_mf_budget_fixture} ${_mf_args} ${_mf_budget_fixture_args_${_mf_check}}
                   -DEXPECT=${_mf_budget_fixture}/${_mf_check}_expected.txt ${_mf_scan})
  # The rejection must be the scan's own failure verdict (a crash or a missing tool does not pass).
  set_tests_properties(${_mf_name}_rejects_fixture
                       PROPERTIES PASS_REGULAR_EXPRESSION "${_mf_budget_fails_${_mf_check}}")
  set_tests_properties(${_mf_name} ${_mf_name}_rejects_fixture ${_mf_name}_detects PROPERTIES LABELS "unit;budget")
endforeach()
