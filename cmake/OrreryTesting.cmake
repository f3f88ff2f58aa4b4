include(GoogleTest)

# orrery_add_test(NAME SOURCES a.cpp ... LIBS lib ... [GPU] [LABELS l ...])
# One executable per concept; each gtest case becomes a CTest test. A GPU test
# calls GTEST_SKIP() when no device is present, which CTest reports as skipped.
function(orrery_add_test name)
  cmake_parse_arguments(T "GPU" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} orrery_test_support GTest::gtest GTest::gtest_main orrery::flags)
  set(labels ${T_LABELS})
  if(T_GPU)
    list(APPEND labels gpu)
    set_property(GLOBAL APPEND PROPERTY ORRERY_GPU_TEST_TARGETS ${name})
  else()
    list(APPEND labels cpu)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 120
    # No "]" in the pattern: CMake 4's GoogleTest module writes property
    # values as [[...]] bracket arguments, which a trailing "]" would close early.
    # A time limit of its own, also under a plain `ctest` (the presets set one too): no test can hang the suite.
    PROPERTIES LABELS "${labels}" SKIP_REGULAR_EXPRESSION "\\[  SKIPPED" TIMEOUT 900)
endfunction()

# orrery_gpu_tests: builds every GPU test executable (scripts/gpu_session.sh
# builds just these before `ctest -L gpu`). Defined once all folders are read.
function(orrery_define_gpu_tests_target)
  get_property(targets GLOBAL PROPERTY ORRERY_GPU_TEST_TARGETS)
  add_custom_target(orrery_gpu_tests)
  if(targets)
    add_dependencies(orrery_gpu_tests ${targets})
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL orrery_define_gpu_tests_target)
