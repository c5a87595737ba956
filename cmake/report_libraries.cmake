# The chart libraries of report.html (docs/dependencies.md): vega, vega-lite and vega-embed,
# pinned in web/package-lock.json, installed by `npm ci` into the build tree (never the
# source tree) and linked into mirac_runtime as one blob that report.html inlines.
#
# Steps, each re-run only when its input changes:
#   web/package{,-lock}.json --npm ci--> BUILD/web/node_modules   (stamp: the lock file's copy)
#   the three *.min.js + LICENSE --bundle_report_libraries.cmake--> BUILD/generated/report_libraries.js
#   runtime/report/libraries.cpp pulls that file in with `.incbin` (fast, unlike a hex array).
# -DMIRAC_CHARTS=OFF builds without them (no node, npm or network needed): reports keep
# every table, and each figure's place says the charts were left out (docs/report.md).
option(MIRAC_CHARTS "inline the chart libraries (npm packages) into report.html" ON)
find_program(MIRAC_NODE NAMES node nodejs)
find_program(MIRAC_NPM NAMES npm)
set(MIRAC_REPORT_LIBRARIES_JS ${CMAKE_BINARY_DIR}/generated/report_libraries.js)
if(NOT MIRAC_CHARTS)
  # An empty bundle: the page's script sees no vegaEmbed and says so in each figure's place.
  file(WRITE ${MIRAC_REPORT_LIBRARIES_JS} "/* mirac built with MIRAC_CHARTS=OFF: no chart libraries */\n")
  return()
endif()
if(NOT MIRAC_NODE OR NOT MIRAC_NPM)
  message(FATAL_ERROR
    "mirac needs node and npm at build time to install the chart libraries of report.html "
    "(web/package-lock.json). Install them with: sudo apt-get install nodejs npm "
    "(or run scripts/bootstrap), or build without charts: cmake -DMIRAC_CHARTS=OFF ...")
endif()

set(MIRAC_WEB_SOURCE ${CMAKE_SOURCE_DIR}/web)
set(MIRAC_WEB_BUILD ${CMAKE_BINARY_DIR}/web)
set(MIRAC_WEB_STAMP ${MIRAC_WEB_BUILD}/installed.stamp)
# npm ci installs exactly what the lock file says, into the directory holding it; the copy
# keeps node_modules out of the source tree. --ignore-scripts: no package runs code at
# install; --prefer-offline reuses npm's cache. A failure says what to do
# (cmake/install_report_libraries.cmake).
add_custom_command(
  OUTPUT ${MIRAC_WEB_STAMP}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MIRAC_WEB_BUILD}
  COMMAND ${CMAKE_COMMAND} -E copy ${MIRAC_WEB_SOURCE}/package.json ${MIRAC_WEB_SOURCE}/package-lock.json
          ${MIRAC_WEB_BUILD}/
  COMMAND ${CMAKE_COMMAND} -DNPM=${MIRAC_NPM} -DDIR=${MIRAC_WEB_BUILD} -DSTAMP=${MIRAC_WEB_STAMP}
          -P ${CMAKE_SOURCE_DIR}/cmake/install_report_libraries.cmake
  DEPENDS ${MIRAC_WEB_SOURCE}/package.json ${MIRAC_WEB_SOURCE}/package-lock.json
          ${CMAKE_SOURCE_DIR}/cmake/install_report_libraries.cmake
  COMMENT "Installing the report's chart libraries (npm ci)"
  VERBATIM)

add_custom_command(
  OUTPUT ${MIRAC_REPORT_LIBRARIES_JS}
  COMMAND ${CMAKE_COMMAND} -DMODULES=${MIRAC_WEB_BUILD}/node_modules -DOUTPUT=${MIRAC_REPORT_LIBRARIES_JS}
          -P ${CMAKE_SOURCE_DIR}/cmake/bundle_report_libraries.cmake
  DEPENDS ${MIRAC_WEB_STAMP} ${CMAKE_SOURCE_DIR}/cmake/bundle_report_libraries.cmake
  COMMENT "Bundling the report's chart libraries"
  VERBATIM)
