#pragma once
// One place that turns an errno from the operating system into the right
// error class, so that every writer and reader reports the same failure the
// same way: "<what>: <OS message>", an InputError when the path the user gave
// is wrong (it does not exist, a file is where a directory must be) and an
// EnvironmentError when the machine refused (disk full, permission, I/O).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include "orrery/core/error.hpp"

namespace orrery {

inline std::string errno_text(int e) { return std::error_code(e, std::generic_category()).message(); }

/// True for the errors that a different path would avoid (the user's input).
inline bool is_path_error(int e) {
  return e == ENOENT || e == ENOTDIR || e == EISDIR || e == EEXIST || e == ENAMETOOLONG || e == ELOOP;
}

/// Throws "<what>: <OS message>[; <advice>]" as InputError or EnvironmentError.
[[noreturn]] inline void throw_os_error(const std::string& what, int e, const std::string& advice = {}) {
  const std::string message = what + ": " + errno_text(e) + (advice.empty() ? "" : "; " + advice);
  if (is_path_error(e)) throw InputError(message);
  throw EnvironmentError(message);
}

/// Throws, naming the file and the OS error, unless `path` is a regular file
/// this process may read: a file the user may not read is reported as that,
/// not as a file of the wrong format.
inline void require_readable_file(const std::filesystem::path& path) {
  const std::string where = "file '" + path.string() + "'";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) throw InputError(where + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(where + ": is a directory; accepted: a file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_os_error(where + ": cannot be read", errno);
  ::close(fd);
}

}  // namespace orrery
