# neograde_add_library(<folder> SOURCES ... DEPS ...): one CMake library per code folder,
# public headers in <folder>/include/neograde/<folder>/.
function(neograde_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(neograde_${name} STATIC ${ARG_SOURCES})
  target_include_directories(neograde_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(neograde_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  add_library(neograde::${name} ALIAS neograde_${name})
  if(name IN_LIST NEOGRADE_FUZZED)
    target_compile_options(neograde_${name} PRIVATE ${NEOGRADE_FUZZ_COVERAGE})
  endif()
  neograde_precompile_headers(neograde_${name})
endfunction()

# The headers nearly every file includes, precompiled once per target (NEOGRADE_PCH).
function(neograde_precompile_headers target)
  if(NEOGRADE_PCH AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <string> <vector> <map> <optional> <functional>
                              <chrono> <memory> ${ARGN})
  endif()
endfunction()

# neograde_add_test(<name> SOURCES ... DEPS ... LABELS ...): a GoogleTest executable whose
# tests are registered with ctest one by one.
# Under the sanitizers (the asan preset: CI's build), test code is compiled without optimisation:
# it halves its compile time (mutation_test.cpp 38 s -> 17 s, verdict_test.cpp 33 s -> 15 s with
# clang 14 and ASan), while the code under test, in the libraries, keeps the preset's -O1.
function(neograde_test_code_unoptimised target)
  if(NEOGRADE_LIBFUZZER OR NEOGRADE_SANITIZE)
    target_compile_options(${target} PRIVATE -O0)
  endif()
endfunction()

function(neograde_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  neograde_precompile_headers(${name} <gtest/gtest.h>)
  neograde_test_code_unoptimised(${name})
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS ${NEOGRADE_PROVIDER_SPECS})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  # A label list travels through gtest_discover_tests' PROPERTIES as one value only with its
  # semicolons escaped; unescaped, "conformance;unit" gave the tests the first label alone.
  string(REPLACE ";" "\\;" labels "${ARG_LABELS}")
  gtest_discover_tests(${name} NO_PRETTY_VALUES
    PROPERTIES LABELS "${labels}" TIMEOUT ${ARG_TIMEOUT}
    DISCOVERY_TIMEOUT 60)
endfunction()

# Embeds a text file as `std::string_view <symbol>()` in namespace neograde::embedded.
function(neograde_embed_text out_var file symbol)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp)
  file(READ ${file} NEOGRADE_EMBED_CONTENT)
  set(NEOGRADE_EMBED_SYMBOL ${symbol})
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed.cpp.in ${out} @ONLY)
  set_source_files_properties(${out} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
