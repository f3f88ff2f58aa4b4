// The byte all-to-all (Communicator::exchange) into one receive buffer kept
// across exchanges of different sizes, a larger, a smaller, then a larger
// again (run under mpiexec with K = 1..4: orrery_mpi_communicator_test.npK):
// each round's offsets and bytes exactly those sent, whatever an earlier
// round left in the buffer; its allocation kept for the smaller round and
// grown for the larger; the bytes it counts as moved those of the parts
// between ranks.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "orrery/mpi/byte_buffer.hpp"
#include "orrery/mpi/communicator.hpp"

namespace orrery::mpi {
namespace {

struct Round {
  int id;
  std::int64_t nominal;  // bytes per pair, about
  bool self;             // whether a rank sends itself a part (the LET never does; migration neither)
};

/// The bytes rank p sends rank q: unequal by pair, none to itself unless r.self.
std::int64_t part_bytes(const Round& r, int p, int q) {
  if (p == q && !r.self) return 0;
  return r.nominal + 37 * p + 11 * q;
}

/// Byte i of p's part for q: differs by round (so a byte an earlier round
/// left behind is seen), by direction, and under shifts of i by 256.
std::byte pattern(const Round& r, int p, int q, std::int64_t i) {
  return static_cast<std::byte>((i * 131 + (i >> 8) * 7 + p * 29 + q * 53 + r.id * 101) & 0xff);
}

/// One round, exchanged into `received` and checked on this rank. Every
/// rank exchanges before any check, so a failed one stops no collective.
void exchange_and_check(const Communicator& comm, const Round& r, ByteBuffer& received) {
  const int k = comm.size(), me = comm.rank();
  std::vector<std::byte> send;
  std::vector<std::int64_t> to(static_cast<std::size_t>(k) + 1, 0), from = {-1};
  for (int q = 0; q < k; ++q) {
    for (std::int64_t i = 0; i < part_bytes(r, me, q); ++i) send.push_back(pattern(r, me, q, i));
    to[q + 1] = static_cast<std::int64_t>(send.size());
  }
  const Traffic before = comm.traffic();
  comm.exchange(send, to, received, from);
  const Traffic moved = comm.traffic() - before;

  std::vector<std::int64_t> expected(static_cast<std::size_t>(k) + 1, 0);
  for (int p = 0; p < k; ++p) expected[p + 1] = expected[p] + part_bytes(r, p, me);
  ASSERT_EQ(from, expected) << "round " << r.id << ", rank " << me;
  ASSERT_EQ(received.size(), static_cast<std::size_t>(expected.back())) << "round " << r.id << ", rank " << me;
  std::int64_t wrong = 0;
  std::string first;
  for (int p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < part_bytes(r, p, me); ++i)
      if (received.data()[expected[p] + i] != pattern(r, p, me, i) && wrong++ == 0)
        first = "byte " + std::to_string(i) + " from rank " + std::to_string(p);
  EXPECT_EQ(wrong, 0) << "round " << r.id << ", rank " << me << ": first wrong " << first;
  // The counts and the parts between ranks; a rank's part for itself stays home.
  const std::int64_t counts = static_cast<std::int64_t>(sizeof(int)) * (k - 1);
  EXPECT_EQ(moved.sent, counts + to.back() - part_bytes(r, me, me)) << "round " << r.id;
  EXPECT_EQ(moved.received, counts + expected.back() - part_bytes(r, me, me)) << "round " << r.id;
}

TEST(Communicator, ExchangeReusesTheReceiveBufferAcrossSizes) {
  const Communicator comm = Communicator::world();
  ByteBuffer received;
  exchange_and_check(comm, {1, 5000, true}, received);
  const std::byte* held = received.data();
  const std::size_t capacity = received.capacity();
  EXPECT_EQ(capacity, received.size());
  exchange_and_check(comm, {2, 300, false}, received);  // smaller, and no part to itself (none at all at K = 1)
  EXPECT_EQ(received.data(), held) << "the smaller exchange must receive into the same allocation";
  EXPECT_EQ(received.capacity(), capacity);
  exchange_and_check(comm, {3, 9000, true}, received);  // larger than the first: grown
  EXPECT_EQ(received.capacity(), received.size());
  EXPECT_GT(received.capacity(), capacity);
  exchange_and_check(comm, {4, 5000, true}, received);  // smaller again, after the growth
  EXPECT_GT(received.capacity(), received.size());
}

}  // namespace
}  // namespace orrery::mpi
