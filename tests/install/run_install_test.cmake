# SPDX-License-Identifier: Apache-2.0
# run_install_test.cmake (cmake -P): install the current build into a fresh prefix, configure and
# build tests/install/consumer against it with find_package, and run its programs.
# Inputs (-D): BUILD_DIR, CONSUMER_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, QUICKSTART_SOURCE.
foreach(v BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_install_test.cmake: -D${v}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} failed (exit ${rc}): ${ARGN}")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(cbuild "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/include/minifloat/minifloat.hpp" OR NOT EXISTS "${prefix}/include/minifloat/core/core.hpp")
  message(FATAL_ERROR "install test: headers were not installed under ${prefix}/include")
endif()
# The consumer must find minifloat only through the prefix, never the source or build tree.
run("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${cbuild}" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "-DMINIFLOAT_QUICKSTART_SOURCE=${QUICKSTART_SOURCE}")
run("build the consumer" ${CMAKE_COMMAND} --build "${cbuild}" -j 2)
run("run consumer" "${cbuild}/consumer")
run("run consumer_core" "${cbuild}/consumer_core")
run("run consumer_check" "${cbuild}/consumer_check")
if(QUICKSTART_SOURCE)
  run("run quickstart (installed library)" "${cbuild}/quickstart")
endif()
message("install test: ok")
