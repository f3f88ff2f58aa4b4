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

# orrery_add_mpi_test(name [GPU] SOURCES ... LIBS ... RANKS 1 2 4): one
# executable (its main initialises MPI: tests/support/mpi_test_main.cpp), one
# CTest test per rank count, name.npK, run as `mpiexec --oversubscribe -np K`
# (CI has 2 cores and runs as root, which OpenMPI refuses unless told, so the
# environment allows it) with one OpenMP thread per rank. Labels mpi and cpu
# or gpu; a GPU test skips (saying so) without a device.
function(orrery_add_mpi_test name)
  cmake_parse_arguments(T "GPU" "" "SOURCES;LIBS;RANKS" ${ARGN})
  add_executable(${name} ${T_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/mpi_test_main.cpp)
  target_link_libraries(${name} PRIVATE ${T_LIBS} orrery_test_support GTest::gtest MPI::MPI_CXX orrery::flags)
  if(T_GPU)
    set(labels "gpu;mpi")
    set_property(GLOBAL APPEND PROPERTY ORRERY_GPU_TEST_TARGETS ${name})
  else()
    set(labels "cpu;mpi")
  endif()
  foreach(k IN LISTS T_RANKS)
    add_test(NAME ${name}.np${k}
             COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe ${MPIEXEC_NUMPROC_FLAG} ${k} $<TARGET_FILE:${name}>)
    set_tests_properties(${name}.np${k} PROPERTIES LABELS "${labels}" TIMEOUT 600 PROCESSORS ${k}
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED"
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
