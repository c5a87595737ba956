# The HTML, CSS and JavaScript of mirac's own pages (web/view, web/annotate: the page of
# `mirac view`, the annotation page) compiled into mirac_runtime (runtime/report/web_files.hpp),
# so the binary stays self-contained and the pages work offline. Sets MIRAC_WEB_FILES_CPP.
#
# A generated .cpp of byte arrays, as for stdlib/, rather than the chart bundle's .incbin:
# these files are some tens of kilobytes, which an array literal compiles in no time, and one
# table keyed by path lets a test compare every embedded file with web/ and a new file join
# without a CMake edit (the glob re-runs at build time). Nothing here needs npm or the network.
file(GLOB_RECURSE MIRAC_WEB_PAGE_FILES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/web/*.html ${CMAKE_SOURCE_DIR}/web/*.css ${CMAKE_SOURCE_DIR}/web/*.js)
list(FILTER MIRAC_WEB_PAGE_FILES EXCLUDE REGEX "/node_modules/")
set(MIRAC_WEB_FILES_CPP ${CMAKE_BINARY_DIR}/generated/web_files.cpp)
add_custom_command(
  OUTPUT ${MIRAC_WEB_FILES_CPP}
  COMMAND ${CMAKE_COMMAND} -DWEB_DIR=${CMAKE_SOURCE_DIR}/web -DOUTPUT=${MIRAC_WEB_FILES_CPP}
          -P ${CMAKE_SOURCE_DIR}/cmake/embed_web_files.cmake
  DEPENDS ${MIRAC_WEB_PAGE_FILES} ${CMAKE_SOURCE_DIR}/cmake/embed_web_files.cmake
  COMMENT "Embedding the pages of web/"
  VERBATIM)
