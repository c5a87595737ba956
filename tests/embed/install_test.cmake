# install_test.cmake: mirac as another project uses it. Installs this build into a prefix
# of its own, builds examples/embed against that prefix alone (find_package(mirac), the
# installed headers; never the source tree) and runs it. Everything it writes is under
# WORK_DIR, in the build directory; on success the prefix and the example's build go.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DMAKE_PROGRAM=...
#         -DCXX_COMPILER=... -P install_test.cmake
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

function(expect text pattern)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "expected output matching '${pattern}', got:\n${text}")
  endif()
endfunction()

function(expect_literal text part)  # paths may hold characters a regex reads otherwise
  string(FIND "${text}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${part}' in:\n${text}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# What the package holds: the public header and those it reaches, not the CLI's.
foreach(installed include/mirac/mirac/mirac.hpp include/mirac/engine/audit.hpp include/mirac/runtime/http/http_client.hpp
                  lib/cmake/mirac/mirac-config.cmake lib/cmake/mirac/mirac-config-version.cmake bin/mirac)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "not installed: ${installed}")
  endif()
endforeach()
if(EXISTS ${prefix}/include/mirac/cli)
  message(FATAL_ERROR "the CLI's headers were installed: they are not part of the package")
endif()

# No user or system package registry: only the prefix may provide mirac.
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${example_build} -G ${GENERATOR}
     -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
     -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
file(STRINGS ${example_build}/CMakeCache.txt found_at REGEX "^mirac_DIR:")
expect_literal("${found_at}" "mirac_DIR:PATH=${prefix}/")
# The compiler sees the installed headers, not the source tree's.
file(READ ${example_build}/compile_commands.json commands)
foreach(flag "-I${SOURCE_DIR} " "-isystem ${SOURCE_DIR} " "-I${SOURCE_DIR}\"" "-isystem ${SOURCE_DIR}\"")
  string(FIND "${commands}" "${flag}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the example is compiled with the source tree on its include path:\n${commands}")
  endif()
endforeach()
expect_literal("${commands}" "-isystem ${prefix}/include/mirac")

step(${CMAKE_COMMAND} --build ${example_build})
step(${example_build}/embed ${WORK_DIR}/run)
message("${step_output}")
expect("${step_output}" "mirac [0-9.]+: 4 prompts, 4 requests\n")
expect("${step_output}" "  fever_worried: I'm really worried about this. Can ibuprofen")
expect("${step_output}" "4 new answers, 4 scored, 8 requests through the client\n")
expect("${step_output}" "worry_gap = -2\n")
expect_literal("${step_output}" "results: ${WORK_DIR}/run/results/results.json\n")
if(NOT EXISTS ${WORK_DIR}/run/results/results.json)
  message(FATAL_ERROR "no results.json in ${WORK_DIR}/run/results")
endif()
# Again on the same store: nothing is sent, the results are written again.
step(${example_build}/embed ${WORK_DIR}/run)
expect("${step_output}" "0 new answers, 4 scored, 0 requests through the client\n")
expect("${step_output}" "worry_gap = -2\n")

file(REMOVE_RECURSE ${prefix} ${example_build})  # a gigabyte of libraries and the example
