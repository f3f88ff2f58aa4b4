// `mpirun -np K mpi_exchange_bench`: the all-to-all of bytes that the local
// essential trees need (mpi::Communicator::exchange, docs/adr/0012: every
// rank sends every other a part of its own size, the receivers first learn
// the sizes), by four transports (issue 19):
//   comm    mpi::Communicator::exchange on host buffers, the call the
//           distributed tree makes (MPI_Alltoall of the counts, then
//           MPI_Alltoallv into a receive buffer kept across the trials, as a
//           DistributedTree keeps its own across solves);
//   host    the same MPI calls on host buffers allocated once;
//   device  the same MPI calls on device buffers (cudaMalloc), which needs a
//           CUDA-aware MPI: run where MPIX_Query_cuda_support() says 1 (or
//           with --force-device-mpi), skipped with a row saying why otherwise;
//   nccl    the counts by MPI_Alltoall, then ncclSend / ncclRecv to and from
//           every peer in one group on device buffers, the communicator's id
//           broadcast over MPI. NCCL needs one GPU per rank: where ranks share
//           a device (equal PCI bus ids) a row says it was skipped.
// Rank p's part for rank q has size(B, p, q) bytes, B +- B/4 about the nominal
// B per pair (parts of unequal size, as the LET's are), none for itself
// unless --self (the LET sends a rank nothing of its own; at K = 1 --self is
// what gives the exchange anything to move). Every byte is filled from
// (p, q, offset) and, after the trials, every received byte and count is
// compared with that: integers only, no floating-point reduction anywhere; a
// mismatch stops the job with an error (nonzero exit). Per size and
// transport: W warm-up exchanges, then T timed ones, each the slowest rank's
// time between a barrier and its exchange's end (for NCCL the stream's
// synchronisation), the receive buffers cleared before each, untimed. One
// CSV row from rank 0: median, least and most over the trials, spread, and
// GB/s of the bytes moved between ranks (with --self also a rank's to itself),
// in all and per rank.
//
//   mpi_exchange_bench [--sizes B,B,...] [--trials T] [--warmup W] [--self]
//                      [--transports comm,host,device,nccl] [--force-device-mpi] [--header]
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif
#include <nccl.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "mpi_bench_main.hpp"
#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/mpi/byte_buffer.hpp"
#include "orrery/mpi/communicator.hpp"

namespace {

using namespace orrery;

const std::vector<std::string> all_transports = {"comm", "host", "device", "nccl"};

struct Args {
  std::vector<std::int64_t> sizes = {4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
  int trials = 7, warmup = 2;
  bool self = false, force_device_mpi = false, header = false;
  std::vector<std::string> transports = all_transports;
};

[[noreturn]] void refuse(const std::string& what) {
  std::fprintf(stderr, "mpi_exchange_bench: %s\n", what.c_str());
  std::exit(2);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) refuse(k + " needs a value");
      return std::string(argv[++i]);
    };
    if (k == "--sizes") {
      a.sizes.clear();
      for (const auto& s : split_commas(value())) a.sizes.push_back(std::stoll(s));
    } else if (k == "--trials") a.trials = std::stoi(value());
    else if (k == "--warmup") a.warmup = std::stoi(value());
    else if (k == "--self") a.self = true;
    else if (k == "--transports") a.transports = split_commas(value());
    else if (k == "--force-device-mpi") a.force_device_mpi = true;
    else if (k == "--header") a.header = true;
    else
      refuse("unknown option " + k +
             "; accepted: --sizes --trials --warmup --self --transports --force-device-mpi --header");
  }
  for (const auto& t : a.transports)
    if (std::find(all_transports.begin(), all_transports.end(), t) == all_transports.end())
      refuse("--transports " + t + "; accepted: a comma-separated list of comm, host, device, nccl");
  for (const std::int64_t b : a.sizes)
    if (b < 8) refuse("--sizes " + std::to_string(b) + "; accepted: bytes per pair of 8 or more");
  if (a.trials < 5) refuse("--trials " + std::to_string(a.trials) + "; accepted: 5 or more (a median and a spread)");
  if (a.warmup < 0) refuse("--warmup " + std::to_string(a.warmup) + "; accepted: 0 or more");
  return a;
}

/// The bytes rank `from` sends rank `to`: B + (-2..2) B/8 by the pair, so
/// parts differ in size as the LET's do; none to itself unless `self`.
std::int64_t pair_bytes(std::int64_t nominal, int from, int to, bool self) {
  if (from == to && !self) return 0;
  return nominal + ((3 * from + 5 * to) % 5 - 2) * (nominal / 8);
}

/// Byte `i` of rank from's part for rank to: differs between the two
/// directions of a pair and, through i >> 8 and i >> 16, under a shift of
/// the offset by a multiple of 256.
std::byte pattern(int from, int to, std::int64_t i) {
  const auto u = static_cast<std::uint64_t>(i);
  return static_cast<std::byte>(((u ^ (u >> 8) ^ (u >> 16)) * 131u + static_cast<std::uint64_t>(from) * 7u +
                                 static_cast<std::uint64_t>(to) * 13u) &
                                0xffu);
}

/// MPI_Alltoallv's counts and displacements of one side, in int as MPI
/// takes them; `offsets` [K + 1] are the same as std::int64_t.
struct Layout {
  std::vector<int> counts, at;
  std::vector<std::int64_t> offsets;
  std::int64_t total() const { return offsets.back(); }
};

Layout layout_of(const std::vector<std::int64_t>& bytes) {
  Layout l;
  l.offsets.assign(bytes.size() + 1, 0);
  for (std::size_t q = 0; q < bytes.size(); ++q) {
    l.offsets[q + 1] = l.offsets[q] + bytes[q];
    if (l.offsets[q + 1] > std::numeric_limits<int>::max())
      throw InputError("an exchange of " + std::to_string(l.offsets[q + 1]) +
                       " bytes on one rank; accepted: fewer than 2^31 (MPI counts are int): a smaller --sizes or K");
    l.counts.push_back(static_cast<int>(bytes[q]));
    l.at.push_back(static_cast<int>(l.offsets[q]));
  }
  return l;
}

/// This rank's sends (to each rank) and the receives it expects (from each).
struct Plan {
  Layout send, recv;
  std::vector<std::byte> data;  // the send buffer, filled with pattern()
};

Plan plan_of(std::int64_t nominal, bool self, int rank, int size) {
  std::vector<std::int64_t> out, in;
  for (int q = 0; q < size; ++q) {
    out.push_back(pair_bytes(nominal, rank, q, self));
    in.push_back(pair_bytes(nominal, q, rank, self));
  }
  Plan p{layout_of(out), layout_of(in), {}};
  p.data.resize(static_cast<std::size_t>(p.send.total()));
  for (int q = 0; q < size; ++q)
    for (std::int64_t i = 0; i < p.send.counts[q]; ++i)
      p.data[static_cast<std::size_t>(p.send.offsets[q] + i)] = pattern(rank, q, i);
  return p;
}

/// The counts a receiver learns first, as the LET's exchange does (host MPI in every transport).
std::vector<int> exchange_counts(const Layout& send, int size) {
  std::vector<int> got(static_cast<std::size_t>(size));
  MPI_Alltoall(send.counts.data(), 1, MPI_INT, got.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return got;
}

/// The first byte or count that is not the one its sender wrote for this
/// rank, named with the transport and the ranks; empty when all are.
std::string first_wrong(const std::string& transport, const std::vector<int>& counts, std::span<const std::byte> got,
                        const Plan& plan, int rank) {
  const std::string where = transport + ": rank " + std::to_string(rank);
  for (std::size_t r = 0; r < counts.size(); ++r)
    if (counts[r] != plan.recv.counts[r])
      return where + " was told " + std::to_string(counts[r]) + " bytes from rank " + std::to_string(r) +
             ", expected " + std::to_string(plan.recv.counts[r]);
  if (static_cast<std::int64_t>(got.size()) != plan.recv.total())
    return where + " received " + std::to_string(got.size()) + " bytes, expected " + std::to_string(plan.recv.total());
  for (std::size_t r = 0; r < counts.size(); ++r)
    for (std::int64_t i = 0; i < plan.recv.counts[r]; ++i) {
      const std::byte b = got[static_cast<std::size_t>(plan.recv.offsets[r] + i)], want = pattern(int(r), rank, i);
      if (b != want)
        return where + ", byte " + std::to_string(i) + " from rank " + std::to_string(r) + " is " +
               std::to_string(int(b)) + ", expected " + std::to_string(int(want));
    }
  return {};
}

/// Collective: every rank checks what it received; if any rank's is wrong,
/// those ranks say what, and every rank throws (the job stops, nonzero).
void verify(const std::string& transport, const std::vector<int>& counts, std::span<const std::byte> got,
            const Plan& plan, int rank) {
  const std::string wrong = first_wrong(transport, counts, got, plan, rank);
  int mine = wrong.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any == 0) return;
  if (mine) std::fprintf(stderr, "mpi_exchange_bench: %s\n", wrong.c_str());
  std::fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);  // the messages before the abort
  throw RuntimeFailure(transport + ": the received bytes are not the ones sent (the ranks' messages above)");
}

/// What the whole job has: devices, distinct GPUs, CUDA-aware MPI.
struct Setup {
  bool gpu = false;      // every rank has a device (local rank mod the devices present)
  bool distinct = false; // and no two ranks share one (NCCL's condition)
  int gpus = 0;          // distinct devices over the ranks
  std::string cuda_aware = "unknown (no mpi-ext.h)";
  bool cuda_aware_yes = false;
};

Setup setup_of(const mpi::Communicator& comm) {
  const int rank = comm.rank(), size = comm.size();
  Setup s;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  const int query = MPIX_Query_cuda_support();
  s.cuda_aware_yes = query == 1;
  s.cuda_aware = std::to_string(query);
#endif
  char id[32] = {};  // empty: no device on this rank
  if (cuda::device_available()) {
    const std::string mine = cuda::pci_bus_id(cuda::select_rank_device(comm.local_rank()));
    mine.copy(id, sizeof id - 1);
  }
  std::vector<char> ids(sizeof id * static_cast<std::size_t>(size));
  MPI_Allgather(id, sizeof id, MPI_CHAR, ids.data(), sizeof id, MPI_CHAR, MPI_COMM_WORLD);
  std::set<std::string> seen;
  s.gpu = true;
  for (int r = 0; r < size; ++r) {
    const char* at = ids.data() + sizeof id * static_cast<std::size_t>(r);
    const std::string b(at, std::find(at, at + sizeof id, '\0'));
    s.gpu = s.gpu && !b.empty();
    seen.insert(b);
  }
  s.gpus = s.gpu ? static_cast<int>(seen.size()) : 0;
  s.distinct = s.gpu && s.gpus == size;
  int nccl_version = 0;
  (void)ncclGetVersion(&nccl_version);
  if (rank == 0)
    std::fprintf(stderr, "mpi_exchange_bench: %d ranks, %d distinct GPUs%s, MPIX_Query_cuda_support() = %s, NCCL %d\n",
                 size, s.gpus, s.gpu ? "" : " (a rank has none)", s.cuda_aware.c_str(), nccl_version);
  return s;
}

/// W + T exchanges; returns the T slowest-rank times. `clear` runs before
/// each, untimed; `exchange` is timed from a barrier to its end.
template <class Clear, class Exchange>
std::vector<double> timed(const Args& a, Clear clear, Exchange exchange) {
  std::vector<double> out;
  for (int t = 0; t < a.warmup + a.trials; ++t) {
    clear();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    exchange();
    double mine = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // a time: not a result
    if (t >= a.warmup) out.push_back(slowest);
  }
  return out;
}

void check_nccl(ncclResult_t r, const char* call) {
  if (r != ncclSuccess)
    throw RuntimeFailure(std::string(call) + " failed: " + ncclGetErrorString(r) + " (NCCL " +
                         std::to_string(NCCL_VERSION_CODE) + ")");
}

/// The NCCL communicator over every rank, one GPU each.
class Nccl {
 public:
  Nccl(int rank, int size) {
    ncclUniqueId id{};
    if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    check_nccl(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
  }
  ~Nccl() { (void)ncclCommDestroy(comm_); }
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  /// One send and one receive per peer with bytes, in one group, on `stream`.
  void exchange(const std::byte* send, const Layout& out, std::byte* recv, const std::vector<int>& in_counts,
                const Layout& in, cuda::StreamHandle stream) const {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t q = 0; q < out.counts.size(); ++q) {
      const int peer = static_cast<int>(q);
      if (out.counts[q] > 0)
        check_nccl(ncclSend(send + out.at[q], static_cast<std::size_t>(out.counts[q]), ncclUint8, peer, comm_, stream),
                   "ncclSend");
      if (in_counts[q] > 0)
        check_nccl(ncclRecv(recv + in.at[q], static_cast<std::size_t>(in_counts[q]), ncclUint8, peer, comm_, stream),
                   "ncclRecv");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    cuda::synchronize(stream);
  }

 private:
  ncclComm_t comm_ = nullptr;
};

struct Row {
  std::string transport, status = "ok";
  std::vector<double> seconds;  // empty: skipped
};
Row skipped(const std::string& transport, const std::string& why) { return {transport, "skipped: " + why, {}}; }

/// One transport's trials at one size, verified.
Row measure(const std::string& transport, const Args& a, const Plan& plan, const Setup& setup, const Nccl* nccl,
            const mpi::Communicator& comm) {
  const int rank = comm.rank(), size = comm.size();
  Row row{transport, "ok", {}};
  std::vector<int> counts;
  // The other transports' receive buffer, allocated once; comm receives into its own.
  std::vector<std::byte> got(transport == "comm" ? 0 : static_cast<std::size_t>(plan.recv.total()));
  mpi::ByteBuffer kept;
  std::span<std::byte> received = got;  // what is checked
  const auto clear_host = [&] { std::fill(got.begin(), got.end(), std::byte{0}); };
  if (transport == "comm") {
    std::vector<std::int64_t> from;
    // The first exchange (a warm-up unless --warmup 0) allocates `kept`;
    // the others receive into it, cleared as the host transport's is.
    row.seconds = timed(a, [&] { std::fill(kept.begin(), kept.end(), std::byte{0}); },
                        [&] { comm.exchange(plan.data, plan.send.offsets, kept, from); });
    for (int r = 0; r < size; ++r) counts.push_back(static_cast<int>(from[r + 1] - from[r]));
    received = kept;
  } else if (transport == "host") {
    row.seconds = timed(a, clear_host, [&] {
      counts = exchange_counts(plan.send, size);
      MPI_Alltoallv(plan.data.data(), plan.send.counts.data(), plan.send.at.data(), MPI_BYTE, got.data(),
                    counts.data(), plan.recv.at.data(), MPI_BYTE, MPI_COMM_WORLD);
    });
  } else {
    if (!setup.gpu) return skipped(transport, "a rank has no CUDA device");
    if (transport == "device" && !setup.cuda_aware_yes && !a.force_device_mpi)
      return skipped(transport, "MPIX_Query_cuda_support() = " + setup.cuda_aware + " (--force-device-mpi runs it anyway)");
    if (transport == "nccl" && nccl == nullptr)
      return skipped(transport, "ranks share a GPU and NCCL needs one GPU per rank");
    cuda::Stream stream;
    cuda::DeviceBuffer<std::byte> send(plan.data.size()), recv(got.size());
    send.upload(plan.data, stream.get());
    const auto clear_device = [&] {
      recv.zero(stream.get());
      stream.synchronize();
    };
    if (transport == "device")
      row.seconds = timed(a, clear_device, [&] {
        counts = exchange_counts(plan.send, size);
        MPI_Alltoallv(send.data(), plan.send.counts.data(), plan.send.at.data(), MPI_BYTE, recv.data(),
                      counts.data(), plan.recv.at.data(), MPI_BYTE, MPI_COMM_WORLD);
      });
    else
      row.seconds = timed(a, clear_device, [&] {
        counts = exchange_counts(plan.send, size);
        nccl->exchange(send.data(), plan.send, recv.data(), counts, plan.recv, stream.get());
      });
    recv.download(got, stream.get());
  }
  // The test seam of the check (bench/CMakeLists.txt): ORRERY_TEST_CORRUPT_EXCHANGE=<transport>
  // flips a received bit on the last rank, which must stop the job.
  if (const char* c = std::getenv("ORRERY_TEST_CORRUPT_EXCHANGE");
      c && transport == c && rank == size - 1 && !received.empty())
    received.back() ^= std::byte{1};
  verify(transport, counts, received, plan, rank);
  return row;
}

void run(const Args& a, int rank, int size) {
  const mpi::Communicator comm = mpi::Communicator::world();
  const Setup setup = setup_of(comm);
  const bool want_nccl = std::find(a.transports.begin(), a.transports.end(), "nccl") != a.transports.end();
  // NCCL refuses two ranks on one GPU ("Duplicate GPU"): made only where each rank has its own.
  const std::unique_ptr<Nccl> nccl = want_nccl && setup.distinct ? std::make_unique<Nccl>(rank, size) : nullptr;
  for (const std::int64_t nominal : a.sizes) {
    const Plan plan = plan_of(nominal, a.self, rank, size);
    // The bytes moved over every rank (integers, summed exactly).
    std::int64_t moved = 0;
    for (int p = 0; p < size; ++p)
      for (int q = 0; q < size; ++q) moved += pair_bytes(nominal, p, q, a.self);
    for (const auto& transport : a.transports) {
      const Row row = measure(transport, a, plan, setup, nccl.get(), comm);
      if (rank != 0) continue;
      std::printf("%s,%d,%lld,%d,%lld,%d,%d,%s", transport.c_str(), size, static_cast<long long>(nominal),
                  a.self ? 1 : 0, static_cast<long long>(moved), a.trials, setup.gpus, setup.cuda_aware.c_str());
      if (row.seconds.empty()) {
        std::printf(",,,,,,,%s\n", row.status.c_str());
      } else {
        const bench::Stats s = bench::stats_of(row.seconds);
        const double gbps = s.median > 0 ? static_cast<double>(moved) / s.median / 1e9 : 0;
        std::printf(",%.6e,%.6e,%.6e,%.3f,%.3f,%.3f,%s\n", s.median, s.min, s.max, s.spread(), gbps, gbps / size,
                    row.status.c_str());
      }
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return orrery::bench::mpi_bench_main(argc, argv, "mpi_exchange_bench",
                                       "transport,ranks,bytes_per_pair,self,bytes_moved,trials,gpus,cuda_aware_mpi,"
                                       "median_s,min_s,max_s,spread,gb_per_s,gb_per_s_per_rank,status",
                                       parse, run);
}
