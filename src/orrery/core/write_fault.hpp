#pragma once
// The test-only fault-injection seam of every writer (diagnostics log,
// snapshot, checkpoint, PNG, config dump): a full or forbidden disk cannot be
// had in CI (it runs as root, without a small file system), so each writer
// asks injected_write_error() before each write it makes, and
//   ORRERY_TEST_FAIL_WRITE=<k>:<ENOSPC|EACCES|EIO>
// makes the k-th such write of the process (counting from 1) fail with that
// errno, exactly as the operating system would report it. Without the
// variable it returns 0 and costs one load.
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace orrery {

namespace detail {
struct WriteFault {
  long at = 0;  // the write to fail, 1-based; 0: none
  int error = 0;
  WriteFault() {
    const char* spec = std::getenv("ORRERY_TEST_FAIL_WRITE");
    if (spec == nullptr) return;
    char* colon = nullptr;
    at = std::strtol(spec, &colon, 10);
    const std::string name = colon && *colon == ':' ? colon + 1 : "";
    error = name == "ENOSPC" ? ENOSPC : name == "EACCES" ? EACCES : name == "EIO" ? EIO : 0;
    if (at < 1 || error == 0) at = 0;  // malformed: inject nothing rather than something unexpected
  }
};
}  // namespace detail

/// 0, or the errno the write about to be made must fail with (see above).
inline int injected_write_error() {
  static const detail::WriteFault fault;
  static std::atomic<long> writes{0};
  if (fault.at == 0) return 0;
  return ++writes == fault.at ? fault.error : 0;
}

/// Writes `text` to `file` and flushes it: 0, or the errno of the failure
/// (injected, or the system's). ferror is asked too: glibc can drop a buffer
/// whose write failed and still report success from fputs and fflush.
inline int write_and_flush(std::FILE* file, const std::string& text) {
  if (const int injected = injected_write_error()) return injected;
  errno = 0;
  if (std::fputs(text.c_str(), file) >= 0 && std::fflush(file) == 0 && !std::ferror(file)) return 0;
  return errno != 0 ? errno : EIO;
}

}  // namespace orrery
