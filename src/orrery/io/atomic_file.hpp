#pragma once
// Writing a file so that no existing file is ever left half-written
// (contract 7): the data goes to a temporary file in the destination's own
// directory (so the rename cannot cross file systems), is flushed to disk,
// and only then renamed over the destination. A failure at any point removes
// the temporary file and leaves the destination as it was.
#include <cstddef>
#include <filesystem>
#include <span>

namespace orrery::io {

class AtomicFile {
 public:
  /// Creates the (empty) temporary file next to `target`. Throws, naming the
  /// directory and the OS error, InputError when it is missing or not a
  /// directory, EnvironmentError when it is not writable (core/os_error.hpp).
  explicit AtomicFile(std::filesystem::path target);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();

  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& target() const { return target_; }

  /// fsyncs the temporary file, renames it to the target and fsyncs the
  /// directory. Throws EnvironmentError (the file system's reason, e.g. "No
  /// space left on device") and removes the temporary file on failure.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

/// Writes every byte to `fd` (retrying interrupted and short writes);
/// returns 0, or the errno of the write that failed.
int write_all(int fd, std::span<const std::byte> bytes);

/// Writes `bytes` to `target` through an AtomicFile; one write of the
/// fault-injection seam (core/write_fault.hpp).
void write_file_atomically(const std::filesystem::path& target, std::span<const std::byte> bytes);

}  // namespace orrery::io
