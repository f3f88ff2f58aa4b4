#include "orrery/io/snapshot.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <span>
#include <type_traits>

#include "orrery/core/error.hpp"
#include "orrery/core/memory.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"
#include "orrery/io/atomic_file.hpp"
#include "orrery/io/bounding_cube.hpp"
#include "orrery/io/hdf5_util.hpp"
#include "orrery/io/snapshot_softening.hpp"
#include "orrery/io/snapshot_units.hpp"
#include "orrery/io/validate_particles.hpp"

namespace orrery::io {
namespace {

constexpr int kTypes = kParticleTypes;

template <class Real>
hid_t native_type() {
  return std::is_same_v<Real, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
}
template <class Real>
hid_t file_type() {
  return std::is_same_v<Real, double> ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
}
template <class Real>
const char* precision_name() {
  return std::is_same_v<Real, double> ? "double" : "float";
}

h5::Handle make_group(const h5::Where& w, hid_t file, const char* name) {
  const h5::Handle gcpl = h5::untimed(w, H5P_GROUP_CREATE, name);
  const hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT);
  if (g < 0) w.fail(name, "cannot create group (HDF5: " + h5::last_error() + ")");
  return {g, H5Gclose};
}

template <class Real>
void deinterleave(const std::vector<Real>& in, std::vector<Real>& a, std::vector<Real>& b, std::vector<Real>& c) {
  const std::size_t n = in.size() / 3;
  a.resize(n), b.resize(n), c.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = in[3 * i];
    b[i] = in[3 * i + 1];
    c[i] = in[3 * i + 2];
  }
}

void write_header(const h5::Where& w, hid_t file, const ParticleTypes& types, double time, bool double_precision) {
  const h5::Handle header = make_group(w, file, "Header");
  const std::vector<std::uint64_t> counts(types.count.begin(), types.count.end());
  h5::write_attr(w, header.get(), "NumPart_ThisFile", counts);
  h5::write_attr(w, header.get(), "NumPart_Total", counts);
  h5::write_attr(w, header.get(), "NumPart_Total_HighWord", std::vector<std::uint32_t>(kTypes, 0));
  h5::write_attr(w, header.get(), "MassTable", std::vector<double>(kTypes, 0.0));
  h5::write_attr(w, header.get(), "Time", time);
  h5::write_attr(w, header.get(), "Redshift", 0.0);
  h5::write_attr(w, header.get(), "BoxSize", 0.0);
  h5::write_attr(w, header.get(), "NumFilesPerSnapshot", std::int32_t{1});
  h5::write_attr(w, header.get(), "Flag_Entropy_ICs", std::int32_t{0});
  h5::write_attr(w, header.get(), "Flag_DoublePrecision", std::int32_t{double_precision ? 1 : 0});
}

void write_parameters(const h5::Where& w, hid_t file, const SnapshotInfo& info, const char* precision,
                      const std::array<double, 6>& cube) {
  const h5::Handle par = make_group(w, file, "Parameters");
  const hid_t g = par.get();
  h5::write_attr(w, g, "BoundingBox", std::vector<double>(cube.begin(), cube.end()));
  h5::write_attr(w, g, "UnitLength_in_cm", info.units.length_cm);
  h5::write_attr(w, g, "UnitMass_in_g", info.units.mass_g);
  h5::write_attr(w, g, "UnitVelocity_in_cm_per_s", info.units.velocity_cm_per_s);
  h5::write_attr(w, g, "GravityConstantInternal", info.units.gravity_constant);
  h5::write_attr(w, g, "Time_GYR", info.units.time_gyr(info.time));
  h5::write_attr(w, g, "unit_system", info.units.name);
  h5::write_attr(w, g, "softening", info.softening);
  write_softening_classes(w, g, info.softening, info.softening_per_type);
  h5::write_attr(w, g, "softening_kernel", info.softening_kernel);
  h5::write_attr(w, g, "theta", info.theta);
  h5::write_attr(w, g, "solver", info.solver);
  h5::write_attr(w, g, "precision", std::string(precision));
  h5::write_attr(w, g, "step", info.step);
  h5::write_attr(w, g, "version", std::string(ORRERY_VERSION));
  h5::write_attr(w, g, "config", info.config);
}

/// One dataset of a type's group: its columns and units.
struct DatasetColumns {
  const char* name;
  Dimension dimension;
  int cols;
  Column column[3];
};

/// The datasets of a type's group, in the order they are written.
std::vector<DatasetColumns> group_datasets(bool potential, bool acceleration) {
  using C = Column;
  std::vector<DatasetColumns> d = {{"Coordinates", kLength, 3, {C::x, C::y, C::z}},
                                   {"Velocities", kVelocity, 3, {C::vx, C::vy, C::vz}},
                                   {"Masses", kMass, 1, {C::mass}},
                                   {"ParticleIDs", kDimensionless, 1, {C::id}}};
  if (potential) d.push_back({"Potential", kSpecificEnergy, 1, {C::potential}});
  if (acceleration) d.push_back({"Acceleration", kAcceleration, 3, {C::ax, C::ay, C::az}});
  return d;
}

/// The group of the particles [first, first + n) (one type), its datasets
/// filled from `source` in pieces of `piece` rows (n at most: one write per
/// dataset). `writes` false: the source is asked for the same pieces, and
/// nothing is written (`file` unused).
template <class Real>
void write_group(const h5::Where& w, hid_t file, const std::string& name, std::uint64_t first, std::uint64_t n,
                 bool potential, bool acceleration, const UnitSystem& units, const ColumnSource& source,
                 std::uint64_t piece, bool writes) {
  const h5::Handle group = writes ? make_group(w, file, name.c_str()) : h5::Handle();
  for (const auto& d : group_datasets(potential, acceleration)) {
    const bool id = d.column[0] == Column::id;
    const hid_t file_t = id ? H5T_STD_U64LE : file_type<Real>(), mem_t = id ? H5T_NATIVE_UINT64 : native_type<Real>();
    const std::size_t width = id ? sizeof(std::uint64_t) : sizeof(Real), cols = static_cast<std::size_t>(d.cols);
    const bool whole = piece >= n;  // the data in one write, as a file of one process's arrays
    const h5::Handle set = writes && !whole ? h5::create_dataset(w, group.get(), d.name, file_t, n, d.cols) : h5::Handle();
    std::vector<std::byte> rows;
    for (std::uint64_t b = 0; b < n; b += piece) {
      const std::uint64_t e = std::min(n, b + piece);
      std::vector<std::byte> column[3];
      for (std::size_t k = 0; k < cols; ++k)
        column[k] = source(d.column[k], static_cast<std::int64_t>(first + b), static_cast<std::int64_t>(first + e));
      if (!writes) continue;
      // Row-major (N, cols), as HDF5 stores it.
      rows.resize((e - b) * cols * width);
      for (std::size_t k = 0; k < cols; ++k)
        for (std::uint64_t i = 0; i < e - b; ++i)
          std::memcpy(rows.data() + (i * cols + k) * width, column[k].data() + i * width, width);
      if (whole)
        h5::write_dataset(w, group.get(), d.name, file_t, mem_t, n, d.cols, rows.data());
      else
        h5::write_rows(w, set.get(), d.name, mem_t, b, e - b, d.cols, rows.data());
    }
    if (writes) describe_units(w, group.get(), d.name, d.dimension, units);
  }
}

/// The columns of one process's arrays (write_snapshot's source).
template <class Real>
ColumnSource arrays_source(const Particles<Real>& p, const Accelerations<Real>* field) {
  return [&p, field](Column c, std::int64_t begin, std::int64_t end) {
    const auto bytes = [&](const auto& v) {
      const auto s = std::as_bytes(std::span(v.data() + begin, static_cast<std::size_t>(end - begin)));
      return std::vector<std::byte>(s.begin(), s.end());
    };
    switch (c) {
      case Column::x: return bytes(p.x);
      case Column::y: return bytes(p.y);
      case Column::z: return bytes(p.z);
      case Column::vx: return bytes(p.vx);
      case Column::vy: return bytes(p.vy);
      case Column::vz: return bytes(p.vz);
      case Column::mass: return bytes(p.mass);
      case Column::id: return bytes(p.id);
      case Column::potential: return bytes(field->potential);
      case Column::ax: return bytes(field->ax);
      case Column::ay: return bytes(field->ay);
      case Column::az: return bytes(field->az);
      case Column::time_bin: break;  // not a snapshot's
    }
    return std::vector<std::byte>{};
  };
}

/// Header, parameters and every type's group of N particles from `source`.
template <class Real>
void write_contents(const h5::Where& w, hid_t file, std::uint64_t n, const SnapshotInfo& info,
                    const std::array<double, 6>& cube, bool potential, bool acceleration, const ColumnSource& source,
                    std::uint64_t piece, bool writes) {
  const auto types = info.types.resolved(n, "snapshot '" + w.file + "'");
  if (writes) {
    write_header(w, file, types, info.time, std::is_same_v<Real, double>);
    write_parameters(w, file, info, precision_name<Real>(), cube);
  }
  // GADGET writes a group only for the types present.
  for (int t = 0; t < kTypes; ++t)
    if (types.count[t] != 0)
      write_group<Real>(w, file, type_group(t), types.first(t), types.count[t], potential, acceleration, info.units,
                        source, std::min<std::uint64_t>(piece, types.count[t]), writes);
}

template <class Real>
void check_writable(const std::filesystem::path& path, const Particles<Real>& p, const SnapshotFields<Real>& fields) {
  const std::size_t n = p.x.size();
  const auto what = "snapshot '" + path.string() + "': ";
  if (n == 0) throw InputError(what + "no particles to write (N = 0)");
  for (const auto* v : {&p.y, &p.z, &p.vx, &p.vy, &p.vz, &p.mass})
    if (v->size() != n) throw InputError(what + "particle arrays of unequal length");
  if (p.id.size() != n) throw InputError(what + "particle IDs of the wrong length");
  if (const auto* f = fields.field) {
    if ((fields.acceleration && (f->ax.size() != n || f->ay.size() != n || f->az.size() != n)) ||
        (fields.potential && f->potential.size() != n))
      throw InputError(what + "accelerations/potentials of the wrong length");
  }
}

struct Counts {
  std::vector<std::uint64_t> n;  // per type
  std::vector<double> mass_table;
};

Counts read_header(const h5::Where& w, hid_t file, SnapshotInfo& info) {
  if (!h5::has_link(file, "Header")) w.fail("Header", "missing group (not a GADGET-layout snapshot)");
  const h5::Handle header(H5Gopen2(file, "Header", H5P_DEFAULT), H5Gclose);
  if (!header.valid()) w.fail("Header", "cannot open group (HDF5: " + h5::last_error() + ")");
  const hid_t h = header.get();
  const auto this_file = h5::read_attr_u64(w, h, "Header", "NumPart_ThisFile", kTypes);
  const auto total = h5::read_attr_u64(w, h, "Header", "NumPart_Total", kTypes);
  const auto high = h5::has_attr(h, "NumPart_Total_HighWord")
                        ? h5::read_attr_u64(w, h, "Header", "NumPart_Total_HighWord", kTypes)
                        : std::vector<std::uint64_t>(kTypes, 0);
  const auto mass_table = h5::read_attr_f64(w, h, "Header", "MassTable", kTypes);
  info.time = h5::read_attr_f64(w, h, "Header", "Time", 1)[0];
  if (!std::isfinite(info.time)) w.fail("Header.Time", "is not finite");
  if (h5::has_attr(h, "NumFilesPerSnapshot")) {
    const auto files = h5::read_attr_u64(w, h, "Header", "NumFilesPerSnapshot", 1)[0];
    if (files != 1)
      w.fail("Header.NumFilesPerSnapshot", std::to_string(files) + " (only single-file snapshots are supported)");
  }
  std::uint64_t n = 0;
  for (int t = 0; t < kTypes; ++t) {
    const std::uint64_t tot = total[t] + (high[t] << 32);
    n += this_file[t];
    if (this_file[t] != tot)
      w.fail("Header.NumPart_Total", "PartType" + std::to_string(t) + ": total " + std::to_string(tot) +
                                         " does not match NumPart_ThisFile " + std::to_string(this_file[t]));
  }
  if (n == 0) w.fail("Header.NumPart_ThisFile", "no particles in any of PartType0..5 (N = 0)");
  for (int t = 0; t < kTypes; ++t) info.types.count[t] = this_file[t];
  return {this_file, mass_table};
}

void read_parameters(const h5::Where& w, hid_t file, SnapshotInfo& info) {
  if (!h5::has_link(file, "Parameters")) return;  // snapshots of other codes: defaults
  const h5::Handle par(H5Gopen2(file, "Parameters", H5P_DEFAULT), H5Gclose);
  if (!par.valid()) w.fail("Parameters", "cannot open group (HDF5: " + h5::last_error() + ")");
  const hid_t g = par.get();
  const auto number = [&](const char* name, double& out) {
    if (h5::has_attr(g, name)) out = h5::read_attr_f64(w, g, "Parameters", name, 1)[0];
  };
  const auto text = [&](const char* name, std::string& out) {
    if (h5::has_attr(g, name)) out = h5::read_attr_string(w, g, "Parameters", name);
  };
  UnitSystem u = info.units;
  std::string unit_system;  // empty: a file of another code
  number("UnitLength_in_cm", u.length_cm);
  number("UnitMass_in_g", u.mass_g);
  number("UnitVelocity_in_cm_per_s", u.velocity_cm_per_s);
  text("unit_system", unit_system);
  number("softening", info.softening);
  info.softening_per_type = read_softening_classes(w, g);
  text("softening_kernel", info.softening_kernel);
  number("theta", info.theta);
  text("solver", info.solver);
  text("version", info.version);
  text("config", info.config);
  if (h5::has_attr(g, "step")) info.step = static_cast<std::int64_t>(h5::read_attr_u64(w, g, "Parameters", "step", 1)[0]);
  for (const double v : {u.length_cm, u.mass_g, u.velocity_cm_per_s})
    if (!(v > 0) || !std::isfinite(v)) w.fail("Parameters", "unit attributes must be finite and > 0");
  info.units = units_from_attributes(w, unit_system, u.length_cm, u.mass_g, u.velocity_cm_per_s);
}

/// Rows [first, first + rows) of one type's particles into `s` (their
/// potential / acceleration when stored); every dataset's shape checked.
/// `held`: the rows of every type the reader keeps (the memory it needs).
template <class Real>
void read_particles(const h5::Where& w, hid_t file, int type, const Counts& counts, std::uint64_t first,
                    std::uint64_t rows, std::uint64_t held, Snapshot<Real>& s) {
  const std::string group_name = type_group(type);
  if (!h5::has_link(file, group_name.c_str())) w.fail(group_name, "missing group");
  const h5::Handle group(H5Gopen2(file, group_name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) w.fail(group_name, "cannot open group (HDF5: " + h5::last_error() + ")");
  const hid_t g = group.get();
  const std::uint64_t n = counts.n[type];
  const double mass_table = counts.mass_table[type];
  // The header against every dataset's real shape, and the memory all types'
  // particles need, before allocating for them.
  const auto check_rows = [&](const char* name) {
    const std::uint64_t in_file = h5::dataset_rows(w, g, group_name, name);
    if (in_file != n)
      w.fail(group_name + "/" + name, "has " + std::to_string(in_file) + " rows but Header.NumPart_ThisFile[" +
                                          std::to_string(type) + "] = " + std::to_string(n) + " (NumPart mismatch)");
  };
  for (const char* name : {"Coordinates", "Velocities", "ParticleIDs"}) check_rows(name);
  for (const char* name : {"Masses", "Potential", "Acceleration"})
    if (h5::has_link(g, name)) check_rows(name);
  std::uint64_t total = 0;
  for (int t = 0; t < kTypes; ++t) total += counts.n[t];
  require_memory(static_cast<double>(held) * (11 * sizeof(Real) + 8),
                 "file '" + w.file + "': " + std::to_string(held) + (held == total ? "" : " of " + std::to_string(total)) +
                     " particles (Header.NumPart_ThisFile)",
                 "a snapshot whose particles fit in the available memory");
  const hid_t mt = native_type<Real>();
  const auto read = [&](const char* name, H5T_class_t cls, hid_t type, int cols, void* out) {
    h5::read_rows(w, g, group_name, name, cls, type, n, cols, first, rows, out);
  };
  auto& p = s.particles;
  p.resize(rows);
  std::vector<Real> buf(3 * rows);
  read("Coordinates", H5T_FLOAT, mt, 3, buf.data());
  deinterleave(buf, p.x, p.y, p.z);
  read("Velocities", H5T_FLOAT, mt, 3, buf.data());
  deinterleave(buf, p.vx, p.vy, p.vz);
  read("ParticleIDs", H5T_INTEGER, H5T_NATIVE_UINT64, 1, p.id.data());
  if (h5::has_link(g, "Masses")) {
    read("Masses", H5T_FLOAT, mt, 1, p.mass.data());
  } else if (mass_table > 0 && std::isfinite(mass_table)) {
    std::fill(p.mass.begin(), p.mass.end(), static_cast<Real>(mass_table));
  } else {
    w.fail(group_name + "/Masses", "missing dataset (and Header.MassTable[" + std::to_string(type) + "] is 0)");
  }
  s.has_potential = h5::has_link(g, "Potential");
  s.has_acceleration = h5::has_link(g, "Acceleration");
  if (s.has_potential) {
    s.field.potential.resize(rows);
    read("Potential", H5T_FLOAT, mt, 1, s.field.potential.data());
  }
  if (s.has_acceleration) {
    read("Acceleration", H5T_FLOAT, mt, 3, buf.data());
    deinterleave(buf, s.field.ax, s.field.ay, s.field.az);
  }
  // The precision the file stores positions in, for `orrery info`.
  const h5::Handle set(H5Dopen2(g, "Coordinates", H5P_DEFAULT), H5Dclose);
  const h5::Handle dtype(H5Dget_type(set.get()), H5Tclose);
  s.info.precision = H5Tget_size(dtype.get()) == 8 ? "double" : H5Tget_size(dtype.get()) == 4 ? "float" : "other";
}

}  // namespace

bool is_hdf5_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 8> sig{};
  in.read(sig.data(), sig.size());
  return in.gcount() == 8 && std::memcmp(sig.data(), "\x89HDF\r\n\x1a\n", 8) == 0;
}

template <class Real>
void write_snapshot(const std::filesystem::path& path, const Particles<Real>& p, const SnapshotInfo& info,
                    const SnapshotFields<Real>& fields) {
  check_writable(path, p, fields);
  h5::quiet_errors();
  const h5::Where w{path.string()};
  // HDF5 builds the file in memory (the core driver, no backing store) and
  // the image goes to disk through write_file_atomically: every disk write is
  // then one checked write of ours, reported with the OS error and covered by
  // the fault-injection seam. When HDF5 wrote to disk itself, a full disk
  // made its close fail, the file stayed open, and the library crashed at exit.
  h5::MemoryFile memory;
  {
    // Named apart from `path`: that file may be open for reading in this process.
    static std::atomic<unsigned> serial{0};
    const std::string name = "orrery-snapshot-in-memory-" + std::to_string(serial++);
    const h5::Handle fcpl = h5::untimed(w, H5P_FILE_CREATE, "");  // the root group's times
    h5::Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, fcpl.get(), memory.access()), H5Fclose);
    if (!file.valid()) w.fail("", "cannot create in memory (HDF5: " + h5::last_error() + ")");
    const auto* f = fields.field;
    // In pieces of one chunk, as write_snapshot_in_pieces writes them: the same file (a dataset
    // written whole lays out its chunk index otherwise).
    write_contents<Real>(w, file.get(), static_cast<std::uint64_t>(p.size()), info, bounding_cube(p),
                         f != nullptr && fields.potential, f != nullptr && fields.acceleration, arrays_source(p, f),
                         kColumnPiece, true);
    const ssize_t size = H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(file.get(), nullptr, 0);
    if (size > 0) memory.expect_size(static_cast<std::size_t>(size));
    if (size <= 0 || !file.reset() || memory.image().empty())
      w.fail("", "could not be assembled in memory (HDF5: " + h5::last_error() + ")");
  }
  write_file_atomically(path, memory.image());
}

template <class Real>
void write_snapshot_in_pieces(const std::filesystem::path& path, std::int64_t n, const SnapshotInfo& info,
                              const std::array<double, 6>& cube, bool fields, const ColumnSource& source, bool writes,
                              std::int64_t piece) {
  const h5::Where w{path.string()};
  if (n < 1) throw InputError("snapshot '" + path.string() + "': no particles to write (N = 0)");
  const auto rows = static_cast<std::uint64_t>(n);
  if (!writes) {
    write_contents<Real>(w, H5I_INVALID_HID, rows, info, cube, fields, fields, source, static_cast<std::uint64_t>(piece),
                         false);
    return;
  }
  h5::quiet_errors();
  // HDF5 writes the temporary file itself (no image of the whole file in
  // memory); a disk too small is refused before it starts, since HDF5
  // cannot always close a file whose writes failed.
  AtomicFile out(path);
  const double bytes = static_cast<double>(rows) * ((fields ? 11 : 7) * sizeof(Real) + 8) + (1 << 20);
  std::error_code ec;
  const auto space = std::filesystem::space(out.temp_path().parent_path().empty() ? "." : out.temp_path().parent_path(), ec);
  int e = injected_write_error();
  if (e == 0 && !ec && static_cast<double>(space.available) < bytes) e = ENOSPC;
  if (e != 0)
    throw_os_error("output file '" + path.string() + "': could not be written", e,
                   "any previous file of that name is unchanged");
  {
    const h5::Handle fcpl = h5::untimed(w, H5P_FILE_CREATE, "");  // the root group's times
    const h5::Handle fapl = h5::file_access();  // the in-memory writer's format: the same file
    h5::Handle file(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    if (!file.valid()) w.fail("", "cannot create (HDF5: " + h5::last_error() + ")");
    write_contents<Real>(w, file.get(), rows, info, cube, fields, fields, source, static_cast<std::uint64_t>(piece), true);
    // The in-memory writer's image is the file's extent at the flush, which
    // the close then trims on disk (unused metadata space, zeros): the same
    // length here, so that the bytes are write_snapshot's.
    const ssize_t image = H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(file.get(), nullptr, 0);
    if (image <= 0 || !file.reset()) w.fail("", "could not be written (HDF5: " + h5::last_error() + ")");
    std::error_code ec;
    if (std::filesystem::file_size(out.temp_path(), ec) < static_cast<std::uintmax_t>(image) && !ec)
      std::filesystem::resize_file(out.temp_path(), static_cast<std::uintmax_t>(image), ec);
    if (ec)
      throw_os_error("output file '" + path.string() + "': could not be written", ec.value(),
                     "any previous file of that name is unchanged");
  }
  out.commit();
}

namespace {

/// Rows [begin, end) of a snapshot's particles, every type's in order (end < 0: to the last); `total` its N.
template <class Real>
Snapshot<Real> read_rows_of(const std::filesystem::path& path, std::int64_t begin, std::int64_t end, std::int64_t& total) {
  const h5::Where w{path.string()};
  require_readable_file(path);
  if (!is_hdf5_file(path)) w.fail("", "not an HDF5 file (no HDF5 signature: wrong format, or truncated/corrupt)");
  h5::quiet_errors();
  const h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) w.fail("", "cannot open: truncated or corrupt (HDF5: " + h5::last_error() + ")");
  Snapshot<Real> s;
  const Counts counts = read_header(w, file.get(), s.info);
  read_parameters(w, file.get(), s.info);
  total = 0;
  for (const auto n : counts.n) total += static_cast<std::int64_t>(n);
  if (end < 0) end = total;
  if (begin < 0 || begin > end || end > total)
    throw RuntimeFailure("file '" + path.string() + "': snapshot rows " + std::to_string(begin) + " to " +
                         std::to_string(end) + " of " + std::to_string(total));
  const std::string context = "file '" + path.string() + "'";
  bool first = true;
  std::int64_t type_first = 0;  // the type's first row among all types'
  for (int t = 0; t < kTypes; ++t) {
    if (counts.n[t] == 0) continue;
    const auto n = static_cast<std::int64_t>(counts.n[t]);
    // This type's rows of [begin, end), counted from its first.
    const std::int64_t lo = std::clamp(begin - type_first, std::int64_t{0}, n);
    const std::int64_t hi = std::clamp(end - type_first, lo, n);
    type_first += n;
    Snapshot<Real> part;
    read_particles(w, file.get(), t, counts, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi - lo),
                   static_cast<std::uint64_t>(end - begin), part);
    const std::string g = type_group(t);
    validate_particles(part.particles, context, {g + "/Coordinates", g + "/Velocities", g + "/Masses", g + "/ParticleIDs"},
                       lo);
    for (std::size_t i = 0; i < part.field.potential.size(); ++i)
      if (!std::isfinite(part.field.potential[i]))
        w.fail(g + "/Potential", "row " + std::to_string(lo + static_cast<std::int64_t>(i)) + " is not finite");
    // Potential and Acceleration are the run's when every type has them; otherwise neither is kept.
    s.has_potential = (first || s.has_potential) && part.has_potential;
    s.has_acceleration = (first || s.has_acceleration) && part.has_acceleration;
    append(s.particles, part.particles);
    append(s.field, part.field);
    s.info.precision = part.info.precision;
    first = false;
  }
  if (!s.has_potential) s.field.potential.clear();
  if (!s.has_acceleration) s.field.ax.clear(), s.field.ay.clear(), s.field.az.clear();
  // IDs are unique across the types too.
  validate_particles(s.particles, context, {"Coordinates", "Velocities", "Masses", "ParticleIDs (all types)"}, begin);
  return s;
}

}  // namespace

template <class Real>
Snapshot<Real> read_snapshot(const std::filesystem::path& path) {
  std::int64_t total = 0;
  return read_rows_of<Real>(path, 0, -1, total);
}

template <class Real>
Snapshot<Real> read_snapshot_rows(const std::filesystem::path& path, std::int64_t begin, std::int64_t end,
                                  std::int64_t& total) {
  return read_rows_of<Real>(path, begin, end, total);
}

template void write_snapshot<float>(const std::filesystem::path&, const Particles<float>&, const SnapshotInfo&,
                                    const SnapshotFields<float>&);
template void write_snapshot<double>(const std::filesystem::path&, const Particles<double>&, const SnapshotInfo&,
                                     const SnapshotFields<double>&);
template void write_snapshot_in_pieces<float>(const std::filesystem::path&, std::int64_t, const SnapshotInfo&,
                                              const std::array<double, 6>&, bool, const ColumnSource&, bool,
                                              std::int64_t);
template void write_snapshot_in_pieces<double>(const std::filesystem::path&, std::int64_t, const SnapshotInfo&,
                                               const std::array<double, 6>&, bool, const ColumnSource&, bool,
                                              std::int64_t);
template Snapshot<float> read_snapshot<float>(const std::filesystem::path&);
template Snapshot<double> read_snapshot<double>(const std::filesystem::path&);
template Snapshot<float> read_snapshot_rows<float>(const std::filesystem::path&, std::int64_t, std::int64_t,
                                                   std::int64_t&);
template Snapshot<double> read_snapshot_rows<double>(const std::filesystem::path&, std::int64_t, std::int64_t,
                                                     std::int64_t&);

}  // namespace orrery::io
