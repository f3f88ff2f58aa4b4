#pragma once
// A scratch directory shared by every rank of an MPI test: rank 0 creates it
// (io::testing::ScratchDir) and removes it at the end; the others are told its
// path. Collective: every rank constructs one in the same order.
#include <mpi.h>

#include <filesystem>
#include <memory>
#include <string>

#include "orrery/io/test_files.hpp"

namespace orrery::testing {

class MpiScratchDir {
 public:
  MpiScratchDir() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::string path;
    if (rank == 0) {
      owned_ = std::make_unique<io::testing::ScratchDir>();
      path = owned_->path().string();
    }
    int length = static_cast<int>(path.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path.resize(static_cast<std::size_t>(length));
    MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = path;
  }
  ~MpiScratchDir() { MPI_Barrier(MPI_COMM_WORLD); }  // no rank still reads when rank 0 removes it
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::unique_ptr<io::testing::ScratchDir> owned_;
  std::filesystem::path path_;
};

}  // namespace orrery::testing
