# The live viewer (src/viewer, include/loam/viewer.h; `loam view`, Python's render_mode="human").
# Built only where GLFW 3.3 and OpenGL are found (Debian: libglfw3-dev, libgl-dev), so loam still
# builds on a machine without them and `loam view` then says it was built without the viewer.
# Included right after the library's source glob: src/viewer leaves libloam here, and the viewer's
# targets are made once the whole top-level file has run (the `loam` target exists by then).
list(FILTER LOAM_SOURCES EXCLUDE REGEX "/src/viewer/")
option(LOAM_VIEWER "Build the live viewer where GLFW and OpenGL are found" ON)

function(loam_viewer_targets)
  if(NOT LOAM_VIEWER)
    message(STATUS "viewer: off (LOAM_VIEWER=OFF)")
    return()
  endif()
  find_package(glfw3 3.3 CONFIG QUIET)
  set(OpenGL_GL_PREFERENCE GLVND)
  find_package(OpenGL QUIET)
  if(NOT glfw3_FOUND OR NOT TARGET OpenGL::GL)
    message(STATUS "viewer: not built: GLFW 3.3 or OpenGL not found (libglfw3-dev, libgl-dev)")
    return()
  endif()
  message(STATUS "viewer: GLFW ${glfw3_VERSION} with OpenGL")
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/viewer/*.c)
  add_library(loam_viewer_objects OBJECT ${sources})
  # As libloam: only LOAM_API functions (viewer.h) leave the library (tests/symbols.py).
  set_target_properties(loam_viewer_objects PROPERTIES C_VISIBILITY_PRESET hidden)
  target_include_directories(loam_viewer_objects PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(loam_viewer_objects PUBLIC glfw OpenGL::GL)
  # Python's loam.viewer loads this beside libloam.so; it uses that libloam (one copy of its state).
  add_library(loam_viewer SHARED $<TARGET_OBJECTS:loam_viewer_objects>)
  target_link_libraries(loam_viewer PRIVATE loam_shared glfw OpenGL::GL)
  target_link_options(loam_viewer PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/libloam_viewer.map)
  set_target_properties(loam_viewer PROPERTIES LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/libloam_viewer.map)
  # The `loam` command links libloam statically, so it takes the viewer's objects directly.
  target_link_libraries(loam PRIVATE loam_viewer_objects)
  target_compile_definitions(loam PRIVATE LOAM_HAVE_VIEWER)
endfunction()
cmake_language(DEFER CALL loam_viewer_targets)
