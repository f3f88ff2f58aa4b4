#pragma once
// The check of docs/adr/0012 decision 9, for every backend's walk: a
// distributed solve whose local essential trees were selected for boxes
// shrunk to their centres (mpi::DistributedOptions::let_shrink = 0) has some
// walk open a node that was not sent, and every rank stops, at least one
// naming the node and the ranks; on one rank nothing is sent or missed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/mpi/distributed_tree.hpp"

namespace orrery::testing {

template <class Real>
void expect_missing_node_named(mpi::DistributedTree<Real>& dist, mpi::RankParticles<Real>& s,
                               const mpi::Communicator& comm) {
  std::string message;
  try {
    dist.solve(s);
  } catch (const RuntimeFailure& e) {
    message = e.what();
  }
  if (comm.size() == 1) {  // one rank sends nothing and misses nothing
    EXPECT_TRUE(message.empty()) << message;
    return;
  }
  ASSERT_FALSE(message.empty()) << "no rank's walk missed a node";
  const bool names = message.find("opens node (key ") != std::string::npos &&
                     message.find("did not send to rank " + std::to_string(comm.rank())) != std::string::npos;
  const bool defers = message.find("that rank names it") != std::string::npos;
  EXPECT_TRUE(names || defers) << "rank " << comm.rank() << ": " << message;
  std::vector<std::uint64_t> naming = {names ? 1u : 0u};
  comm.sum(naming);
  EXPECT_GE(naming[0], 1u) << "no rank named the node";
}

}  // namespace orrery::testing
