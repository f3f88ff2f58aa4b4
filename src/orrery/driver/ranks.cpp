#include "orrery/driver/ranks.hpp"

#include <cstdlib>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"
#if defined(ORRERY_HAVE_MPI)
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/mpi/replicated_solver.hpp"
#endif
#if defined(ORRERY_HAVE_CUDA)
#include "orrery/cuda/device.hpp"
#if defined(ORRERY_HAVE_MPI)
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/mpi/let_walk_gpu.hpp"
#endif
#endif

namespace orrery::driver {

Ranks Ranks::world() {
#if defined(ORRERY_HAVE_MPI)
  Ranks r;
  r.comm_ = mpi::Communicator::world();
  r.distributed_ = true;
  return r;
#else
  throw InputError("an MPI run (mpirun, or orrery run --mpi) in a build without MPI; accepted: orrery run without "
                   "mpirun, or a build configured with MPI found (libopenmpi-dev, docs/adr/0013)");
#endif
}

std::int64_t Ranks::from_writer(std::int64_t value) const {
#if defined(ORRERY_HAVE_MPI)
  if (distributed_) return comm_.from_rank0(value);
#endif
  return value;
}

using Action = io::RunControl::Action;
static_assert(static_cast<int>(Action::none) < static_cast<int>(Action::checkpoint) &&
                  static_cast<int>(Action::checkpoint) < static_cast<int>(Action::checkpoint_and_stop),
              "agree() takes the most urgent action as the largest value");

io::RunControl::Action Ranks::agree(io::RunControl::Action mine) const {
#if defined(ORRERY_HAVE_MPI)
  // The enumerators are ordered by urgency: the maximum is an exact, order-free agreement.
  if (distributed_) return static_cast<io::RunControl::Action>(comm_.max(static_cast<int>(mine)));
#endif
  return mine;
}

template <class Real>
std::unique_ptr<gravity::ForceSolver<Real>> Ranks::solver(const gravity::GravityConfig& gravity) const {
  if (!distributed_) return gravity::make_solver<Real>(gravity);
  refuse_target_groups(gravity);
#if defined(ORRERY_HAVE_CUDA)
  // Ranks share the GPUs of their node round-robin (one GPU each where there are enough).
  if (gravity.backend != "cpu" && cuda::device_available())
    cuda::select_rank_device(comm_.local_rank());
#endif
#if defined(ORRERY_HAVE_MPI)
  return std::make_unique<mpi::ReplicatedSolver<Real>>(gravity::make_solver<Real>(gravity), comm_);
#else
  return gravity::make_solver<Real>(gravity);  // not reached: world() refuses without MPI
#endif
}

void Ranks::refuse_target_groups(const gravity::GravityConfig& gravity) {
  // Group opening and the list walk make a target's force depend on the
  // other targets of its group (docs/adr/0017, 0019); ranks that split the
  // targets would group them differently for each K.
  if (gravity.group_opening != 0)
    throw InputError("gravity.group_opening = " + std::to_string(gravity.group_opening) +
                     " under MPI: a target's force depends on its group, which the ranks' split would change with "
                     "the number of ranks; accepted under MPI: gravity.group_opening = 0");
  if (gravity.list_walk)
    throw InputError("gravity.list_walk = true under MPI: a target's force depends on its group (docs/adr/0019), "
                     "which the ranks' split would change with the number of ranks; accepted under MPI: "
                     "gravity.list_walk = false");
}

void Ranks::require_distributed(const gravity::GravityConfig& gravity) {
  refuse_target_groups(gravity);
  if (gravity.solver != "tree")
    throw InputError("gravity.mpi_layout = \"distributed\" with gravity.solver = \"" + gravity.solver +
                     "\"; accepted: solver \"tree\" (on the CPU or one GPU per rank), or "
                     "gravity.mpi_layout = \"replicated\"");
  if (gravity.per_type_softening())
    throw InputError("gravity.mpi_layout = \"distributed\" with a softening per particle type "
                     "(gravity.softening_per_type.*); accepted: one gravity.softening for every particle with the "
                     "distributed layout, or gravity.mpi_layout = \"replicated\"");
}

template <class Real>
std::shared_ptr<mpi::LetWalk<Real>> Ranks::let_walk(const gravity::GravityConfig& gravity) const {
  bool gpu = false;  // where backend "auto" would put the walk
#if defined(ORRERY_HAVE_CUDA)
  gpu = cuda::device_available();
#endif
  const bool cpu = gravity.backend == "cpu" || (gravity.backend == "auto" && !gpu);
#if defined(ORRERY_HAVE_MPI)
  if (cpu) return mpi::cpu_let_walk<Real>(gravity::tree_solver_config(gravity));
#if defined(ORRERY_HAVE_CUDA)
  // Each rank walks its targets on its GPU (mpi/let_walk_gpu.hpp): one process's GPU tree solver's bits.
  if (cuda::device_available()) cuda::select_rank_device(comm_.local_rank());
  return mpi::gpu_let_walk<Real>(gravity::gpu_tree_config(gravity));
#endif
#endif
  throw InputError("gravity.backend = \"" + gravity.backend + "\" with gravity.mpi_layout = \"distributed\" in a " +
                   "build without " + (cpu ? "MPI" : "CUDA") + "; accepted: backend \"cpu\" or \"auto\" in an MPI build");
}

template std::shared_ptr<mpi::LetWalk<float>> Ranks::let_walk<float>(const gravity::GravityConfig&) const;
template std::shared_ptr<mpi::LetWalk<double>> Ranks::let_walk<double>(const gravity::GravityConfig&) const;

void Ranks::fail_if_injected(std::int64_t step) const {
  static const char* spec = std::getenv("ORRERY_TEST_FAIL_RANK");
  if (spec == nullptr) return;
  char* colon = nullptr;
  const long rank = std::strtol(spec, &colon, 10);
  if (colon == nullptr || *colon != ':' || rank != comm_.rank() || std::strtoll(colon + 1, nullptr, 10) != step) return;
  throw RuntimeFailure("injected failure (ORRERY_TEST_FAIL_RANK=" + std::string(spec) + ") after step " +
                       std::to_string(step));
}

template std::unique_ptr<gravity::ForceSolver<float>> Ranks::solver<float>(const gravity::GravityConfig&) const;
template std::unique_ptr<gravity::ForceSolver<double>> Ranks::solver<double>(const gravity::GravityConfig&) const;

}  // namespace orrery::driver
