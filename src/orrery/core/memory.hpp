#pragma once
// Refusing a run that cannot fit in memory before allocating it: a count of
// 1e12 particles (or a snapshot header that claims them) otherwise dies in
// std::bad_alloc, or worse, is killed by the kernel half-way.
#include <cstdio>
#include <fstream>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery {

namespace detail {
/// The first number in a file (a cgroup limit), or -1 when unreadable or "max".
inline double number_in(const char* path) {
  std::ifstream in(path);
  double v = -1;
  return in >> v ? v : -1;
}
}  // namespace detail

/// Bytes this process can still allocate: the kernel's MemAvailable, lowered
/// to the cgroup's remaining limit in a container. A negative value: unknown.
inline double available_memory_bytes() {
  double available = -1;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    double kib = 0;
    meminfo >> kib;
    if (key == "MemAvailable:") available = kib * 1024;
    meminfo.ignore(1 << 10, '\n');
  }
  const double limit = detail::number_in("/sys/fs/cgroup/memory.max");
  const double used = detail::number_in("/sys/fs/cgroup/memory.current");
  if (limit > 0 && used >= 0 && (available < 0 || limit - used < available)) available = limit - used;
  return available;
}

/// Throws InputError "<what> needs at least <bytes> GB of <memory>, but
/// <available> GB is available; accepted: <accepted>" when bytes > available
/// (a negative `available`: unknown, nothing is refused).
inline void require_fits(double bytes, double available, const std::string& what, const char* memory,
                         const std::string& accepted) {
  if (available < 0 || bytes <= available) return;
  char text[160];
  std::snprintf(text, sizeof text, " needs at least %.3g GB of %s, but %.3g GB is available", bytes / 1e9, memory,
                available / 1e9);
  throw InputError(what + text + "; accepted: " + accepted);
}

/// require_fits against the host memory this process can still allocate.
inline void require_memory(double bytes, const std::string& what, const std::string& accepted) {
  require_fits(bytes, available_memory_bytes(), what, "memory", accepted);
}

}  // namespace orrery
