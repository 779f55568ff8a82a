# `cmake --install BUILD --prefix P`: the libraries (static and shared), the headers, the `loam`
# command, pkg-config files and an exported CMake package, laid out as C users expect:
#   P/lib/libloam.{a,so}  P/include/loam/*.h  P/bin/loam
#   P/lib/pkgconfig/loam.pc, loam-static.pc
#   P/lib/cmake/loam/loamConfig.cmake  (find_package(loam): loam::loam, loam::loam_static)
# tests/install_consumer.sh builds a program against such a tree both ways.
include(CMakePackageConfigHelpers)

install(TARGETS loam_static loam_shared EXPORT loamTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS loam RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/loam DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

install(EXPORT loamTargets NAMESPACE loam:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/loam)
set(LOAM_CONFIG_HAVE_QHULL ${QHULL_FOUND})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/loamConfig.cmake.in ${CMAKE_BINARY_DIR}/loamConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/loam)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/loamConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/loamConfig.cmake ${CMAKE_BINARY_DIR}/loamConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/loam)

# pkg-config. The static library needs libloam's own dependencies on the link line: libyaml, libpng,
# cJSON, libxml2, qhull (when built with it), OpenMP's runtime and libm. loam.pc lists them as private
# (`pkg-config --static --libs loam`, for -static builds); loam-static.pc links libloam.a by path with
# the shared versions of those dependencies, the usual "static libloam" link.
set(LOAM_PC_REQUIRES "yaml-0.1 libpng libcjson libxml-2.0")
if(QHULL_FOUND)
  string(APPEND LOAM_PC_REQUIRES " qhull_r")
endif()
set(LOAM_PC_OPENMP "")
foreach(lib ${OpenMP_C_LIB_NAMES})
  string(APPEND LOAM_PC_OPENMP " -l${lib}")
endforeach()
string(STRIP "${LOAM_PC_OPENMP} -lm" LOAM_PC_PRIVATE_LIBS)
# Relocatable: the prefix is found from the .pc file's own folder, so `cmake --install --prefix P`
# (which can differ from CMAKE_INSTALL_PREFIX at configure time) gives a correct file.
file(RELATIVE_PATH LOAM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" LOAM_PC_TO_PREFIX "${LOAM_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/loam.pc.in ${CMAKE_BINARY_DIR}/loam.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/loam-static.pc.in ${CMAKE_BINARY_DIR}/loam-static.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/loam.pc ${CMAKE_BINARY_DIR}/loam-static.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
