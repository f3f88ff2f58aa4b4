#include "orrery/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"

namespace orrery::io {
namespace {

std::filesystem::path directory_of(const std::filesystem::path& target) {
  const auto dir = target.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

/// fsync of a path; returns errno or 0.
int sync_path(const std::filesystem::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno;
  const int rc = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  // Directories on some file systems refuse fsync (EINVAL): nothing to flush then.
  return rc == EINVAL ? 0 : rc;
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  static std::atomic<unsigned> counter{0};
  if (target_.filename().empty())
    throw InputError("output file '" + target_.string() + "': not a file name (it ends in a directory separator)");
  const auto dir = directory_of(target_);
  temp_ = dir / fmt::format(".{}.tmp-{}-{}", target_.filename().string(), ::getpid(), counter++);
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw_os_error("output file '" + target_.string() + "': cannot create a file in directory '" + dir.string() + "'",
                   errno, "accepted: an existing, writable directory");
  }
  ::close(fd);
}

AtomicFile::~AtomicFile() {
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::commit() {
  int e = sync_path(temp_, O_RDONLY);
  if (e == 0 && ::rename(temp_.c_str(), target_.c_str()) != 0) e = errno;
  if (e != 0) {
    ::unlink(temp_.c_str());
    throw_os_error("output file '" + target_.string() + "': could not be written", e,
                   "any previous file of that name is unchanged");
  }
  committed_ = true;
  sync_path(directory_of(target_), O_RDONLY | O_DIRECTORY);
}

int write_all(int fd, std::span<const std::byte> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

void write_file_atomically(const std::filesystem::path& target, std::span<const std::byte> bytes) {
  AtomicFile file(target);
  const int fd = ::open(file.temp_path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  int e = fd < 0 ? errno : injected_write_error();
  if (e == 0) e = write_all(fd, bytes);
  if (fd >= 0 && ::close(fd) != 0 && e == 0) e = errno;
  if (e != 0)
    throw_os_error("output file '" + target.string() + "': could not be written", e,
                   "any previous file of that name is unchanged");
  file.commit();
}

}  // namespace orrery::io
