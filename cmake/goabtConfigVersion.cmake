# Version of the goabt CMake package (README, "Versions"). The package answers for the Argobots
# API goabt implements: its version is abt.h's ABT_NUMVERSION as MAJOR.MINOR.REVISION (1.2.0 for
# Argobots 1.2), so find_package(goabt 1.2) and any 1.x request up to it are accepted, and a
# request for a later or another major version is refused. goabt's own version (goabt.h's
# GOABT_VERSION; goabt_RUNTIME_VERSION after find_package) is separate; a request below 1.0 is
# read as one, as the package answered before this scheme: accepted when goabt's own version has
# the same major number and is at least the one requested.
#
# Both are read from the installed headers, found from this file's location,
# <prefix>/lib/cmake/goabt (make install fills in where in the prefix they are).
get_filename_component(_goabt_include "${CMAKE_CURRENT_LIST_DIR}/../../../@INCLUDE_SUBDIR@" ABSOLUTE)
file(STRINGS "${_goabt_include}/abt.h" _goabt_abt REGEX "^#define ABT_NUMVERSION [0-9]+")
file(STRINGS "${_goabt_include}/goabt.h" _goabt_own REGEX "^#define GOABT_VERSION \"")
string(REGEX REPLACE "^#define ABT_NUMVERSION ([0-9]+).*" "\\1" _goabt_abt "${_goabt_abt}")
string(REGEX REPLACE "^#define GOABT_VERSION \"([^\"]*)\".*" "\\1" _goabt_own "${_goabt_own}")
unset(_goabt_include)

if(NOT _goabt_abt MATCHES "^[0-9]+$" OR _goabt_own STREQUAL "")
  set(PACKAGE_VERSION "unknown")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  return()
endif()

# ABT_NUMVERSION is MAJOR * 10000000 + MINOR * 100000 + REVISION * 1000 + release type and number.
math(EXPR _goabt_major "${_goabt_abt} / 10000000")
math(EXPR _goabt_minor "(${_goabt_abt} / 100000) % 100")
math(EXPR _goabt_revision "(${_goabt_abt} / 1000) % 100")
set(PACKAGE_VERSION "${_goabt_major}.${_goabt_minor}.${_goabt_revision}")

set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(PACKAGE_FIND_VERSION STREQUAL "")
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_FIND_VERSION_MAJOR EQUAL _goabt_major)
  if(NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
    if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
      set(PACKAGE_VERSION_EXACT TRUE)
    endif()
  endif()
elseif(PACKAGE_FIND_VERSION_MAJOR EQUAL 0)
  string(REGEX MATCH "^[0-9]+" _goabt_own_major "${_goabt_own}")
  if(_goabt_own_major EQUAL 0 AND NOT PACKAGE_FIND_VERSION VERSION_GREATER _goabt_own)
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
  unset(_goabt_own_major)
endif()
unset(_goabt_abt)
unset(_goabt_own)
unset(_goabt_major)
unset(_goabt_minor)
unset(_goabt_revision)
