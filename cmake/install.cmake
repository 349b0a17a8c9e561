# What `cmake --install BUILD --prefix P` puts in P, and the .deb CPack makes of it
# (`cpack -G DEB` in BUILD): bin/gxsort with its man page and bash and zsh completions
# (made from the binary's help by tools/gen-docs.py, so they say what it takes), and the
# library: the public headers, the static libraries and a CMake package, so that
#   find_package(gxsort) ... target_link_libraries(app PRIVATE gxsort::gxsort)
# builds a program on it (tests/install/test_install.sh checks both).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(GXSORT_CLI)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(GXSORT_DOCS_DIR ${CMAKE_BINARY_DIR}/docs-made)  # the installed layout: share/...
  set(GXSORT_DOCS_FILES ${GXSORT_DOCS_DIR}/share/man/man1/gxsort.1
      ${GXSORT_DOCS_DIR}/share/bash-completion/completions/gxsort
      ${GXSORT_DOCS_DIR}/share/zsh/site-functions/_gxsort)
  add_custom_command(OUTPUT ${GXSORT_DOCS_FILES}
    COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tools/gen-docs.py $<TARGET_FILE:gxsort> ${GXSORT_DOCS_DIR}
    DEPENDS gxsort ${PROJECT_SOURCE_DIR}/tools/gen-docs.py
    COMMENT "Man page and shell completions from gxsort's help")
  add_custom_target(gxsort_docs ALL DEPENDS ${GXSORT_DOCS_FILES})
  install(TARGETS gxsort RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${GXSORT_DOCS_DIR}/share/man/man1/gxsort.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${GXSORT_DOCS_DIR}/share/bash-completion/completions/gxsort
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${GXSORT_DOCS_DIR}/share/zsh/site-functions/_gxsort
          DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
endif()

# The library: every static library gxsort_lib links (the layers, and the CUDA backend's),
# exported as gxsort::NAME; gxsort_lib itself as gxsort::gxsort.
get_target_property(GXSORT_LAYER_TARGETS gxsort_lib INTERFACE_LINK_LIBRARIES)
set(GXSORT_EXPORTED gxsort_headers gxsort_lib ${GXSORT_LAYER_TARGETS})
foreach(target gxsort_cuda gxsort_cdp)
  if(TARGET ${target})
    list(APPEND GXSORT_EXPORTED ${target})
  endif()
endforeach()
set_target_properties(gxsort_lib PROPERTIES EXPORT_NAME gxsort)
install(TARGETS ${GXSORT_EXPORTED} EXPORT gxsortTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/gxsort DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
set(GXSORT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gxsort)
install(EXPORT gxsortTargets NAMESPACE gxsort:: DESTINATION ${GXSORT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gxsortConfig.cmake.in
  ${CMAKE_BINARY_DIR}/gxsortConfig.cmake INSTALL_DESTINATION ${GXSORT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/gxsortConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/gxsortConfig.cmake ${CMAKE_BINARY_DIR}/gxsortConfigVersion.cmake
        DESTINATION ${GXSORT_CMAKE_DIR})

# The .deb: its shared-library dependencies computed by dpkg-shlibdeps (libc, libstdc++,
# and libmpi where sort --distributed is built).
set(CPACK_PACKAGE_NAME gxsort)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gxsort maintainers <gxsort@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "sort, merge and deduplicate binary files of fixed-size records, on the GPU or the CPU")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_GENERATOR DEB)
include(CPack)
