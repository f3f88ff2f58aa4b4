# MPI is optional: ON when an MPI implementation is found (and ORRERY_ENABLE_MPI
# is on), e.g. Debian's libopenmpi-dev. Without it the build is the one-process
# build it always was; with it, src/orrery/mpi/ runs `mpirun -np K orrery run`
# (docs/adr/0013) and the MPI tests run under mpiexec.
option(ORRERY_ENABLE_MPI "Build the MPI runs (replicated particles, split targets) when MPI is found" ON)
set(ORRERY_HAVE_MPI OFF)
if(ORRERY_ENABLE_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(ORRERY_HAVE_MPI ON)
  endif()
endif()
message(STATUS "Orrery: MPI ${ORRERY_HAVE_MPI}")
