#include "orrery/io/checkpoint.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <bit>
#include <cstring>
#include <fstream>
#include <type_traits>

#include <fmt/format.h>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/io/atomic_file.hpp"
#include "orrery/io/crc64.hpp"
#include "orrery/io/validate_particles.hpp"

namespace orrery::io {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoints are written little-endian byte for byte");
// A field added to SimulationState must be added to the format below too.
static_assert(sizeof(integrate::SimulationState) == 3 * 8 + 8 + 4 * 8, "SimulationState changed: update checkpoint.cpp");

constexpr char kMagic[8] = {'O', 'R', 'R', 'E', 'R', 'Y', 'C', 'K'};
// 1: without accelerations; 2: with them (Checkpoint::accelerations); 3: and the time bins.
constexpr std::uint32_t kFormat = 3;
constexpr std::uint32_t kOldestFormat = 1;
const std::string kPrefix = "checkpoint_";
const std::string kSuffix = ".orrck";

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* b = reinterpret_cast<const std::byte*>(&v);
    bytes_.insert(bytes_.end(), b, b + sizeof(T));
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    const auto* b = reinterpret_cast<const std::byte*>(s.data());
    bytes_.insert(bytes_.end(), b, b + s.size());
  }
  template <class T>
  void put(const std::vector<T>& v) {
    const auto* b = reinterpret_cast<const std::byte*>(v.data());
    bytes_.insert(bytes_.end(), b, b + v.size() * sizeof(T));
  }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

/// Reads fields from a verified payload; every read is bounds-checked and a
/// short payload names the field it stopped at.
class Reader {
 public:
  Reader(std::span<const std::byte> bytes, std::string file) : bytes_(bytes), file_(std::move(file)) {}
  template <class T>
  T get(const char* field) {
    T v;
    take(&v, sizeof(T), field);
    return v;
  }
  std::string get_string(const char* field) {
    const auto n = get<std::uint64_t>(field);
    if (n > remaining()) fail(field, "string length " + std::to_string(n) + " exceeds the file");
    std::string s(n, '\0');
    take(s.data(), n, field);
    return s;
  }
  template <class T>
  void get_array(std::vector<T>& v, std::size_t n, const char* field) {
    v.resize(n);
    take(v.data(), n * sizeof(T), field);
  }
  std::size_t remaining() const { return bytes_.size() - at_; }
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError("file '" + file_ + "': checkpoint field '" + field + "': " + problem);
  }

 private:
  void take(void* out, std::size_t n, const char* field) {
    if (n > remaining()) fail(field, "truncated");
    std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }
  std::span<const std::byte> bytes_;
  std::size_t at_ = 0;
  std::string file_;
};

template <class Real>
const char* precision_name() {
  return std::is_same_v<Real, double> ? "double" : "float";
}

/// The whole file with its checksum verified; the returned payload excludes the CRC.
std::vector<std::byte> read_verified(const std::filesystem::path& path) {
  const std::string where = "file '" + path.string() + "'";
  require_readable_file(path);
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  std::vector<std::byte> bytes(std::filesystem::file_size(path, ec));
  if (ec || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    throw InputError(where + ": cannot be read");
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    throw InputError(where + ": not an Orrery checkpoint (no ORRERYCK signature)");
  if (bytes.size() < sizeof(kMagic) + 4 + 8) throw InputError(where + ": checkpoint truncated");
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  bytes.resize(bytes.size() - 8);
  const std::uint64_t actual = crc64(bytes);
  if (stored != actual)
    throw InputError(where + fmt::format(": checkpoint checksum mismatch (stored {:016x}, computed {:016x}): "
                                         "the file is truncated or corrupt",
                                         stored, actual));
  return bytes;
}

BuildFingerprint read_build(Reader& r, std::uint32_t& format) {
  char magic[sizeof(kMagic)];
  for (char& c : magic) c = r.get<char>("signature");
  format = r.get<std::uint32_t>("format");
  if (format < kOldestFormat || format > kFormat)
    r.fail("format", fmt::format("version {} (this build reads versions {} to {})", format, kOldestFormat, kFormat));
  BuildFingerprint b;
  b.version = r.get_string("build.version");
  b.precision = r.get_string("build.precision");
  b.compiler = r.get_string("build.compiler");
  if (b.precision != "float" && b.precision != "double") r.fail("build.precision", "'" + b.precision + "'");
  return b;
}

/// The fields after the build fingerprint: configuration, integrator state, counters.
void read_run(Reader& r, std::string& config, integrate::SimulationState& state,
              std::map<std::string, std::int64_t>& counters) {
  config = r.get_string("config");
  state.time_origin = r.get<double>("state.time_origin");
  state.dt = r.get<double>("state.dt");
  state.step = r.get<std::int64_t>("state.step");
  state.initial_energy = r.get<double>("state.initial_energy");
  state.rng_state = r.get<std::array<std::uint64_t, 4>>("state.rng_state");
  if (!(state.dt > 0) || !std::isfinite(state.dt)) r.fail("state.dt", fmt::format("{} (must be > 0)", state.dt));
  if (state.step < 0 || !std::isfinite(state.time_origin)) r.fail("state.step", "invalid step or time");
  const auto n = r.get<std::uint64_t>("counters");
  for (std::uint64_t i = 0; i < n; ++i) {
    auto name = r.get_string("counters.name");
    counters[std::move(name)] = r.get<std::int64_t>("counters.value");
  }
}

/// The counters of a checkpoint, from the start of the file only and without
/// verifying its checksum: rotation asks this of every checkpoint in the
/// directory, which may be large. Empty for a file it cannot read that far,
/// which rotation then leaves alone.
std::map<std::string, std::int64_t> peek_counters(const std::filesystem::path& path) {
  constexpr std::size_t kHead = std::size_t{1} << 20;  // far more than a configuration takes
  std::ifstream in(path, std::ios::binary);
  std::vector<std::byte> head(kHead);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  std::map<std::string, std::int64_t> counters;
  try {
    Reader r(head, path.string());
    std::uint32_t format = 0;
    read_build(r, format);
    std::string config;
    integrate::SimulationState state;
    read_run(r, config, state, counters);
  } catch (const InputError&) {
    counters.clear();
  }
  return counters;
}

}  // namespace

template <class Real>
BuildFingerprint BuildFingerprint::current() {
#if defined(__clang__)
  constexpr const char* compiler = "clang " __VERSION__;
#else
  constexpr const char* compiler = "gcc " __VERSION__;
#endif
  return {ORRERY_VERSION, precision_name<Real>(), compiler};
}

template <class Real>
Checkpoint<Real> checkpoint_of(integrate::Simulation<Real>& sim, std::string config,
                               std::map<std::string, std::int64_t> counters) {
  Checkpoint<Real> c;
  c.config = std::move(config);
  c.state = sim.state();
  c.counters = std::move(counters);
  c.particles = sim.particles();
  const auto& a = sim.accelerations();
  c.accelerations.ax = a.ax;
  c.accelerations.ay = a.ay;
  c.accelerations.az = a.az;
  c.time_bins = sim.time_bins();
  return c;
}

template <class Real>
void write_checkpoint(const std::filesystem::path& path, const Checkpoint<Real>& c) {
  const auto& p = c.particles;
  const std::size_t n = p.x.size();
  for (const auto* v : {&p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.mass})
    if (v->size() != n) throw InputError("checkpoint '" + path.string() + "': particle arrays of unequal length");
  if (p.id.size() != n) throw InputError("checkpoint '" + path.string() + "': particle IDs of the wrong length");
  if (c.build.precision != precision_name<Real>())
    throw InputError("checkpoint '" + path.string() + "': build.precision '" + c.build.precision + "' is not the particles' precision");
  const auto& a = c.accelerations;
  const bool none = a.ax.empty() && a.ay.empty() && a.az.empty();
  if (!none && (a.ax.size() != n || a.ay.size() != n || a.az.size() != n))
    throw InputError(fmt::format("checkpoint '{}': accelerations ax, ay, az of {}, {}, {} values for {} particles; "
                                 "accepted: none, or one per particle in each",
                                 path.string(), a.ax.size(), a.ay.size(), a.az.size(), n));
  Writer w;
  for (const char ch : kMagic) w.put(ch);
  w.put(kFormat);
  w.put(c.build.version);
  w.put(c.build.precision);
  w.put(c.build.compiler);
  w.put(c.config);
  w.put(c.state.time_origin);
  w.put(c.state.dt);
  w.put(c.state.step);
  w.put(c.state.initial_energy);
  w.put(c.state.rng_state);
  w.put(static_cast<std::uint64_t>(c.counters.size()));
  for (const auto& [name, value] : c.counters) {
    w.put(name);
    w.put(value);
  }
  w.put(static_cast<std::uint64_t>(n));
  for (const auto* v : {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.mass}) w.put(*v);
  w.put(p.id);
  w.put(static_cast<std::uint64_t>(a.ax.size()));
  for (const auto* v : {&a.ax, &a.ay, &a.az}) w.put(*v);
  if (!c.time_bins.empty() && c.time_bins.size() != n)
    throw InputError(fmt::format("checkpoint '{}': {} time bins for {} particles; accepted: none, or one per particle",
                                 path.string(), c.time_bins.size(), n));
  w.put(static_cast<std::uint64_t>(c.time_bins.size()));
  w.put(c.time_bins);
  const std::uint64_t crc = crc64(w.bytes());
  w.put(crc);
  write_file_atomically(path, w.bytes());
}

template <class Real>
Checkpoint<Real> read_checkpoint(const std::filesystem::path& path) {
  const auto bytes = read_verified(path);
  Reader r(bytes, path.string());
  Checkpoint<Real> c;
  std::uint32_t format = 0;
  c.build = read_build(r, format);
  if (c.build.precision != precision_name<Real>())
    r.fail("build.precision", "the checkpoint holds " + c.build.precision + " particles, this run uses " +
                                  precision_name<Real>() + " (set gravity.precision = \"" +
                                  (c.build.precision == "double" ? "double" : "single") + "\")");
  read_run(r, c.config, c.state, c.counters);
  const auto n = r.get<std::uint64_t>("particles.count");
  constexpr std::size_t per = 7 * sizeof(Real) + sizeof(std::uint64_t);
  // Version 2 ends with accelerations.count and 0 or n accelerations.
  const std::size_t after = format >= 2 ? sizeof(std::uint64_t) : 0;
  const std::size_t particle_bytes = r.remaining() - std::min(after, r.remaining());
  if (n == 0 || n > particle_bytes / per || (format == 1 && n * per != particle_bytes))
    r.fail("particles.count", fmt::format("{} does not match the {} bytes of particle data", n, r.remaining()));
  auto& p = c.particles;
  r.get_array(p.x, n, "particles.x");
  r.get_array(p.y, n, "particles.y");
  r.get_array(p.z, n, "particles.z");
  r.get_array(p.vx, n, "particles.vx");
  r.get_array(p.vy, n, "particles.vy");
  r.get_array(p.vz, n, "particles.vz");
  r.get_array(p.mass, n, "particles.mass");
  r.get_array(p.id, n, "particles.id");
  if (format >= 2) {
    const auto m = r.get<std::uint64_t>("accelerations.count");
    // Version 3 ends with time_bins.count and 0 or n bins.
    const std::size_t bins_after = format >= 3 ? sizeof(std::uint64_t) : 0;
    if ((m != 0 && m != n) || 3 * m * sizeof(Real) + bins_after > r.remaining() ||
        (format < 3 && 3 * m * sizeof(Real) != r.remaining()))
      r.fail("accelerations.count", fmt::format("{} for {} particles, with {} bytes left; accepted: 0 or {}", m, n,
                                                r.remaining(), n));
    const auto read_column = [&](std::vector<Real>& v, const char* field) {
      r.get_array(v, m, field);
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i])) r.fail(field, fmt::format("row {} is {}; accepted: finite numbers", i, v[i]));
    };
    read_column(c.accelerations.ax, "accelerations.ax");
    read_column(c.accelerations.ay, "accelerations.ay");
    read_column(c.accelerations.az, "accelerations.az");
  }
  if (format >= 3) {
    const auto b = r.get<std::uint64_t>("time_bins.count");
    if ((b != 0 && b != n) || b * sizeof(integrate::TimeBin) != r.remaining())
      r.fail("time_bins.count", fmt::format("{} for {} particles, with {} bytes left; accepted: 0 or {}", b, n,
                                            r.remaining(), n));
    r.get_array(c.time_bins, b, "time_bins");
    for (std::size_t i = 0; i < c.time_bins.size(); ++i)
      if (c.time_bins[i] < 0 || c.time_bins[i] > integrate::kMaxTimeBins)
        r.fail("time_bins", fmt::format("row {} is {}; accepted: a bin in [0, {}]", i, int(c.time_bins[i]),
                                        integrate::kMaxTimeBins));
  }
  validate_particles(p, "file '" + path.string() + "'", {"particles.position", "particles.velocity", "particles.mass", "particles.id"});
  return c;
}

std::string checkpoint_precision(const std::filesystem::path& path) {
  const auto bytes = read_verified(path);
  Reader r(bytes, path.string());
  std::uint32_t format = 0;
  return read_build(r, format).precision;
}

bool is_checkpoint_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof(kMagic)] = {};
  in.read(magic, sizeof(magic));
  return in.gcount() == sizeof(magic) && std::memcmp(magic, kMagic, sizeof(kMagic)) == 0;
}

void require_same_build(const BuildFingerprint& saved, const BuildFingerprint& current,
                        const std::filesystem::path& file) {
  const auto check = [&](const char* field, const std::string& a, const std::string& b) {
    if (a != b)
      throw InputError("checkpoint '" + file.string() + "': " + field + " is '" + a + "' but this build's is '" + b +
                       "': a restart continues bit-identically only on the build that wrote it");
  };
  check("build.version", saved.version, current.version);
  check("build.precision", saved.precision, current.precision);
  check("build.compiler", saved.compiler, current.compiler);
}

std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (name.starts_with(kPrefix) && name.ends_with(kSuffix)) out.push_back(e.path());
  }
  // Zero-padded step numbers: name order is step order.
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

/// Removes ".checkpoint_*.tmp-<pid>-<n>" files whose writer no longer runs.
void remove_stale_temporaries(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    const auto tmp = name.find(kSuffix + ".tmp-");
    if (!name.starts_with("." + kPrefix) || tmp == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + tmp + kSuffix.size() + 5, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) std::filesystem::remove(e.path(), ec);
  }
}

}  // namespace

template <class Real>
std::filesystem::path write_rotating_checkpoint(const std::filesystem::path& dir, const Checkpoint<Real>& c, int keep) {
  if (keep < 1) throw InputError(fmt::format("output.checkpoint_keep = {}; accepted: an integer >= 1", keep));
  const auto path = dir / fmt::format("{}{:012}{}", kPrefix, c.state.step, kSuffix);
  write_checkpoint(path, c);
  // The other checkpoints of this run, oldest first (name order is step order);
  // the one just written is always one of the `keep`, even when an earlier leg
  // of the run reached higher steps.
  std::vector<std::filesystem::path> older;
  const auto run = c.counters.find(kRunIdCounter);
  for (const auto& p : list_checkpoints(dir)) {
    if (p == path || run == c.counters.end()) continue;
    const auto counters = peek_counters(p);
    const auto id = counters.find(kRunIdCounter);
    if (id != counters.end() && id->second == run->second) older.push_back(p);
  }
  std::error_code ec;
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) - 1 < older.size(); ++i)
    std::filesystem::remove(older[i], ec);
  remove_stale_temporaries(dir);
  return path;
}

#define ORRERY_CHECKPOINT_INSTANTIATE(Real)                                                              \
  template BuildFingerprint BuildFingerprint::current<Real>();                                           \
  template void write_checkpoint<Real>(const std::filesystem::path&, const Checkpoint<Real>&);           \
  template Checkpoint<Real> read_checkpoint<Real>(const std::filesystem::path&);                         \
  template Checkpoint<Real> checkpoint_of<Real>(integrate::Simulation<Real>&, std::string,                 \
                                               std::map<std::string, std::int64_t>);                     \
  template std::filesystem::path write_rotating_checkpoint<Real>(const std::filesystem::path&, const Checkpoint<Real>&, \
                                                                 int);
ORRERY_CHECKPOINT_INSTANTIATE(float)
ORRERY_CHECKPOINT_INSTANTIATE(double)

}  // namespace orrery::io
