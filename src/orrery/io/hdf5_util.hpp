#pragma once
// Small RAII and attribute helpers over the HDF5 C API, for the snapshot
// reader and writer only (this header includes hdf5.h; public headers do not).
// Every failure becomes an InputError that names the file and the object.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orrery::io::h5 {

/// Silences HDF5's own printing of its error stack (we turn it into messages).
void quiet_errors();
/// The innermost message on HDF5's current error stack, or "" when empty.
std::string last_error();

/// An owned hid_t closed by the matching H5*close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  /// Closes now; returns false when closing failed (e.g. a flush on a full disk).
  bool reset() {
    const bool ok = id_ < 0 || close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

/// The access properties of every file Orrery writes (the format version;
/// the default driver: the file on disk). MemoryFile starts from them.
Handle file_access();

/// A file that HDF5 writes to memory only (the core driver, no backing
/// store), whose complete image, as it would be on disk after H5Fclose, is
/// handed over when it is closed: the caller writes it to disk itself, with
/// checked writes. Create the file with access(), call expect_size() with
/// H5Fget_file_image's size before closing, then take image().
class MemoryFile {
 public:
  MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  hid_t access() const { return fapl_.get(); }
  /// The image's size: H5Fget_file_image's after a flush (the file's end,
  /// which closing does not extend; the buffer itself is rounded up).
  void expect_size(std::size_t bytes) { size_ = bytes; }
  /// The image the close handed over (empty before the close).
  std::vector<std::byte>& image() { return image_; }

 private:
  static herr_t on_free(void* ptr, H5FD_file_image_op_t op, void* self);
  Handle fapl_;
  std::size_t size_ = 0;
  std::vector<std::byte> image_;
};

/// The context of errors: the file name, so messages read "file 'x': ...".
struct Where {
  std::string file;
  [[noreturn]] void fail(const std::string& object, const std::string& problem) const;
};

// --- writing -----------------------------------------------------------
/// A creation property list of `cls` (H5P_FILE_CREATE, H5P_GROUP_CREATE,
/// H5P_DATASET_CREATE) that stores no times in the object's header: a file
/// then holds no clock reading, and the same run writes the same bytes
/// whenever and on however many MPI ranks it runs (docs/adr/0013).
Handle untimed(const Where& w, hid_t cls, const char* name);

void write_attr(const Where& w, hid_t loc, const char* name, const std::vector<std::uint64_t>& v);
void write_attr(const Where& w, hid_t loc, const char* name, const std::vector<std::uint32_t>& v);
void write_attr(const Where& w, hid_t loc, const char* name, const std::vector<double>& v);
void write_attr(const Where& w, hid_t loc, const char* name, double v);
void write_attr(const Where& w, hid_t loc, const char* name, std::int32_t v);
void write_attr(const Where& w, hid_t loc, const char* name, std::int64_t v);
/// Fixed-length ASCII, null-terminated (yt decodes variable-length strings wrongly).
void write_attr(const Where& w, hid_t loc, const char* name, const std::string& v);

/// A dataset of `rows` x `cols` (cols = 1: rank 1) elements of `mem_type`,
/// chunked with a Fletcher-32 checksum so corrupt data is detected on read.
void write_dataset(const Where& w, hid_t group, const char* name, hid_t file_type, hid_t mem_type,
                   std::uint64_t rows, int cols, const void* data);
/// The same dataset created empty, to be written in pieces (write_rows).
Handle create_dataset(const Where& w, hid_t group, const char* name, hid_t file_type, std::uint64_t rows, int cols);
/// Rows [first, first + count) of a dataset of `cols` columns (cols = 1: rank 1).
void write_rows(const Where& w, hid_t set, const char* name, hid_t mem_type, std::uint64_t first, std::uint64_t count,
                int cols, const void* data);

// --- reading (each names the file and object in its error) ---------------
bool has_attr(hid_t loc, const char* name);
bool has_link(hid_t loc, const char* name);
std::vector<std::uint64_t> read_attr_u64(const Where& w, hid_t loc, const std::string& object, const char* name,
                                         std::size_t expected_len);
std::vector<double> read_attr_f64(const Where& w, hid_t loc, const std::string& object, const char* name,
                                  std::size_t expected_len);
std::string read_attr_string(const Where& w, hid_t loc, const std::string& object, const char* name);

/// Opens `group/name`, checks rank and shape (N rows, `cols` columns; cols = 1
/// means rank 1) and type class, reads it converted to `mem_type`.
void read_dataset(const Where& w, hid_t group, const std::string& group_name, const char* name, H5T_class_t cls,
                  hid_t mem_type, std::uint64_t rows, int cols, void* out);
/// read_dataset's checks, then rows [first, first + count) of its `rows` alone
/// (a hyperslab: what one MPI rank holds of a file).
void read_rows(const Where& w, hid_t group, const std::string& group_name, const char* name, H5T_class_t cls,
               hid_t mem_type, std::uint64_t rows, int cols, std::uint64_t first, std::uint64_t count, void* out);
/// The number of rows of a dataset (its first dimension); checks it exists.
std::uint64_t dataset_rows(const Where& w, hid_t group, const std::string& group_name, const char* name);

}  // namespace orrery::io::h5
