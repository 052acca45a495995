# find_package(goabt): the goabt runtime for C projects.
#
#   find_package(goabt REQUIRED)
#   target_link_libraries(app PRIVATE goabt::goabt)
#
# goabt::goabt carries the include directory (abt.h, goabt.h, opal_object.h,
# opal/class/opal_object.h) and libgoabt.so. The package is relocatable: paths are found from this file's own location,
# <prefix>/lib/cmake/goabt.
get_filename_component(_goabt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET goabt::goabt)
  include(CMakeFindDependencyMacro)
  find_dependency(Threads)
  add_library(goabt::goabt SHARED IMPORTED)
  set_target_properties(goabt::goabt PROPERTIES
    IMPORTED_LOCATION "${_goabt_prefix}/lib/libgoabt.so"
    IMPORTED_SONAME "libgoabt.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_goabt_prefix}/include"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()

set(goabt_INCLUDE_DIRS "${_goabt_prefix}/include")
set(goabt_LIBRARIES goabt::goabt)
unset(_goabt_prefix)
