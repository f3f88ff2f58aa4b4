// require_unique_ids on 1..4 ranks: blocks of distinct IDs pass; an ID on
// two ranks (or twice on one) stops every rank with the same message naming
// the smallest duplicate, the largest uint64 included.
#include "orrery/mpi/unique_ids.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"

namespace orrery::mpi {
namespace {

/// Rank r's block of IDs 1..n, plus `extra`.
std::vector<std::uint64_t> block(const Communicator& comm, std::uint64_t n, std::vector<std::uint64_t> extra = {}) {
  std::vector<std::uint64_t> ids;
  const auto k = static_cast<std::uint64_t>(comm.size()), r = static_cast<std::uint64_t>(comm.rank());
  for (std::uint64_t id = r * n / k + 1; id <= (r + 1) * n / k; ++id) ids.push_back(id);
  ids.insert(ids.end(), extra.begin(), extra.end());
  return ids;
}

std::string message_of(const std::vector<std::uint64_t>& ids, const Communicator& comm) {
  try {
    require_unique_ids(ids, comm, "file 'x.h5'");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(UniqueIds, DistinctIdsPass) {
  const auto comm = Communicator::world();
  EXPECT_EQ(message_of(block(comm, 1000), comm), "");
  EXPECT_EQ(message_of(block(comm, 2), comm), "");  // ranks without IDs
}

TEST(UniqueIds, AnIdOnTwoRanksStopsEveryRankNamingTheSmallest) {
  const auto comm = Communicator::world();
  const bool last = comm.rank() == comm.size() - 1;
  // The last rank holds 7 and 500 again (ranks 0.. hold them already).
  const auto ids = block(comm, 1000, last ? std::vector<std::uint64_t>{500, 7} : std::vector<std::uint64_t>{});
  EXPECT_EQ(message_of(ids, comm),
            "file 'x.h5': ParticleIDs (all types): ID 7 occurs more than once (IDs must be unique)");
}

TEST(UniqueIds, TheLargestIdTwiceIsADuplicateToo) {
  const auto comm = Communicator::world();
  constexpr auto top = std::numeric_limits<std::uint64_t>::max();
  const auto ids = block(comm, 10, comm.rank() == 0 ? std::vector<std::uint64_t>{top, top} : std::vector<std::uint64_t>{});
  EXPECT_NE(message_of(ids, comm).find("ID " + std::to_string(top) + " occurs more than once"), std::string::npos);
}

}  // namespace
}  // namespace orrery::mpi
