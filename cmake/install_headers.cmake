# Installs MIRAC_PUBLIC_HEADERS (paths under MIRAC_SOURCE_DIR) and every project header they
# include, directly or not, into MIRAC_HEADER_DESTINATION, each under its own path. Run by
# `cmake --install` (cmake/install.cmake sets the variables). Project headers include one
# another by their path from the source root in quotes; system and library headers
# (<...>) are the dependencies' and are not copied.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)  # cmake_install.cmake, which includes this, sets no policies
set(pending ${MIRAC_PUBLIC_HEADERS})
set(found)
while(pending)
  list(POP_FRONT pending header)
  if(header IN_LIST found)
    continue()
  endif()
  if(NOT EXISTS "${MIRAC_SOURCE_DIR}/${header}")
    message(FATAL_ERROR "install_headers: '${header}' is included but not in ${MIRAC_SOURCE_DIR}")
  endif()
  list(APPEND found ${header})
  file(STRINGS "${MIRAC_SOURCE_DIR}/${header}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[^\"]+\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" included "${line}")
    list(APPEND pending ${included})
  endforeach()
endwhile()
list(SORT found)
foreach(header IN LISTS found)
  get_filename_component(subdir "${header}" DIRECTORY)
  file(INSTALL DESTINATION "${MIRAC_HEADER_DESTINATION}/${subdir}" TYPE FILE FILES "${MIRAC_SOURCE_DIR}/${header}")
endforeach()
cmake_policy(POP)
