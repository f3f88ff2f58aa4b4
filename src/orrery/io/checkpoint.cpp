#include "orrery/io/checkpoint.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <bit>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <utility>
#include <type_traits>

#include <fmt/format.h>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"
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
  std::size_t position() const { return at_; }
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

/// Everything before the particles' columns: signature, format, build,
/// configuration, state, counters and the particle count.
template <class Real>
void write_head(Writer& w, const Checkpoint<Real>& c, std::size_t n) {
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
  write_head(w, c, n);
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

namespace {

std::filesystem::path checkpoint_path(const std::filesystem::path& dir, std::int64_t step) {
  return dir / fmt::format("{}{:012}{}", kPrefix, step, kSuffix);
}

/// After `path` was written: the oldest checkpoints of the same run removed until `keep` are left.
void rotate(const std::filesystem::path& dir, const std::filesystem::path& path,
            const std::map<std::string, std::int64_t>& counters, int keep) {
  // The other checkpoints of this run, oldest first (name order is step order);
  // the one just written is always one of the `keep`, even when an earlier leg
  // of the run reached higher steps.
  std::vector<std::filesystem::path> older;
  const auto run = counters.find(kRunIdCounter);
  for (const auto& p : list_checkpoints(dir)) {
    if (p == path || run == counters.end()) continue;
    const auto theirs = peek_counters(p);
    const auto id = theirs.find(kRunIdCounter);
    if (id != theirs.end() && id->second == run->second) older.push_back(p);
  }
  std::error_code ec;
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) - 1 < older.size(); ++i)
    std::filesystem::remove(older[i], ec);
  remove_stale_temporaries(dir);
}

void check_keep(int keep) {
  if (keep < 1) throw InputError(fmt::format("output.checkpoint_keep = {}; accepted: an integer >= 1", keep));
}

/// A file written in pieces through an AtomicFile, its CRC-64 kept as it
/// goes, in writes of 1 MiB (each one write of the fault-injection seam).
class PieceFile {
 public:
  explicit PieceFile(const std::filesystem::path& target) : file_(target), target_(target) {
    fd_ = ::open(file_.temp_path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) fail(errno);
  }
  PieceFile(const PieceFile&) = delete;
  PieceFile& operator=(const PieceFile&) = delete;
  ~PieceFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(std::span<const std::byte> bytes) {
    crc_ = crc64(bytes, crc_);
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
    if (buffer_.size() >= kBuffer) flush();
  }
  /// The CRC after the bytes written, then the rename into place.
  void commit() {
    const std::uint64_t crc = crc_;
    write(std::as_bytes(std::span(&crc, 1)));
    flush();
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) fail(errno);
    file_.commit();
  }

 private:
  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  void flush() {
    int e = injected_write_error();
    if (e == 0) e = write_all(fd_, buffer_);
    if (e != 0) fail(e);
    buffer_.clear();
  }
  [[noreturn]] void fail(int e) {
    throw_os_error("output file '" + target_.string() + "': could not be written", e,
                   "any previous file of that name is unchanged");
  }
  AtomicFile file_;
  std::filesystem::path target_;
  int fd_ = -1;
  std::uint64_t crc_ = 0;
  std::vector<std::byte> buffer_;
};

/// The head of a checkpoint (everything before the columns), read in a
/// growing prefix of the file (a configuration is far below 1 MiB); returns
/// where the columns start. No checksum verified (verify_checkpoint).
std::size_t read_head(const std::filesystem::path& path, std::ifstream& in, std::uint64_t size, BuildFingerprint& build,
                      std::uint32_t& format, std::string& config, integrate::SimulationState& state,
                      std::map<std::string, std::int64_t>& counters, std::uint64_t& n) {
  const std::string where = "file '" + path.string() + "'";
  for (std::size_t want = std::size_t{1} << 20;; want *= 8) {
    std::vector<std::byte> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, want)));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size())))
      throw InputError(where + ": cannot be read");
    if (head.size() < sizeof(kMagic) || std::memcmp(head.data(), kMagic, sizeof(kMagic)) != 0)
      throw InputError(where + ": not an Orrery checkpoint (no ORRERYCK signature)");
    try {
      Reader r(head, path.string());
      build = read_build(r, format);
      counters.clear();
      read_run(r, config, state, counters);
      n = r.get<std::uint64_t>("particles.count");
      return r.position();
    } catch (const InputError&) {
      if (head.size() == size) throw;
    }
  }
}

/// The file open for reading, and its size.
std::ifstream open_checkpoint(const std::filesystem::path& path, std::uint64_t& size) {
  require_readable_file(path);
  std::error_code ec;
  size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) throw InputError("file '" + path.string() + "': cannot be read");
  return in;
}

}  // namespace

template <class Real>
std::filesystem::path write_rotating_checkpoint(const std::filesystem::path& dir, const Checkpoint<Real>& c, int keep) {
  check_keep(keep);
  const auto path = checkpoint_path(dir, c.state.step);
  write_checkpoint(path, c);
  rotate(dir, path, c.counters, keep);
  return path;
}

template <class Real>
std::filesystem::path write_rotating_checkpoint_in_pieces(const std::filesystem::path& dir, const Checkpoint<Real>& head,
                                                          std::int64_t n, bool accelerations, bool time_bins,
                                                          const ColumnSource& source, int keep, bool writes,
                                                          std::int64_t piece) {
  check_keep(keep);
  const auto path = checkpoint_path(dir, head.state.step);
  std::optional<PieceFile> out;
  if (writes) {
    out.emplace(path);
    Writer w;
    write_head(w, head, static_cast<std::size_t>(n));
    out->write(w.bytes());
  }
  using C = Column;
  const auto column = [&](Column c) {
    for (std::int64_t b = 0; b < n; b += piece) {
      const auto rows = source(c, b, std::min(n, b + piece));
      if (out) out->write(rows);
    }
  };
  const auto count = [&](std::uint64_t v) {
    if (out) out->write(std::as_bytes(std::span(&v, 1)));
  };
  for (const C c : {C::x, C::y, C::z, C::vx, C::vy, C::vz, C::mass, C::id}) column(c);
  count(accelerations ? static_cast<std::uint64_t>(n) : 0);
  if (accelerations)
    for (const C c : {C::ax, C::ay, C::az}) column(c);
  count(time_bins ? static_cast<std::uint64_t>(n) : 0);
  if (time_bins) column(C::time_bin);
  if (!out) return path;
  out->commit();
  out.reset();
  rotate(dir, path, head.counters, keep);
  return path;
}

void verify_checkpoint(const std::filesystem::path& path) {
  const std::string where = "file '" + path.string() + "'";
  std::uint64_t size = 0;
  std::ifstream in = open_checkpoint(path, size);
  // read_verified's checks, in its order, over the file in pieces.
  char magic[sizeof(kMagic)] = {};
  if (size < sizeof(kMagic) || !in.read(magic, sizeof(magic)) || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
    throw InputError(where + ": not an Orrery checkpoint (no ORRERYCK signature)");
  if (size < sizeof(kMagic) + 4 + 8) throw InputError(where + ": checkpoint truncated");
  in.seekg(0);
  std::vector<std::byte> piece(std::size_t{1} << 20);
  std::uint64_t crc = 0, left = size - 8;
  while (left > 0) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, piece.size()));
    if (!in.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(n)))
      throw InputError(where + ": cannot be read");
    crc = crc64(std::span(piece.data(), n), crc);
    left -= n;
  }
  std::uint64_t stored = 0;
  if (!in.read(reinterpret_cast<char*>(&stored), 8)) throw InputError(where + ": cannot be read");
  if (stored != crc)
    throw InputError(where + fmt::format(": checkpoint checksum mismatch (stored {:016x}, computed {:016x}): "
                                         "the file is truncated or corrupt",
                                         stored, crc));
}

std::string checkpoint_config(const std::filesystem::path& path) {
  std::uint64_t size = 0, n = 0;
  std::ifstream in = open_checkpoint(path, size);
  BuildFingerprint build;
  std::uint32_t format = 0;
  std::string config;
  integrate::SimulationState state;
  std::map<std::string, std::int64_t> counters;
  read_head(path, in, size, build, format, config, state, counters, n);
  return config;
}

template <class Real>
Checkpoint<Real> read_checkpoint_rows(const std::filesystem::path& path, std::int64_t begin, std::int64_t end,
                                      std::int64_t& total) {
  const std::string where = "file '" + path.string() + "'";
  std::uint64_t size = 0;
  std::ifstream in = open_checkpoint(path, size);
  Checkpoint<Real> c;
  std::uint32_t format = 0;
  std::uint64_t n = 0;
  const std::size_t at = read_head(path, in, size, c.build, format, c.config, c.state, c.counters, n);
  if (c.build.precision != precision_name<Real>())
    throw InputError(where + ": checkpoint field 'build.precision': the checkpoint holds " + c.build.precision +
                     " particles, this run uses " + precision_name<Real>());
  constexpr std::size_t R = sizeof(Real);
  const auto fail = [&](const std::string& field, const std::string& problem) {
    throw InputError(where + ": checkpoint field '" + field + "': " + problem);
  };
  // The sizes the counts imply must be the file's.
  const auto counted = [&](std::uint64_t offset, const char* field) {
    std::uint64_t v = 0;
    if (offset + 8 > size) fail(field, "truncated");
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(&v), 8);
    return v;
  };
  const std::uint64_t columns = at, after = columns + n * (7 * R + 8);
  if (n == 0 || after > size) fail("particles.count", fmt::format("{} does not match the file's {} bytes", n, size));
  const std::uint64_t m = format >= 2 ? counted(after, "accelerations.count") : 0;
  if (m != 0 && m != n) fail("accelerations.count", fmt::format("{} for {} particles; accepted: 0 or {}", m, n, n));
  const std::uint64_t bins_at = after + (format >= 2 ? 8 + 3 * m * R : 0);
  const std::uint64_t bins = format >= 3 ? counted(bins_at, "time_bins.count") : 0;
  if (bins != 0 && bins != n) fail("time_bins.count", fmt::format("{} for {} particles; accepted: 0 or {}", bins, n, n));
  const std::uint64_t expected = bins_at + (format >= 3 ? 8 + bins : 0) + 8;
  if (expected != size) fail("particles.count", fmt::format("the counts give {} bytes, the file has {}", expected, size));
  total = static_cast<std::int64_t>(n);
  if (begin < 0 || end > total || begin > end)
    throw RuntimeFailure(fmt::format("checkpoint rows {} to {} of {}", begin, end, total));
  const auto rows = static_cast<std::size_t>(end - begin);
  const auto read_rows = [&](auto& v, std::uint64_t offset, std::size_t width, const char* field) {
    v.resize(rows);
    in.seekg(static_cast<std::streamoff>(offset + static_cast<std::uint64_t>(begin) * width));
    if (!in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(rows * width))) fail(field, "truncated");
  };
  auto& p = c.particles;
  int k = 0;
  for (auto* v : {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.mass}) read_rows(*v, columns + (k++) * n * R, R, "particles");
  read_rows(p.id, columns + 7 * n * R, 8, "particles.id");
  if (m != 0) {
    k = 0;
    for (auto* v : {&c.accelerations.ax, &c.accelerations.ay, &c.accelerations.az}) {
      read_rows(*v, after + 8 + (k++) * n * R, R, "accelerations");
      for (std::size_t i = 0; i < rows; ++i)
        if (!std::isfinite((*v)[i]))
          fail("accelerations", fmt::format("row {} is {}; accepted: finite numbers", begin + static_cast<std::int64_t>(i), (*v)[i]));
    }
  }
  if (bins != 0) read_rows(c.time_bins, bins_at + 8, sizeof(integrate::TimeBin), "time_bins");
  validate_particles(p, where + fmt::format(" (rows {} to {})", begin, end),
                     {"particles.position", "particles.velocity", "particles.mass", "particles.id"});
  return c;
}

#define ORRERY_CHECKPOINT_INSTANTIATE(Real)                                                              \
  template BuildFingerprint BuildFingerprint::current<Real>();                                           \
  template void write_checkpoint<Real>(const std::filesystem::path&, const Checkpoint<Real>&);           \
  template Checkpoint<Real> read_checkpoint<Real>(const std::filesystem::path&);                         \
  template Checkpoint<Real> checkpoint_of<Real>(integrate::Simulation<Real>&, std::string,                 \
                                               std::map<std::string, std::int64_t>);                     \
  template std::filesystem::path write_rotating_checkpoint<Real>(const std::filesystem::path&, const Checkpoint<Real>&, \
                                                                 int);                                   \
  template std::filesystem::path write_rotating_checkpoint_in_pieces<Real>(                              \
      const std::filesystem::path&, const Checkpoint<Real>&, std::int64_t, bool, bool, const ColumnSource&, int, bool, \
      std::int64_t);                                                                                     \
  template Checkpoint<Real> read_checkpoint_rows<Real>(const std::filesystem::path&, std::int64_t, std::int64_t, \
                                                       std::int64_t&);
ORRERY_CHECKPOINT_INSTANTIATE(float)
ORRERY_CHECKPOINT_INSTANTIATE(double)

}  // namespace orrery::io
