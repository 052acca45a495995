# find_package(goabt): the goabt runtime for C projects.
#
#   find_package(goabt REQUIRED)
#   target_link_libraries(app PRIVATE goabt::goabt)
#
# goabt::goabt carries the include directory (abt.h, goabt.h, opal_object.h,
# opal/class/opal_object.h: <prefix>/include, or with make install ABT_ALIASES=no
# <prefix>/include/goabt) and libgoabt.so (@LIB_FILE@, soname @LIB_SONAME@). make install fills
# in the @…@ names. The package is relocatable: paths are found from this file's own location,
# <prefix>/lib/cmake/goabt.
#
# Versions (README, "Versions"): goabt_VERSION, the package's, is the Argobots API version goabt
# implements (1.2.0; goabtConfigVersion.cmake); goabt_ARGOBOTS_VERSION is abt.h's ABT_VERSION
# string, goabt_RUNTIME_VERSION goabt's own (goabt.h's GOABT_VERSION).
get_filename_component(_goabt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET goabt::goabt)
  include(CMakeFindDependencyMacro)
  find_dependency(Threads)
  add_library(goabt::goabt SHARED IMPORTED)
  set_target_properties(goabt::goabt PROPERTIES
    IMPORTED_LOCATION "${_goabt_prefix}/lib/@LIB_FILE@"
    IMPORTED_SONAME "@LIB_SONAME@"
    INTERFACE_INCLUDE_DIRECTORIES "${_goabt_prefix}/@INCLUDE_SUBDIR@"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()

set(goabt_INCLUDE_DIRS "${_goabt_prefix}/@INCLUDE_SUBDIR@")
file(STRINGS "${goabt_INCLUDE_DIRS}/abt.h" goabt_ARGOBOTS_VERSION REGEX "^#define ABT_VERSION \"")
string(REGEX REPLACE "^#define ABT_VERSION \"([^\"]*)\".*" "\\1" goabt_ARGOBOTS_VERSION "${goabt_ARGOBOTS_VERSION}")
file(STRINGS "${goabt_INCLUDE_DIRS}/goabt.h" goabt_RUNTIME_VERSION REGEX "^#define GOABT_VERSION \"")
string(REGEX REPLACE "^#define GOABT_VERSION \"([^\"]*)\".*" "\\1" goabt_RUNTIME_VERSION "${goabt_RUNTIME_VERSION}")
set(goabt_LIBRARIES goabt::goabt)
unset(_goabt_prefix)
