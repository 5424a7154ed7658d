# SPDX-License-Identifier: MIT
# r2r_add_plugin(<target>
#     KIND <llm|ranker|converter|sandbox|policy|guard|verifier|scheduler>
#     ID <org>.<kind>.<name>  VERSION <x.y.z>  DESCRIPTION "<one line>"
#     SCHEMA <config.schema.json>  [EXAMPLE <example config.json>]
#     SOURCES <files...>
#     [TESTS <test sources and the plugin sources they test...>  TEST_LABELS <labels...>
#      [TEST_NAME <executable>] [TEST_LIBS <libraries...>] [TEST_DEFINITIONS <definitions...>]
#      [TEST_PROPERTIES <gtest_discover_tests properties...>]])
# Builds libr2r-<kind>-<name>.so (a MODULE) with hidden visibility, --no-undefined and a version
# script exporting only r2r_plugin_entry_v1; generates r2r_plugin_info.hpp (for R2R_PLUGIN_MAIN)
# from these arguments, and after each build writes the sidecar libr2r-<kind>-<name>.plugin.json
# from the built binary with r2r-plugin-manifest (which also rejects a schema or example that is
# invalid, or a binary that disagrees with these arguments). Installs both to lib/r2r/plugins.
# TESTS builds the plugin's GoogleTest executable through r2r_add_plugin_test() (below).
#
# r2r_add_plugin_test(<plugin target> NAME <executable> SOURCES <files...> LABELS <labels...>
#     [LIBS <libraries...>] [DEFINITIONS <definitions...>] [PROPERTIES <properties...>] [ONE_ENTRY])
# One GoogleTest executable of a plugin: SOURCES compiled with the plugin's directory on the include
# path, linked to r2r::sdk, LIBS and GoogleTest (gtest_main, gmock), each test found by
# gtest_discover_tests with LABELS (required: `ctest -L` selects by them), DISCOVERY_TIMEOUT 60 and
# PROPERTIES (TIMEOUT, ENVIRONMENT, FIXTURES_REQUIRED, ...). A plugin with one test executable says
# TESTS in r2r_add_plugin(); a second one (another label, fixture or environment) calls this.
# ONE_ENTRY registers the executable as one ctest entry named NAME instead of one per test, for a
# suite whose cases share one expensive set-up (an engine, a network namespace).
# Nothing is built when R2R_BUILD_TESTS (in tree) or BUILD_TESTING (out of tree) is off.
#
# Needs: target r2r::sdk, variables R2R_SDK_MAP (the version script) and R2R_MANIFEST_TOOL (an
# executable target), set by r2r-sdkConfig.cmake or by the repo2rocm build itself.

set(R2R_PLUGIN_KINDS llm ranker converter sandbox policy guard verifier scheduler)

function(r2r_add_plugin_test plugin)
  cmake_parse_arguments(ARG "ONE_ENTRY" "NAME" "SOURCES;LABELS;LIBS;DEFINITIONS;PROPERTIES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "r2r_add_plugin_test(${plugin}): unexpected arguments '${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  foreach(required NAME SOURCES LABELS)
    if(NOT ARG_${required})
      message(FATAL_ERROR "r2r_add_plugin_test(${plugin}): ${required} is required (in r2r_add_plugin: "
                          "TESTS for SOURCES, TEST_LABELS for LABELS); every test needs a label for ctest -L")
    endif()
  endforeach()
  if(DEFINED R2R_BUILD_TESTS)
    if(NOT R2R_BUILD_TESTS)
      return()
    endif()
  elseif(NOT BUILD_TESTING)
    return()
  endif()
  if(NOT TARGET GTest::gtest_main)
    find_package(GTest REQUIRED)
  endif()
  include(GoogleTest)
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_include_directories(${ARG_NAME} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${ARG_NAME} PRIVATE r2r::sdk ${ARG_LIBS} GTest::gtest_main GTest::gmock)
  if(ARG_DEFINITIONS)
    target_compile_definitions(${ARG_NAME} PRIVATE ${ARG_DEFINITIONS})
  endif()
  if(ARG_ONE_ENTRY)
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" ${ARG_PROPERTIES})
  else()
    gtest_discover_tests(${ARG_NAME} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}" ${ARG_PROPERTIES})
  endif()
endfunction()

function(r2r_add_plugin target)
  cmake_parse_arguments(ARG "" "KIND;ID;VERSION;DESCRIPTION;SCHEMA;EXAMPLE;TEST_NAME"
                        "SOURCES;TESTS;TEST_LABELS;TEST_LIBS;TEST_DEFINITIONS;TEST_PROPERTIES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "r2r_add_plugin(${target}): unexpected arguments '${ARG_UNPARSED_ARGUMENTS}' "
                        "(a ';' inside DESCRIPTION splits it; use ',' instead)")
  endif()
  foreach(required KIND ID VERSION SCHEMA SOURCES)
    if(NOT ARG_${required})
      message(FATAL_ERROR "r2r_add_plugin(${target}): ${required} is required")
    endif()
  endforeach()
  if(NOT ARG_KIND IN_LIST R2R_PLUGIN_KINDS)
    message(FATAL_ERROR "r2r_add_plugin(${target}): KIND '${ARG_KIND}' is not one of: ${R2R_PLUGIN_KINDS}")
  endif()
  if(NOT ARG_ID MATCHES "^[a-z0-9][a-z0-9_-]*\\.${ARG_KIND}\\.([a-z0-9][a-z0-9_.-]*)$")
    message(FATAL_ERROR "r2r_add_plugin(${target}): ID '${ARG_ID}' must be <org>.${ARG_KIND}.<name> in lower case")
  endif()
  set(name ${CMAKE_MATCH_1})
  get_filename_component(schema_file "${ARG_SCHEMA}" ABSOLUTE)
  file(READ "${schema_file}" R2R_CONFIG_SCHEMA)
  set(R2R_EXAMPLE_CONFIG "{}")
  set(depends "${schema_file}")
  if(ARG_EXAMPLE)
    get_filename_component(example_file "${ARG_EXAMPLE}" ABSOLUTE)
    file(READ "${example_file}" R2R_EXAMPLE_CONFIG)
    list(APPEND depends "${example_file}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${depends})
  string(TOUPPER "${ARG_KIND}" R2R_KIND_UPPER)
  set(R2R_ID "${ARG_ID}")
  set(R2R_VERSION "${ARG_VERSION}")
  set(R2R_DESCRIPTION "${ARG_DESCRIPTION}")
  string(REPLACE "\\" "\\\\" R2R_DESCRIPTION "${R2R_DESCRIPTION}")
  string(REPLACE "\"" "\\\"" R2R_DESCRIPTION "${R2R_DESCRIPTION}")
  set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/r2r_generated/${target}")
  file(CONFIGURE OUTPUT "${gen_dir}/r2r_plugin_info.hpp" CONTENT [=[
// Generated by r2r_add_plugin() from its CMake arguments. Do not edit.
#pragma once
#include <r2r/plugin_api.h>
namespace r2r_plugin_info {
inline constexpr r2r_kind kind = R2R_KIND_@R2R_KIND_UPPER@;
inline constexpr const char id[] = "@R2R_ID@";
inline constexpr const char version[] = "@R2R_VERSION@";
inline constexpr const char description[] = "@R2R_DESCRIPTION@";
inline constexpr const char config_schema[] = R"r2r_json(@R2R_CONFIG_SCHEMA@)r2r_json";
inline constexpr const char example_config[] = R"r2r_json(@R2R_EXAMPLE_CONFIG@)r2r_json";
}  // namespace r2r_plugin_info
]=] @ONLY)

  add_library(${target} MODULE ${ARG_SOURCES})
  # Every plugin made by this function, in the order made (the in-tree build's r2r_product target
  # depends on all of them).
  set_property(GLOBAL APPEND PROPERTY R2R_PLUGIN_TARGETS ${target})
  target_include_directories(${target} PRIVATE "${gen_dir}")
  target_link_libraries(${target} PRIVATE r2r::sdk)
  set(file_base "r2r-${ARG_KIND}-${name}")
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "${file_base}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS "${R2R_SDK_MAP}")
  if(DEFINED R2R_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${R2R_PLUGIN_OUTPUT_DIR}")
  endif()
  target_link_options(${target} PRIVATE "LINKER:--no-undefined" "LINKER:--version-script=${R2R_SDK_MAP}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${R2R_MANIFEST_TOOL} --plugin "$<TARGET_FILE:${target}>" --expect-id "${ARG_ID}"
            --expect-version "${ARG_VERSION}" --out "$<TARGET_FILE_DIR:${target}>/lib${file_base}.plugin.json"
    COMMENT "Writing manifest lib${file_base}.plugin.json"
    VERBATIM)
  if(TARGET ${R2R_MANIFEST_TOOL})
    get_target_property(imported ${R2R_MANIFEST_TOOL} IMPORTED)
    if(NOT imported)
      add_dependencies(${target} ${R2R_MANIFEST_TOOL})
    endif()
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION lib/r2r/plugins COMPONENT runtime)
  install(FILES "$<TARGET_FILE_DIR:${target}>/lib${file_base}.plugin.json" DESTINATION lib/r2r/plugins
          COMPONENT runtime)
  if(ARG_TESTS)
    if(NOT ARG_TEST_NAME)
      set(ARG_TEST_NAME ${target}_test)
    endif()
    r2r_add_plugin_test(${target} NAME ${ARG_TEST_NAME} SOURCES ${ARG_TESTS} LABELS ${ARG_TEST_LABELS}
                        LIBS ${ARG_TEST_LIBS} DEFINITIONS ${ARG_TEST_DEFINITIONS} PROPERTIES ${ARG_TEST_PROPERTIES})
  elseif(ARG_TEST_NAME OR ARG_TEST_LABELS OR ARG_TEST_LIBS OR ARG_TEST_DEFINITIONS OR ARG_TEST_PROPERTIES)
    message(FATAL_ERROR "r2r_add_plugin(${target}): TEST_* options need TESTS (the test sources)")
  endif()
endfunction()
