# NCCL is optional and used by one program alone, bench/mpi_exchange_bench (the
# local essential trees' all-to-all over host MPI, CUDA-aware MPI and NCCL,
# issue 19). ORRERY_HAVE_NCCL where CUDA and MPI are built and nccl.h and
# libnccl are found: in /usr (Ubuntu's libnccl-dev), the CUDA toolkit's own
# directories (NVIDIA's copy), or under $NCCL_HOME. Elsewhere the bench is
# not built, and the configure output says so.
set(ORRERY_HAVE_NCCL OFF)
if(ORRERY_HAVE_CUDA AND ORRERY_HAVE_MPI)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS $ENV{NCCL_HOME}/include ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY nccl HINTS $ENV{NCCL_HOME}/lib $ENV{NCCL_HOME}/lib64 ${CUDAToolkit_LIBRARY_DIR})
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(ORRERY_HAVE_NCCL ON)
    add_library(orrery_nccl_imported UNKNOWN IMPORTED)
    set_target_properties(orrery_nccl_imported PROPERTIES IMPORTED_LOCATION ${NCCL_LIBRARY}
                          INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
    add_library(NCCL::nccl ALIAS orrery_nccl_imported)
    message(STATUS "Orrery: NCCL ON (${NCCL_INCLUDE_DIR}/nccl.h, ${NCCL_LIBRARY})")
  else()
    message(STATUS "Orrery: NCCL OFF (nccl.h or libnccl not found; set NCCL_HOME): bench/mpi_exchange_bench is not built")
  endif()
else()
  message(STATUS "Orrery: NCCL OFF (needs CUDA and MPI): bench/mpi_exchange_bench is not built")
endif()
