include(CMakePackageConfigHelpers)

install(DIRECTORY lib/include/csum DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS csum_offload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS csum csum_static EXPORT csumTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT csumTargets NAMESPACE csum:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/csum)

configure_package_config_file(cmake/csumConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/csumConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/csum)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/csumConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/csumConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/csumConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/csum)

# Relocatable: the .pc file finds the prefix from its own location.
file(RELATIVE_PATH CSUM_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(cmake/libcsum.pc.in ${CMAKE_CURRENT_BINARY_DIR}/libcsum.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/libcsum.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
