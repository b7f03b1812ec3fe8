# SPDX-License-Identifier: Apache-2.0
# docs_check.cmake: checks of README.md and docs/ (cmake -P; no other tool needed).
#   -DCHECK=size       README.md is at most 25,600 bytes: it is the front page, the reference is docs/
#   -DCHECK=links      every relative link [text](target) of README.md and docs/*.md names a file or
#                      folder of the repository (the part before any #anchor; http(s) and mailto links
#                      and pure #anchors are not checked)
#   -DCHECK=decisions  every decision or trap ID (D1 … D17, T1 … T26: `\b[DT][0-9]{1,2}\b`) and every
#                      `spec-digest §N` that the files of SCAN cite has an entry in docs/decisions.md (a
#                      heading `### D7 …`, `### spec-digest §2.3 …`)
# -DROOT=<source folder>; decisions also -DSCAN=<folders, comma-separated, relative to ROOT> and
# -DEXCLUDE=<a folder under ROOT to skip> (the negative fixture decisions_fixture/, which cites IDs
# the page lacks: unit.decisions_scanner_rejects_unknown_ids scans it and must fail).
cmake_minimum_required(VERSION 3.25)

if(CHECK STREQUAL "size")
  file(SIZE "${ROOT}/README.md" size)
  if(size GREATER 25600)
    message(FATAL_ERROR "README.md is ${size} bytes, more than 25,600: it is the front page; move the "
                        "reference text into docs/ and link to it")
  endif()
  message(STATUS "ok: README.md is ${size} bytes (at most 25,600)")

elseif(CHECK STREQUAL "links")
  file(GLOB pages "${ROOT}/docs/*.md")
  list(PREPEND pages "${ROOT}/README.md")
  set(bad "")
  set(count 0)
  foreach(page IN LISTS pages)
    get_filename_component(dir "${page}" DIRECTORY)
    file(READ "${page}" text)
    # Inline code may show link-like text that is not a link: drop `…` spans first. Brackets and
    # semicolons would split or join CMake list items: "](" becomes a marker, the rest spaces.
    string(REGEX REPLACE "`[^`\n]*`" "" text "${text}")
    string(REPLACE "](" " LINK:(" text "${text}")
    string(REGEX REPLACE "[][;]" " " text "${text}")
    string(REGEX MATCHALL "LINK:\\([^) \n]+\\)" links "${text}")
    foreach(link IN LISTS links)
      string(REGEX REPLACE "^LINK:\\(([^)]*)\\)$" "\\1" target "${link}")
      if(target MATCHES "^(https?:|mailto:|#)")
        continue()
      endif()
      string(REGEX REPLACE "#.*$" "" path "${target}")
      math(EXPR count "${count} + 1")
      if(NOT EXISTS "${dir}/${path}")
        file(RELATIVE_PATH rel "${ROOT}" "${page}")
        string(APPEND bad "\n  ${rel}: (${target}) names no file")
      endif()
    endforeach()
  endforeach()
  if(bad)
    message(FATAL_ERROR "links to files that do not exist:${bad}")
  endif()
  message(STATUS "ok: ${count} relative links of README.md and docs/*.md resolve")

elseif(CHECK STREQUAL "decisions")
  file(READ "${ROOT}/docs/decisions.md" page)
  string(REGEX MATCHALL "\n### [DT][0-9]+ " heads "${page}")
  set(known "")
  foreach(h IN LISTS heads)
    string(REGEX REPLACE "^\n### ([DT][0-9]+) $" "\\1" id "${h}")
    list(APPEND known "${id}")
  endforeach()
  string(REGEX MATCHALL "\n### spec-digest §[0-9.]*[0-9]" sheads "${page}")
  foreach(h IN LISTS sheads)
    string(REGEX REPLACE "^\n### spec-digest " "" id "${h}")
    list(APPEND known "${id}")
  endforeach()

  string(REPLACE "," ";" SCAN "${SCAN}")
  set(files "")
  foreach(d IN LISTS SCAN)
    file(GLOB_RECURSE found "${ROOT}/${d}/*.cpp" "${ROOT}/${d}/*.hpp" "${ROOT}/${d}/*.h" "${ROOT}/${d}/*.cu"
         "${ROOT}/${d}/*.cuh" "${ROOT}/${d}/*.py" "${ROOT}/${d}/*.pyi" "${ROOT}/${d}/*.cmake" "${ROOT}/${d}/*.sh"
         "${ROOT}/${d}/CMakeLists.txt")
    list(APPEND files ${found})
  endforeach()
  if(EXCLUDE)
    list(FILTER files EXCLUDE REGEX "^${ROOT}/${EXCLUDE}/")
  endif()
  list(LENGTH files nfiles)
  if(nfiles EQUAL 0)
    message(FATAL_ERROR "no source files under ${SCAN}")
  endif()

  set(bad "")
  set(cited "")
  foreach(f IN LISTS files)
    file(READ "${f}" text)
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    # spec-digest sections: "spec-digest §2.3", "spec-digest.md §11".
    string(REGEX MATCHALL "spec-digest(\\.md)? ?§ ?[0-9]+(\\.[0-9]+)?" refs "${text}")
    # IDs: every byte that is not a word character becomes two spaces, so " D7 " is a whole word
    # and neighbours ("D6/D12") do not share a separator.
    string(REGEX REPLACE "[^A-Za-z0-9_]" "  " words "${text}")
    string(REGEX MATCHALL " [DT][0-9][0-9]? " ids "${words}")
    foreach(r IN LISTS refs)
      string(REGEX REPLACE "^.*§ ?" "§" r "${r}")
      list(APPEND ids "${r}")
    endforeach()
    foreach(id IN LISTS ids)
      string(STRIP "${id}" id)
      list(APPEND cited "${id}")
      if(NOT id IN_LIST known)
        string(APPEND bad "\n  ${rel} cites ${id}")
      endif()
    endforeach()
  endforeach()
  if(bad)
    message(FATAL_ERROR "IDs cited in comments that are not in docs/decisions.md (add a '### ID …' entry: "
                        "the rule, the choice made, the sources):${bad}")
  endif()
  list(REMOVE_DUPLICATES cited)
  list(LENGTH cited ncited)
  list(LENGTH known nknown)
  message(STATUS "ok: the ${nfiles} files scanned cite ${ncited} distinct IDs, all among the ${nknown} entries of docs/decisions.md")

else()
  message(FATAL_ERROR "docs_check.cmake: -DCHECK=size|links|decisions")
endif()
