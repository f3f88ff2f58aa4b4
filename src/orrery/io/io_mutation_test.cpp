// Bounded randomised corruption of valid snapshot, checkpoint and
// configuration files: every
// mutated file must give a clean InputError or a valid read (no crash, no
// other exception, no sanitizer report under the debug-asan preset).
#include <gtest/gtest.h>

#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"

// HDF5 1.10 leaks a few small buffers on some of its own error paths when it
// parses a corrupt file (the allocations are inside libhdf5, not ours):
// LeakSanitizer (debug-asan preset) is told to ignore those only.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5"; }

namespace orrery::io {
namespace {

using testing::random_particles;
using testing::ScratchDir;

/// One of: flip bits, overwrite a run with random bytes, zero a run, truncate, append.
std::string mutate(const std::string& valid, Rng& rng) {
  std::string s = valid;
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng.next_u64() % n); };
  switch (pick(5)) {
    case 0:
      for (std::size_t k = 1 + pick(8); k > 0; --k) s[pick(s.size())] ^= char(1u << pick(8));
      break;
    case 1: {
      const std::size_t at = pick(s.size()), len = std::min<std::size_t>(1 + pick(64), s.size() - at);
      for (std::size_t i = 0; i < len; ++i) s[at + i] = char(rng.next_u64());
      break;
    }
    case 2: {
      const std::size_t at = pick(s.size()), len = std::min<std::size_t>(1 + pick(512), s.size() - at);
      std::fill_n(s.begin() + static_cast<std::ptrdiff_t>(at), len, '\0');
      break;
    }
    case 3: s.resize(pick(s.size())); break;
    default: s.append(1 + pick(100), char(rng.next_u64())); break;
  }
  return s;
}

struct Outcome {
  int errors = 0;
  int valid_reads = 0;
};

template <class Read>
Outcome mutate_and_read(const std::filesystem::path& valid_file, const std::filesystem::path& scratch, int trials,
                        std::uint64_t seed, Read read) {
  const std::string valid = testing::read_bytes(valid_file);
  Rng rng(seed);
  Outcome out;
  for (int t = 0; t < trials; ++t) {
    testing::write_bytes(scratch, mutate(valid, rng));
    try {
      read(scratch);
      ++out.valid_reads;
    } catch (const InputError&) {
      ++out.errors;
    }
  }
  return out;
}

TEST(IoMutation, SnapshotsGiveACleanErrorOrAValidRead) {
  ScratchDir dir;
  SnapshotInfo info;
  info.config = "[initial_conditions]\nkind = \"plummer\"\n";
  Accelerations<double> acc(300);
  write_snapshot(dir / "s.h5", random_particles<double>(300, 1), info, SnapshotFields<double>{&acc});
  const auto out = mutate_and_read(dir / "s.h5", dir / "m.h5", 400, 11, [](const auto& p) {
    const auto s = read_snapshot<double>(p);
    EXPECT_EQ(s.particles.size(), 300);
  });
  EXPECT_EQ(out.errors + out.valid_reads, 400);
  EXPECT_GT(out.errors, 100) << "corruption went unnoticed too often";
}

TEST(IoMutation, CheckpointsGiveACleanErrorOrAValidRead) {
  ScratchDir dir;
  Checkpoint<double> c;
  c.state.dt = 0.01;
  c.particles = random_particles<double>(300, 1);
  write_checkpoint(dir / "c.orrck", c);
  const auto out = mutate_and_read(dir / "c.orrck", dir / "m.orrck", 400, 12,
                                   [](const auto& p) { read_checkpoint<double>(p); });
  // The checksum catches every mutation; appending changes where the CRC is read.
  EXPECT_EQ(out.errors, 400);
}

TEST(IoMutation, ConfigurationsGiveACleanErrorOrAValidRead) {
  ScratchDir dir;
  testing::write_bytes(dir / "c.toml", Config::defaults().to_toml());
  const auto out = mutate_and_read(dir / "c.toml", dir / "m.toml", 400, 13, [](const auto& p) {
    const auto c = Config::from_file(p);
    c.run_config();
    Config::from_string(c.to_toml());  // what it accepted, it writes back readably
  });
  EXPECT_EQ(out.errors + out.valid_reads, 400);
  EXPECT_GT(out.errors, 50) << "corruption went unnoticed too often";
}

}  // namespace
}  // namespace orrery::io
