# SPDX-License-Identifier: MIT
# R2R_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer on every target (the asan and fuzz presets).
# R2R_FUZZ: also libFuzzer coverage on every target and the fuzz targets of tests/fuzz (clang only).
#
# The sanitizer runtime is one shared library for the whole process: plugins are MODULEs linked
# with --no-undefined and dlopen()ed by the executables, so they must resolve the runtime's symbols
# from a shared runtime, not from a copy linked statically into each executable. gcc does that by
# default (libasan.so); clang needs -shared-libsan, and an rpath to its runtime directory because
# that directory is not on the loader's search path.
option(R2R_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(R2R_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang and R2R_SANITIZE)" OFF)

if(R2R_FUZZ AND NOT R2R_SANITIZE)
  message(FATAL_ERROR "R2R_FUZZ=ON needs R2R_SANITIZE=ON: the fuzz targets run under ASan and UBSan "
                      "(use the fuzz preset: cmake --preset fuzz)")
endif()
if(R2R_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "R2R_FUZZ=ON needs clang (libFuzzer is clang's -fsanitize=fuzzer), found "
                      "${CMAKE_CXX_COMPILER_ID}; configure with CC=clang CXX=clang++ or the fuzz preset")
endif()

if(R2R_SANITIZE)
  set(r2r_san -fsanitize=address,undefined)
  add_compile_options(${r2r_san} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  set(r2r_san_link "-fsanitize=address,undefined")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                    OUTPUT_VARIABLE r2r_asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT EXISTS "${r2r_asan_rt}")
      message(FATAL_ERROR "clang's shared ASan runtime libclang_rt.asan-x86_64.so was not found "
                          "(${CMAKE_CXX_COMPILER} -print-file-name said '${r2r_asan_rt}'); install "
                          "libclang-rt-14-dev (scripts/bootstrap.sh)")
    endif()
    get_filename_component(r2r_asan_rt_dir "${r2r_asan_rt}" DIRECTORY)
    string(APPEND r2r_san_link " -shared-libsan -Wl,-rpath,${r2r_asan_rt_dir}")
  endif()
  # Linker flags as variables, not add_link_options(): they are per directory, so tests/fuzz can
  # link its executables differently (see there).
  foreach(kind EXE SHARED MODULE)
    string(APPEND CMAKE_${kind}_LINKER_FLAGS " ${r2r_san_link}")
  endforeach()
  if(R2R_FUZZ)
    # Coverage for libFuzzer in every library a fuzz target links; only the fuzz targets link the
    # libFuzzer driver itself (-fsanitize=fuzzer, tests/fuzz/CMakeLists.txt).
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endif()
