#include "orrery/mpi/unique_ids.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "orrery/core/error.hpp"

namespace orrery::mpi {

void require_unique_ids(std::span<const std::uint64_t> mine, const Communicator& comm, const std::string& context) {
  const auto k = static_cast<std::uint64_t>(comm.size());
  // This rank's IDs grouped by the rank that checks them (a counting sort).
  std::vector<std::int64_t> to(k + 1, 0);
  for (const auto id : mine) ++to[id % k + 1];
  for (std::uint64_t q = 0; q < k; ++q) to[q + 1] += to[q];
  std::vector<std::uint64_t> grouped(mine.size());
  std::vector<std::int64_t> at(to.begin(), to.end() - 1);
  for (const auto id : mine) grouped[static_cast<std::size_t>(at[id % k]++)] = id;
  for (auto& offset : to) offset *= static_cast<std::int64_t>(sizeof(std::uint64_t));
  ByteBuffer received;
  std::vector<std::int64_t> from;
  comm.exchange(std::as_bytes(std::span(grouped)), to, received, from);
  grouped.clear();
  grouped.shrink_to_fit();
  std::vector<std::uint64_t> ids(received.size() / sizeof(std::uint64_t));
  if (!ids.empty()) std::memcpy(ids.data(), received.data(), received.size());
  std::sort(ids.begin(), ids.end());
  const auto dup = std::adjacent_find(ids.begin(), ids.end());
  std::uint64_t smallest[1] = {dup == ids.end() ? std::numeric_limits<std::uint64_t>::max() : *dup};
  comm.min(smallest);
  // IDs are uint64: the largest value is a possible ID too, so whether any rank found one is agreed apart.
  if (comm.max(dup == ids.end() ? 0 : 1) == 0) return;
  throw InputError(context + ": ParticleIDs (all types): ID " + std::to_string(smallest[0]) +
                   " occurs more than once (IDs must be unique)");
}

}  // namespace orrery::mpi
