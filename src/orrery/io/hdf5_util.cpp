#include "orrery/io/hdf5_util.hpp"

#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include "orrery/core/error.hpp"

namespace orrery::io::h5 {
namespace {

herr_t keep_innermost(unsigned n, const H5E_error2_t* e, void* out) {
  // The walk goes from the innermost call outwards; the first entry says
  // what actually went wrong ("checksum mismatch", "truncated file", ...).
  if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
  return 0;
}

std::string detail() {
  const std::string d = last_error();
  return d.empty() ? std::string() : " (HDF5: " + d + ")";
}

Handle check(const Where& w, const std::string& object, hid_t id, Handle::Closer close, const char* what) {
  if (id < 0) w.fail(object, std::string(what) + detail());
  return {id, close};
}

template <class T>
void write_attr_typed(const Where& w, hid_t loc, const char* name, hid_t type, const T* data, hsize_t len,
                      bool scalar) {
  const Handle space = scalar ? check(w, name, H5Screate(H5S_SCALAR), H5Sclose, "cannot create dataspace")
                              : check(w, name, H5Screate_simple(1, &len, nullptr), H5Sclose, "cannot create dataspace");
  const Handle attr =
      check(w, name, H5Acreate2(loc, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "cannot create attribute");
  if (H5Awrite(attr.get(), type, data) < 0) w.fail(name, "cannot write attribute" + detail());
}

Handle open_attr(const Where& w, hid_t loc, const std::string& object, const char* name) {
  if (!has_attr(loc, name)) w.fail(object, std::string("missing attribute '") + name + "'");
  return check(w, object + "." + name, H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, "cannot open attribute");
}

template <class T>
std::vector<T> read_attr_numeric(const Where& w, hid_t loc, const std::string& object, const char* name,
                                 std::size_t expected_len, hid_t mem_type, H5T_class_t cls) {
  const std::string full = object + "." + name;
  const Handle attr = open_attr(w, loc, object, name);
  const Handle type = check(w, full, H5Aget_type(attr.get()), H5Tclose, "cannot read type");
  if (H5Tget_class(type.get()) != cls)
    w.fail(full, std::string("wrong type (expected ") + (cls == H5T_FLOAT ? "a floating-point" : "an integer") +
                     " attribute)");
  const Handle space = check(w, full, H5Aget_space(attr.get()), H5Sclose, "cannot read dataspace");
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0 || static_cast<std::size_t>(n) != expected_len)
    w.fail(full, "has " + std::to_string(n) + " elements, expected " + std::to_string(expected_len));
  std::vector<T> v(expected_len);
  if (H5Aread(attr.get(), mem_type, v.data()) < 0) w.fail(full, "cannot read attribute" + detail());
  return v;
}

}  // namespace

void quiet_errors() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::string last_error() {
  std::string out;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &out);
  H5Eclear2(H5E_DEFAULT);
  return out;
}

Handle file_access() {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // The 1.8 object-header and superblock formats carry checksums of all
  // metadata, so a corrupt file is reported instead of misread.
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  return fapl;
}

MemoryFile::MemoryFile() : fapl_(file_access()) {
  H5Pset_fapl_core(fapl_.get(), std::size_t{1} << 20, /*backing_store=*/0);
  // The image buffer is handed to image_free when the file closes: copy it
  // there. H5Fget_file_image before the close gives an image whose superblock
  // is not yet final (HDF5 1.10 then reads it as a metadata checksum error).
  H5FD_file_image_callbacks_t callbacks{};
  callbacks.image_malloc = [](std::size_t n, H5FD_file_image_op_t, void*) { return std::malloc(n); };
  callbacks.image_memcpy = [](void* to, const void* from, std::size_t n, H5FD_file_image_op_t, void*) {
    return std::memcpy(to, from, n);
  };
  callbacks.image_realloc = [](void* p, std::size_t n, H5FD_file_image_op_t, void*) { return std::realloc(p, n); };
  callbacks.image_free = &MemoryFile::on_free;
  callbacks.udata_copy = [](void* self) { return self; };  // HDF5 copies the property list: share this object
  callbacks.udata_free = [](void*) { return herr_t{0}; };
  callbacks.udata = this;
  H5Pset_file_image_callbacks(fapl_.get(), &callbacks);
}

herr_t MemoryFile::on_free(void* ptr, H5FD_file_image_op_t op, void* self) {
  auto& file = *static_cast<MemoryFile*>(self);
  if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && ptr != nullptr) {
    const auto* bytes = static_cast<const std::byte*>(ptr);
    file.image_.assign(bytes, bytes + file.size_);
  }
  std::free(ptr);
  return 0;
}

void Where::fail(const std::string& object, const std::string& problem) const {
  throw InputError("file '" + file + "': " + (object.empty() ? "" : object + ": ") + problem);
}

void write_attr(const Where& w, hid_t loc, const char* name, const std::vector<std::uint64_t>& v) {
  write_attr_typed(w, loc, name, H5T_NATIVE_UINT64, v.data(), v.size(), false);
}
void write_attr(const Where& w, hid_t loc, const char* name, const std::vector<std::uint32_t>& v) {
  write_attr_typed(w, loc, name, H5T_NATIVE_UINT32, v.data(), v.size(), false);
}
void write_attr(const Where& w, hid_t loc, const char* name, const std::vector<double>& v) {
  write_attr_typed(w, loc, name, H5T_NATIVE_DOUBLE, v.data(), v.size(), false);
}
void write_attr(const Where& w, hid_t loc, const char* name, double v) {
  write_attr_typed(w, loc, name, H5T_NATIVE_DOUBLE, &v, 1, true);
}
void write_attr(const Where& w, hid_t loc, const char* name, std::int32_t v) {
  write_attr_typed(w, loc, name, H5T_NATIVE_INT32, &v, 1, true);
}
void write_attr(const Where& w, hid_t loc, const char* name, std::int64_t v) {
  write_attr_typed(w, loc, name, H5T_NATIVE_INT64, &v, 1, true);
}
void write_attr(const Where& w, hid_t loc, const char* name, const std::string& v) {
  const Handle type = check(w, name, H5Tcopy(H5T_C_S1), H5Tclose, "cannot create string type");
  // A zero-length fixed string is not a valid HDF5 type: store one null byte.
  std::string padded = v;
  padded.push_back('\0');
  if (H5Tset_size(type.get(), padded.size()) < 0 || H5Tset_strpad(type.get(), H5T_STR_NULLTERM) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_ASCII) < 0)
    w.fail(name, "cannot set string type" + detail());
  write_attr_typed(w, loc, name, type.get(), padded.data(), 1, true);
}

Handle untimed(const Where& w, hid_t cls, const char* name) {
  Handle list = check(w, name, H5Pcreate(cls), H5Pclose, "cannot create property list");
  if (H5Pset_obj_track_times(list.get(), false) < 0) w.fail(name, "cannot turn off time tracking" + detail());
  return list;
}

Handle create_dataset(const Where& w, hid_t group, const char* name, hid_t file_type, std::uint64_t rows, int cols) {
  const int rank = cols == 1 ? 1 : 2;
  const hsize_t dims[2] = {rows, static_cast<hsize_t>(cols)};
  // Chunks of at most ~1 MiB; rows >= 1 is guaranteed by the callers.
  const hsize_t chunk[2] = {std::min<hsize_t>(rows, hsize_t{1} << 15), static_cast<hsize_t>(cols)};
  const Handle space = check(w, name, H5Screate_simple(rank, dims, nullptr), H5Sclose, "cannot create dataspace");
  const Handle dcpl = untimed(w, H5P_DATASET_CREATE, name);
  if (H5Pset_chunk(dcpl.get(), rank, chunk) < 0 || H5Pset_fletcher32(dcpl.get()) < 0)
    w.fail(name, "cannot set chunking" + detail());
  return check(w, name, H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
               H5Dclose, "cannot create dataset");
}

void write_dataset(const Where& w, hid_t group, const char* name, hid_t file_type, hid_t mem_type,
                   std::uint64_t rows, int cols, const void* data) {
  const Handle set = create_dataset(w, group, name, file_type, rows, cols);
  if (H5Dwrite(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    w.fail(name, "cannot write dataset" + detail());
}

void write_rows(const Where& w, hid_t set, const char* name, hid_t mem_type, std::uint64_t first, std::uint64_t count,
                int cols, const void* data) {
  const int rank = cols == 1 ? 1 : 2;
  const hsize_t start[2] = {first, 0}, size[2] = {count, static_cast<hsize_t>(cols)};
  const Handle file_space = check(w, name, H5Dget_space(set), H5Sclose, "cannot read dataspace");
  const Handle memory = check(w, name, H5Screate_simple(rank, size, nullptr), H5Sclose, "cannot create dataspace");
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
      H5Dwrite(set, mem_type, memory.get(), file_space.get(), H5P_DEFAULT, data) < 0)
    w.fail(name, "cannot write rows " + std::to_string(first) + " to " + std::to_string(first + count) + detail());
}

bool has_attr(hid_t loc, const char* name) { return H5Aexists(loc, name) > 0; }

bool has_link(hid_t loc, const char* name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

std::vector<std::uint64_t> read_attr_u64(const Where& w, hid_t loc, const std::string& object, const char* name,
                                         std::size_t expected_len) {
  return read_attr_numeric<std::uint64_t>(w, loc, object, name, expected_len, H5T_NATIVE_UINT64, H5T_INTEGER);
}

std::vector<double> read_attr_f64(const Where& w, hid_t loc, const std::string& object, const char* name,
                                  std::size_t expected_len) {
  return read_attr_numeric<double>(w, loc, object, name, expected_len, H5T_NATIVE_DOUBLE, H5T_FLOAT);
}

std::string read_attr_string(const Where& w, hid_t loc, const std::string& object, const char* name) {
  const std::string full = object + "." + name;
  const Handle attr = open_attr(w, loc, object, name);
  const Handle type = check(w, full, H5Aget_type(attr.get()), H5Tclose, "cannot read type");
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
    w.fail(full, "wrong type (expected a fixed-length string)");
  const Handle space = check(w, full, H5Aget_space(attr.get()), H5Sclose, "cannot read dataspace");
  if (H5Sget_simple_extent_npoints(space.get()) != 1) w.fail(full, "expected a single string");
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) w.fail(full, "string of size 0");
  std::string s(size, '\0');
  if (H5Aread(attr.get(), type.get(), s.data()) < 0) w.fail(full, "cannot read attribute" + detail());
  s.resize(std::min(s.size(), s.find('\0')));
  return s;
}

std::uint64_t dataset_rows(const Where& w, hid_t group, const std::string& group_name, const char* name) {
  const std::string full = group_name + "/" + name;
  if (!has_link(group, name)) w.fail(full, "missing dataset");
  const Handle set = check(w, full, H5Dopen2(group, name, H5P_DEFAULT), H5Dclose, "cannot open dataset");
  const Handle space = check(w, full, H5Dget_space(set.get()), H5Sclose, "cannot read dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 2) w.fail(full, "wrong shape: rank " + std::to_string(rank) + ", expected 1 or 2");
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  // A dataset may declare rows whose data was never written (HDF5 would read
  // them as fill values): a file that claims particles it does not hold.
  // (Partly allocated is normal: chunks may extend past the last row.)
  H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
  if (dims[0] > 0 && (H5Dget_space_status(set.get(), &status) < 0 || status == H5D_SPACE_STATUS_NOT_ALLOCATED))
    w.fail(full, "declares " + std::to_string(dims[0]) + " rows, but the file does not hold their data");
  return dims[0];
}

void read_dataset(const Where& w, hid_t group, const std::string& group_name, const char* name, H5T_class_t cls,
                  hid_t mem_type, std::uint64_t rows, int cols, void* out) {
  read_rows(w, group, group_name, name, cls, mem_type, rows, cols, 0, rows, out);
}

void read_rows(const Where& w, hid_t group, const std::string& group_name, const char* name, H5T_class_t cls,
               hid_t mem_type, std::uint64_t rows, int cols, std::uint64_t first, std::uint64_t count, void* out) {
  const std::string full = group_name + "/" + name;
  if (!has_link(group, name)) w.fail(full, "missing dataset");
  const Handle set = check(w, full, H5Dopen2(group, name, H5P_DEFAULT), H5Dclose, "cannot open dataset");
  const Handle space = check(w, full, H5Dget_space(set.get()), H5Sclose, "cannot read dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const int want_rank = cols == 1 ? 1 : 2;
  hsize_t dims[2] = {0, 0};
  if (rank != want_rank || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 || dims[0] != rows ||
      (want_rank == 2 && dims[1] != static_cast<hsize_t>(cols))) {
    const std::string got = rank == 1   ? fmt::format("({})", dims[0])
                            : rank == 2 ? fmt::format("({}, {})", dims[0], dims[1])
                                        : fmt::format("rank {}", rank);
    const std::string want = want_rank == 1 ? fmt::format("({})", rows) : fmt::format("({}, {})", rows, cols);
    w.fail(full, "wrong shape " + got + ", expected " + want);
  }
  const Handle type = check(w, full, H5Dget_type(set.get()), H5Tclose, "cannot read type");
  if (H5Tget_class(type.get()) != cls)
    w.fail(full, std::string("wrong type (expected ") + (cls == H5T_FLOAT ? "floating-point" : "integer") + " data)");
  if (first + count > rows)
    w.fail(full, fmt::format("rows {} to {} asked of {}", first, first + count, rows));
  if (count == rows) {
    if (H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
      w.fail(full, "cannot read data: truncated or corrupt" + detail());
    return;
  }
  if (count == 0) return;
  const hsize_t start[2] = {first, 0}, size[2] = {count, static_cast<hsize_t>(cols)};
  const Handle memory = check(w, full, H5Screate_simple(want_rank, size, nullptr), H5Sclose, "cannot create dataspace");
  if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
      H5Dread(set.get(), mem_type, memory.get(), space.get(), H5P_DEFAULT, out) < 0)
    w.fail(full, fmt::format("cannot read rows {} to {}: truncated or corrupt", first, first + count) + detail());
}

}  // namespace orrery::io::h5
