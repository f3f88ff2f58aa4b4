#pragma once
// The fixture of the MPI tests that run on GPUs: skips without a CUDA
// device, else gives each rank a GPU (local rank mod the GPUs present, so
// ranks share the one GPU of a single-GPU machine), as driver::Ranks does.
#include <gtest/gtest.h>

#include "orrery/cuda/device.hpp"
#include "orrery/mpi/communicator.hpp"

namespace orrery::testing {

class RankGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    cuda::select_rank_device(mpi::Communicator::world().local_rank());
  }
};

}  // namespace orrery::testing
