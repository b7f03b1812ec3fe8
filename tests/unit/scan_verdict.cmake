# SPDX-License-Identifier: Apache-2.0
# scan_verdict.cmake: the ending the source scans of tests/unit share (core_device_safe.cmake,
# layers_scan.cmake), include()d by them. mf_scan_verdict reads the including script's `violations`
# list and its optional EXPECT file: with EXPECT (a self-test on a fixture) the violations must be
# exactly the file's lines, else the script fails naming both; without it any violation fails the
# test with `fail_text` and the list. `what` names the scanned tree in the self-test's message.
macro(mf_scan_verdict name what fixture_text fail_text ok_text)
  if(DEFINED EXPECT)
    file(STRINGS "${EXPECT}" _mf_expected)
    list(SORT _mf_expected)
    list(SORT violations)
    if(NOT "${_mf_expected}" STREQUAL "${violations}")
      string(REPLACE ";" "\n  " _mf_got "${violations}")
      string(REPLACE ";" "\n  " _mf_want "${_mf_expected}")
      message(FATAL_ERROR "${name} self-test: the scan of ${what} reported\n  ${_mf_got}\nexpected\n  ${_mf_want}")
    endif()
    message("${name} self-test: ${fixture_text}: ok")
    return()
  endif()
  if(violations)
    string(REPLACE ";" "\n  " _mf_got "${violations}")
    message(FATAL_ERROR "${name}: ${fail_text}:\n  ${_mf_got}")
  endif()
  message("${name}: ${ok_text}: ok")
endmacro()
