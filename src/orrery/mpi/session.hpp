#pragma once
// MPI's lifetime in a process: initialised once before the first collective,
// finalised after the last, or aborted for the whole job when one rank fails
// (docs/adr/0013). No MPI header: callers above (the driver, the CLI, tests)
// see plain functions.
#include <string>

namespace orrery::mpi {

/// MPI_Init_thread (funneled: OpenMP threads never call MPI). Idempotent.
void initialize();
/// True between initialize() and finalize().
bool active();
/// MPI_Finalize when active; a no-op otherwise.
void finalize();
/// Ends every rank of the job with `status` (MPI_Abort), after the caller has
/// said why. With one rank it finalises and returns, so the process exits
/// with its own status and no MPI banner.
void abort_job(int status);
/// "rank R of K: " while active with K > 1, else empty: the prefix of a
/// rank's one-line error message.
std::string rank_prefix();

}  // namespace orrery::mpi
