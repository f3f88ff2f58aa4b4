#include "mpi_launch.hpp"

#include <cstdlib>

#if defined(ORRERY_HAVE_MPI)
#include "orrery/mpi/communicator.hpp"
#include "orrery/mpi/session.hpp"
#endif

namespace orrery::cli {
namespace {

/// The job's size as the launcher's environment says, 0 when none does.
long launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) return std::strtol(v, nullptr, 10);
  return std::getenv("PMIX_RANK") != nullptr ? 1 : 0;
}

}  // namespace

#if defined(ORRERY_HAVE_MPI)
bool mpi_wanted(bool flag) { return flag || launcher_size() > 0; }
void start_mpi() { mpi::initialize(); }
bool prints() { return !mpi::active() || mpi::Communicator::world().rank() == 0; }
std::string rank_prefix() { return mpi::rank_prefix(); }
void end_mpi(int status) {
  if (status == 0)
    mpi::finalize();
  else
    mpi::abort_job(status);
}
#else
bool mpi_wanted(bool flag) { return flag || launcher_size() > 1; }
void start_mpi() {}
bool prints() { return true; }
std::string rank_prefix() { return {}; }
void end_mpi(int) {}
#endif

}  // namespace orrery::cli
