#include "orrery/io/checkpoint.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <span>
#include <thread>

#include "orrery/io/crc64.hpp"
#include "orrery/io/test_files.hpp"

namespace orrery::io {
namespace {

using testing::expect_input_error;
using testing::expect_same_particles;
using testing::random_particles;
using testing::ScratchDir;

template <class Real>
Checkpoint<Real> sample_checkpoint(std::size_t n, std::uint64_t seed) {
  Checkpoint<Real> c;
  c.config = "[integration]\ndt = 0.01\n";
  c.state.time_origin = 0.5;
  c.state.dt = 0.01;
  c.state.step = static_cast<std::int64_t>(seed) * 7;
  c.state.initial_energy = -0.25;
  c.state.rng_state = {1, 2, 3, seed};
  c.counters = {{"next_snapshot", 4}, {"diagnostics_rows", 12}};
  c.particles = random_particles<Real>(n, seed);
  auto a = random_particles<Real>(n, seed + 100);
  c.accelerations.ax = std::move(a.x);
  c.accelerations.ay = std::move(a.y);
  c.accelerations.az = std::move(a.z);
  c.time_bins.resize(n);
  for (std::size_t i = 0; i < n; ++i) c.time_bins[i] = static_cast<integrate::TimeBin>((i * 7 + seed) % 12);
  return c;
}

template <class Real>
void expect_same(const Checkpoint<Real>& a, const Checkpoint<Real>& b) {
  EXPECT_EQ(a.build, b.build);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.state.time_origin, b.state.time_origin);
  EXPECT_EQ(a.state.dt, b.state.dt);
  EXPECT_EQ(a.state.step, b.state.step);
  EXPECT_EQ(a.state.initial_energy, b.state.initial_energy);
  EXPECT_EQ(a.state.rng_state, b.state.rng_state);
  EXPECT_EQ(a.counters, b.counters);
  expect_same_particles(a.particles, b.particles);
  EXPECT_TRUE(testing::same_bits(a.accelerations.ax, b.accelerations.ax));
  EXPECT_TRUE(testing::same_bits(a.accelerations.ay, b.accelerations.ay));
  EXPECT_TRUE(testing::same_bits(a.accelerations.az, b.accelerations.az));
  EXPECT_EQ(a.time_bins, b.time_bins);
}

TEST(Crc64, KnownCheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(crc64(std::as_bytes(std::span(s.data(), s.size()))), 0x995DC9BBDF1939FAULL);
}

template <class Real>
void round_trip() {
  ScratchDir dir;
  const auto c = sample_checkpoint<Real>(500, 3);
  write_checkpoint(dir / "c.orrck", c);
  EXPECT_TRUE(is_checkpoint_file(dir / "c.orrck"));
  EXPECT_EQ(checkpoint_precision(dir / "c.orrck"), sizeof(Real) == 8 ? "double" : "float");
  expect_same(c, read_checkpoint<Real>(dir / "c.orrck"));
}
TEST(Checkpoint, RoundTripIsBitwiseDouble) { round_trip<double>(); }
TEST(Checkpoint, RoundTripIsBitwiseFloat) { round_trip<float>(); }

/// The bytes of `file` with the format field set to `format` and, before
/// the checksum, `drop` bytes removed from the end; checksum recomputed.
std::string with_format(const std::filesystem::path& file, std::uint32_t format, std::size_t drop) {
  auto bytes = testing::read_bytes(file);
  bytes.resize(bytes.size() - 8 - drop);
  std::memcpy(bytes.data() + 8, &format, sizeof format);
  const std::uint64_t crc = crc64(std::as_bytes(std::span(bytes.data(), bytes.size())));
  bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
  return bytes;
}

TEST(Checkpoint, WithoutAccelerationsRoundTripsEmpty) {
  ScratchDir dir;
  auto c = sample_checkpoint<double>(50, 2);
  c.accelerations = {};
  write_checkpoint(dir / "c.orrck", c);
  const auto back = read_checkpoint<double>(dir / "c.orrck");
  expect_same(c, back);
  EXPECT_TRUE(back.accelerations.ax.empty());
  c.accelerations.ax.assign(49, 1.0);
  expect_input_error([&] { write_checkpoint(dir / "bad.orrck", c); },
                     {"bad.orrck", "ax, ay, az of 49, 0, 0 values for 50 particles"});
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.orrck"));
  c.accelerations = {};
  c.accelerations.ay.assign(50, 1.0);  // ax empty does not make the others "none"
  expect_input_error([&] { write_checkpoint(dir / "bad.orrck", c); }, {"bad.orrck", "ax, ay, az of 0, 50, 0 values"});
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.orrck"));
}

// Format 1 (before the accelerations) is format 2 without its
// accelerations.count field: still read, with no accelerations.
TEST(Checkpoint, FormatOneFilesAreStillRead) {
  ScratchDir dir;
  auto c = sample_checkpoint<double>(40, 3);
  c.accelerations = {};
  c.time_bins = {};
  write_checkpoint(dir / "c.orrck", c);
  // Versions 1 and 2 end before the counts of the accelerations (1) and of the time bins (1 and 2).
  testing::write_bytes(dir / "v1.orrck", with_format(dir / "c.orrck", 1, 2 * sizeof(std::uint64_t)));
  const auto old = read_checkpoint<double>(dir / "v1.orrck");
  expect_same(c, old);
  EXPECT_TRUE(old.accelerations.ax.empty());
  testing::write_bytes(dir / "v2.orrck", with_format(dir / "c.orrck", 2, sizeof(std::uint64_t)));
  expect_same(c, read_checkpoint<double>(dir / "v2.orrck"));
  testing::write_bytes(dir / "v4.orrck", with_format(dir / "c.orrck", 4, 0));
  expect_input_error([&] { read_checkpoint<double>(dir / "v4.orrck"); },
                     {"v4.orrck", "format", "version 4 (this build reads versions 1 to 3)"});
  expect_input_error([&] { checkpoint_precision(dir / "v4.orrck"); }, {"v4.orrck", "version 4"});
}

TEST(Checkpoint, AccelerationsOfAnotherCountOrNotFiniteAreRefused) {
  ScratchDir dir;
  auto c = sample_checkpoint<double>(30, 4);
  c.time_bins = {};
  // A file whose accelerations.count is 29: the last 3 * 8 bytes of them cut (before the time bins'
  // count of 0 and the checksum) and the count patched.
  write_checkpoint(dir / "c.orrck", c);
  auto bytes = testing::read_bytes(dir / "c.orrck");
  const std::size_t count_at = bytes.size() - 8 - 8 - 3 * 30 * sizeof(double) - 8;
  const std::uint64_t m = 29;
  std::memcpy(bytes.data() + count_at, &m, sizeof m);
  bytes.erase(bytes.size() - 8 - 8 - 3 * sizeof(double), 3 * sizeof(double));
  bytes.resize(bytes.size() - 8);
  const std::uint64_t crc = crc64(std::as_bytes(std::span(bytes.data(), bytes.size())));
  bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
  testing::write_bytes(dir / "m.orrck", bytes);
  expect_input_error([&] { read_checkpoint<double>(dir / "m.orrck"); }, {"m.orrck", "accelerations.count", "29"});
  c.accelerations.ay[7] = std::numeric_limits<double>::infinity();
  write_checkpoint(dir / "inf.orrck", c);
  expect_input_error([&] { read_checkpoint<double>(dir / "inf.orrck"); },
                     {"inf.orrck", "accelerations.ay", "row 7 is inf; accepted: finite numbers"});
}

TEST(Checkpoint, EveryFlippedByteFailsTheChecksum) {
  ScratchDir dir;
  write_checkpoint(dir / "c.orrck", sample_checkpoint<double>(20, 1));
  const auto bytes = testing::read_bytes(dir / "c.orrck");
  for (std::size_t i = 8; i < bytes.size(); i += 7) {
    auto bad = bytes;
    bad[i] = char(bad[i] ^ 0x01);
    testing::write_bytes(dir / "bad.orrck", bad);
    expect_input_error([&] { read_checkpoint<double>(dir / "bad.orrck"); }, {"bad.orrck", "checksum mismatch"});
  }
}

TEST(Checkpoint, TruncatedOrForeignFilesAreRefused) {
  ScratchDir dir;
  write_checkpoint(dir / "c.orrck", sample_checkpoint<double>(20, 1));
  const auto bytes = testing::read_bytes(dir / "c.orrck");
  for (const std::size_t keep : {bytes.size() - 1, bytes.size() / 2, std::size_t{12}, std::size_t{3}}) {
    testing::write_bytes(dir / "t.orrck", bytes.substr(0, keep));
    expect_input_error([&] { read_checkpoint<double>(dir / "t.orrck"); }, {"t.orrck"});
  }
  testing::write_bytes(dir / "x.orrck", "hello world, not a checkpoint");
  expect_input_error([&] { read_checkpoint<double>(dir / "x.orrck"); }, {"x.orrck", "not an Orrery checkpoint"});
  expect_input_error([&] { read_checkpoint<double>(dir / "none.orrck"); }, {"none.orrck", "no such file"});
}

TEST(Checkpoint, OtherPrecisionIsRefusedNamingTheField) {
  ScratchDir dir;
  write_checkpoint(dir / "c.orrck", sample_checkpoint<double>(20, 1));
  expect_input_error([&] { read_checkpoint<float>(dir / "c.orrck"); }, {"c.orrck", "build.precision", "double"});
}

TEST(Checkpoint, RequireSameBuildNamesTheMismatchingField) {
  const auto now = BuildFingerprint::current<double>();
  auto old = now;
  old.version = "0.0.1";
  expect_input_error([&] { require_same_build(old, now, "c.orrck"); }, {"c.orrck", "build.version", "0.0.1"});
  old = now;
  old.compiler = "clang 3";
  expect_input_error([&] { require_same_build(old, now, "c.orrck"); }, {"build.compiler", "clang 3"});
  EXPECT_NO_THROW(require_same_build(now, now, "c.orrck"));
}

/// A checkpoint of run `run` at step 7 * seed.
Checkpoint<double> run_checkpoint(std::int64_t run, std::uint64_t seed) {
  auto c = sample_checkpoint<double>(10, seed);
  c.counters[kRunIdCounter] = run;
  return c;
}

TEST(Checkpoint, RotationKeepsTheNewestK) {
  ScratchDir dir;
  for (std::uint64_t s = 1; s <= 5; ++s) write_rotating_checkpoint(dir.path(), run_checkpoint(1, s), 2);
  const auto kept = list_checkpoints(dir.path());
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(read_checkpoint<double>(kept[0]).state.step, 4 * 7);
  EXPECT_EQ(read_checkpoint<double>(kept[1]).state.step, 5 * 7);
  expect_input_error([&] { write_rotating_checkpoint(dir.path(), sample_checkpoint<double>(10, 1), 0); },
                     {"checkpoint_keep", "0"});
}

// A new run in a directory that holds an earlier run's higher-numbered
// checkpoints: rotation by step number alone deleted the one just written.
TEST(Checkpoint, RotationRemovesOnlyThisRunsOlderCheckpoints) {
  ScratchDir dir;
  for (std::uint64_t s = 4; s <= 6; ++s) write_rotating_checkpoint(dir.path(), run_checkpoint(1, s), 2);
  write_checkpoint(dir / "checkpoint_000000000099.orrck", sample_checkpoint<double>(10, 9));  // no run identity
  std::filesystem::path last;
  for (std::uint64_t s = 1; s <= 3; ++s) last = write_rotating_checkpoint(dir.path(), run_checkpoint(2, s), 2);
  EXPECT_TRUE(std::filesystem::exists(last)) << "the path returned (and printed) must exist";
  std::vector<std::int64_t> steps;
  for (const auto& p : list_checkpoints(dir.path())) steps.push_back(read_checkpoint<double>(p).state.step);
  // Run 2 keeps its newest two (14, 21); run 1's (35, 42) and the anonymous 63 are not its own.
  EXPECT_EQ(steps, (std::vector<std::int64_t>{14, 21, 35, 42, 63}));
  // A restart of run 1 from its step 35 that writes step 36: run 1's newest is kept
  // although its step 42 is higher, and only one of the others stays beside it.
  auto restarted = run_checkpoint(1, 5);
  restarted.state.step = 36;
  last = write_rotating_checkpoint(dir.path(), restarted, 2);
  EXPECT_TRUE(std::filesystem::exists(last));
  EXPECT_FALSE(std::filesystem::exists(dir / "checkpoint_000000000035.orrck"));
  EXPECT_TRUE(std::filesystem::exists(dir / "checkpoint_000000000042.orrck"));
}

// A full disk (a file-size limit in a child process): a clean InputError and
// the previous checkpoint of that name intact.
TEST(Checkpoint, FullDiskIsACleanErrorAndKeepsTheOldFile) {
  ScratchDir dir;
  const auto old_c = sample_checkpoint<double>(100, 1);
  write_checkpoint(dir / "c.orrck", old_c);
  EXPECT_EQ(testing::exit_status_on_full_disk(
                [&] { write_checkpoint(dir / "c.orrck", sample_checkpoint<double>(100000, 2)); }, "c.orrck"),
            2);
  expect_same(old_c, read_checkpoint<double>(dir / "c.orrck"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1) << "a temporary file was left";
}

TEST(Checkpoint, UnwritableDirectoryIsACleanError) {
  ScratchDir dir;
  expect_input_error([&] { write_checkpoint(dir / "missing/c.orrck", sample_checkpoint<double>(10, 1)); },
                     {"missing", "No such file"});
}

// A writer killed with SIGKILL at random moments of writing the same file
// over and over never leaves it unreadable: it is the old checkpoint or the
// new one, whole.
TEST(Checkpoint, KilledWriterLeavesThePreviousCheckpointReadable) {
  ScratchDir dir;
  const auto path = dir / "c.orrck";
  const auto old_c = sample_checkpoint<double>(200000, 1);
  const auto new_c = sample_checkpoint<double>(200000, 2);
  write_checkpoint(path, old_c);
  for (const int delay_ms : {1, 5, 20, 60}) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (;;) write_checkpoint(path, new_c);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    const auto got = read_checkpoint<double>(path);
    expect_same(got.state.step == old_c.state.step ? old_c : new_c, got);
  }
  // The killed writers' temporaries are cleaned up by the next rotating write.
  write_rotating_checkpoint(dir.path(), old_c, 1);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(".checkpoint_")) << e.path();
}

}  // namespace
}  // namespace orrery::io
