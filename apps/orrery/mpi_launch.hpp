#pragma once
// `orrery run` as one rank of an MPI job (docs/adr/0013): whether it is one,
// MPI's start, and the job's end, which for a failure on any rank is the end
// of every rank (MPI_Abort after the rank's one-line message). In a build
// without MPI these do nothing, and a run launched as more than one rank is
// refused by the driver with a message.
#include <string>

namespace orrery::cli {

/// True when `--mpi` was given or a launcher started this process as a rank
/// (mpirun/mpiexec: OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK set). In a
/// build without MPI, only for a job of more than one rank (to refuse it).
bool mpi_wanted(bool flag);
/// Initialises MPI for the run.
void start_mpi();
/// True unless this is a rank other than 0 of an MPI job: only rank 0 prints.
bool prints();
/// "rank R of K: " while an MPI job of K > 1 ranks runs, else empty.
std::string rank_prefix();
/// The end of the process's MPI: finalised after success (status 0);
/// otherwise every rank of the job is aborted with `status`.
void end_mpi(int status);

}  // namespace orrery::cli
