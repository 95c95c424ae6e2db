# Builds the hdds engine's C ABI (the hdds_ffi crate) with cargo and generates its header with
# cbindgen: the small part of Corrosion this project needs, written here because Corrosion is not
# in any registry these machines reach.
#
#   hdds_add_ffi_library()
#
# defines the imported static library target hdds::ffi, whose include directory holds the
# generated hdds/hdds.h, and the variables HDDS_FFI_LIBRARY and HDDS_FFI_HEADER (their paths).
#
# Cargo decides what is stale: the build step runs cargo on every build (as Corrosion does), and
# cargo rebuilds only when a .rs file, a Cargo.toml or Cargo.lock changed, and otherwise leaves the
# archive untouched, so nothing downstream relinks. The cargo target directory lives inside the
# CMake build directory (or is HDDS_CARGO_TARGET_DIR). CMAKE_BUILD_TYPE Debug maps to cargo's dev
# profile; every other type (and none) to release: the engine is on every message's path.

include_guard(GLOBAL)

set(HDDS_CBINDGEN_VERSION "0.29.4" CACHE STRING "The cbindgen version that generates hdds/hdds.h")
option(HDDS_CARGO_OFFLINE "Build the Rust engine with cargo --offline" OFF)
set(HDDS_CARGO_TARGET_DIR "" CACHE PATH
  "cargo's target directory for the engine (empty = cargo-target inside the build directory); \
builds of one checkout may share one, e.g. a sanitizer build beside the plain one")

get_filename_component(HDDS_SOURCE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

function(_hdds_find_tool var name)
  find_program(${var} ${name} HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin")
  if(NOT ${var})
    message(FATAL_ERROR
      "rmw_hdds needs '${name}' to build its Rust engine and it is not on PATH or in ~/.cargo/bin. "
      "Run scripts/setup.sh from the rmw_hdds sources, or install it yourself (see README.md).")
  endif()
endfunction()

function(hdds_add_ffi_library)
  if(TARGET hdds::ffi)
    return()
  endif()
  _hdds_find_tool(HDDS_CARGO cargo)
  _hdds_find_tool(HDDS_CBINDGEN cbindgen)

  execute_process(COMMAND "${HDDS_CBINDGEN}" --version
    OUTPUT_VARIABLE _version OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _version STREQUAL "cbindgen ${HDDS_CBINDGEN_VERSION}")
    message(FATAL_ERROR
      "rmw_hdds generates hdds/hdds.h with cbindgen ${HDDS_CBINDGEN_VERSION}, but ${HDDS_CBINDGEN} "
      "is '${_version}'. Install the pinned version: "
      "cargo install cbindgen --version ${HDDS_CBINDGEN_VERSION} --locked")
  endif()

  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    set(_profile dev)
    set(_profile_dir debug)
  else()
    set(_profile release)
    set(_profile_dir release)
  endif()
  set(_target_dir "${CMAKE_BINARY_DIR}/cargo-target")
  if(HDDS_CARGO_TARGET_DIR)
    set(_target_dir "${HDDS_CARGO_TARGET_DIR}")
  endif()
  set(_lib "${_target_dir}/${_profile_dir}/${CMAKE_STATIC_LIBRARY_PREFIX}hdds_ffi${CMAKE_STATIC_LIBRARY_SUFFIX}")
  set(_include_dir "${CMAKE_BINARY_DIR}/hdds_include")
  set(_header "${_include_dir}/hdds/hdds.h")
  set(_offline "")
  if(HDDS_CARGO_OFFLINE)
    set(_offline --offline)
  endif()

  add_custom_target(hdds_ffi_cargo ALL
    COMMAND "${CMAKE_COMMAND}" -E env "CARGO_TARGET_DIR=${_target_dir}"
      "${HDDS_CARGO}" build --locked ${_offline} -p hdds_ffi --lib --profile ${_profile}
      --manifest-path "${HDDS_SOURCE_ROOT}/Cargo.toml"
    BYPRODUCTS "${_lib}"
    WORKING_DIRECTORY "${HDDS_SOURCE_ROOT}"
    COMMENT "cargo: building the hdds engine (hdds_ffi, ${_profile} profile)"
    USES_TERMINAL
    VERBATIM)

  # cbindgen reads only hdds_ffi's own sources (parse_deps = false), so those are what the header
  # depends on.
  file(GLOB_RECURSE _ffi_sources CONFIGURE_DEPENDS "${HDDS_SOURCE_ROOT}/hdds_ffi/src/*.rs")
  add_custom_command(
    OUTPUT "${_header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_include_dir}/hdds"
    COMMAND "${HDDS_CBINDGEN}" --quiet --config "${HDDS_SOURCE_ROOT}/hdds_ffi/cbindgen.toml"
      --output "${_header}" "${HDDS_SOURCE_ROOT}/hdds_ffi"
    DEPENDS ${_ffi_sources} "${HDDS_SOURCE_ROOT}/hdds_ffi/cbindgen.toml"
      "${HDDS_SOURCE_ROOT}/hdds_ffi/Cargo.toml"
    COMMENT "cbindgen: generating hdds/hdds.h"
    VERBATIM)
  add_custom_target(hdds_ffi_header ALL DEPENDS "${_header}")

  # Imported targets must name include directories that exist at configure time.
  file(MAKE_DIRECTORY "${_include_dir}/hdds")
  find_package(Threads REQUIRED)
  add_library(hdds::ffi STATIC IMPORTED GLOBAL)
  set_target_properties(hdds::ffi PROPERTIES
    IMPORTED_LOCATION "${_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${_include_dir}"
    # What a Rust static library needs from the C runtime on Linux
    # (rustc --print native-static-libs).
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m;rt")
  add_dependencies(hdds::ffi hdds_ffi_cargo hdds_ffi_header)

  set(HDDS_FFI_LIBRARY "${_lib}" PARENT_SCOPE)
  set(HDDS_FFI_HEADER "${_header}" PARENT_SCOPE)
endfunction()
