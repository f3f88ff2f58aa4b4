# The GPU Barnes-Hut walks and GpuTreeSolver (gravity/tree_walk_gpu.hpp,
# gravity/tree_gpu_solver.hpp), their GPU tests and their benchmark. Included
# from src/orrery/CMakeLists.txt once every folder's targets exist. Only the
# fast-mode walk translation unit gets -ftz=true (docs/adr/0001).
if(NOT ORRERY_HAVE_CUDA)
  return()
endif()
set(walk_dir ${CMAKE_CURRENT_LIST_DIR})
add_library(orrery_tree_walk_gpu STATIC
  ${walk_dir}/tree_walk_gpu.cu ${walk_dir}/tree_walk_gpu_exact.cu ${walk_dir}/tree_walk_gpu_fast.cu
  ${walk_dir}/device_tree_copy.cpp ${walk_dir}/tree_gpu_solver.cu)
add_library(orrery::tree_walk_gpu ALIAS orrery_tree_walk_gpu)
set_source_files_properties(${walk_dir}/tree_walk_gpu_fast.cu PROPERTIES COMPILE_OPTIONS "-ftz=true")
target_link_libraries(orrery_tree_walk_gpu PUBLIC orrery::tree orrery::tree_gpu orrery::cuda PRIVATE orrery::flags)
target_link_libraries(orrery INTERFACE orrery_tree_walk_gpu)
# The solver factory (orrery_gravity) offers solver = "tree", backend = "cuda".
target_link_libraries(orrery_gravity PUBLIC orrery_tree_walk_gpu)

if(ORRERY_BUILD_TESTS)
  orrery_add_test(orrery_tree_walk_gpu_test GPU SOURCES ${walk_dir}/tree_walk_gpu_test.cu ${walk_dir}/tree_gpu_solver_test.cu
    LIBS orrery::tree_walk_gpu)
endif()
if(ORRERY_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/gpu_tree_bench.cu)
  add_executable(gpu_tree_bench ${PROJECT_SOURCE_DIR}/bench/gpu_tree_bench.cu)
  target_link_libraries(gpu_tree_bench PRIVATE orrery::tree_walk_gpu orrery::gravity_gpu orrery::flags)
  set_target_properties(gpu_tree_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
endif()
