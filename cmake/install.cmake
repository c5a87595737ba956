# Installing mirac for programs that embed it (docs/embedding.md): the `mirac` binary, every
# layer but the CLI as static libraries, the headers the public one (mirac/mirac.hpp)
# reaches, the stdlib's sources, and a CMake package whose `mirac::mirac` target links it
# all, so that another project's find_package(mirac) finds it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MIRAC_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/mirac)
set(MIRAC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mirac)

# Installed headers keep their paths from the source root under include/mirac/
# ("engine/audit.hpp" is include/mirac/engine/audit.hpp), since the sources include one
# another by those paths; the API, <mirac/mirac.hpp>, is include/mirac/mirac/mirac.hpp.
target_include_directories(mirac_runtime PUBLIC $<INSTALL_INTERFACE:${MIRAC_INSTALL_INCLUDEDIR}>)
# The headers are C++20; a program linking mirac::mirac is compiled as such.
target_compile_features(mirac_runtime PUBLIC cxx_std_20)

# Exported as mirac::runtime, mirac::language, mirac::engine and mirac::mirac (the one to
# link; it brings the others). The CLI and its libraries are not part of the package.
set_target_properties(mirac_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(mirac_language PROPERTIES EXPORT_NAME language)
set_target_properties(mirac_engine PROPERTIES EXPORT_NAME engine)
set_target_properties(mirac_embed PROPERTIES EXPORT_NAME mirac)
add_library(mirac::mirac ALIAS mirac_embed)

install(TARGETS mirac RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mirac_runtime mirac_language mirac_engine mirac_embed EXPORT mirac-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT mirac-targets NAMESPACE mirac:: DESTINATION ${MIRAC_INSTALL_CMAKEDIR})

# The headers mirac/mirac.hpp includes, directly or not, and no others: found when
# installing (cmake/install_headers.cmake), so a header that starts including another
# needs no list kept here.
install(CODE "set(MIRAC_SOURCE_DIR \"${CMAKE_SOURCE_DIR}\")
set(MIRAC_PUBLIC_HEADERS \"mirac/mirac.hpp\")
set(MIRAC_HEADER_DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${MIRAC_INSTALL_INCLUDEDIR}\")")
install(SCRIPT ${CMAKE_SOURCE_DIR}/cmake/install_headers.cmake)

# The stdlib is compiled into the library; its sources are there to read.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/stdlib/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mirac/stdlib
  FILES_MATCHING PATTERN "*.audit")

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/mirac-config.cmake.in
  ${CMAKE_BINARY_DIR}/generated/mirac-config.cmake INSTALL_DESTINATION ${MIRAC_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/mirac-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/mirac-config.cmake ${CMAKE_BINARY_DIR}/generated/mirac-config-version.cmake
  DESTINATION ${MIRAC_INSTALL_CMAKEDIR})
