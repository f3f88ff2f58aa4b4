#pragma once
// What the process does with memory it frees (docs/adr/0020). glibc hands
// every block of 32 MB or more back to the kernel when it is freed (mmap'd
// blocks), and trims the top of its heap; each step of a run then allocates
// its large arrays again in pages the kernel has to find and zero, one fault
// per 4 KB page, and on many threads the faults contend for the process's
// address space. Kept, a freed block serves the next allocation its size
// in pages already touched. Orrery's programs keep freed memory
// (ORRERY_FREED_MEMORY=keep, the default) or leave the allocator as it is
// (release); a library loaded into someone else's process (the Python
// package) never changes it.
#include <cstdlib>
#include <string>
#include <string_view>

// glibc's allocator, not a sanitizer's (which replaces it and ignores mallopt).
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <malloc.h>
#define ORRERY_GLIBC_ALLOCATOR 1
#else
#define ORRERY_GLIBC_ALLOCATOR 0
#endif

#include "orrery/core/error.hpp"

namespace orrery {

enum class FreedMemory { keep, release };

/// "keep" or "release"; anything else is an InputError naming `where`.
inline FreedMemory parse_freed_memory(std::string_view text, const std::string& where) {
  if (text == "keep") return FreedMemory::keep;
  if (text == "release") return FreedMemory::release;
  throw InputError(where + " = \"" + std::string(text) + "\"; accepted: keep, release");
}

inline const char* to_string(FreedMemory f) { return f == FreedMemory::keep ? "keep" : "release"; }

/// Whether this build's allocator can keep freed memory (glibc's, not a
/// sanitizer's, which replaces it).
inline constexpr bool can_keep_freed_memory() { return ORRERY_GLIBC_ALLOCATOR == 1; }

/// Applies `policy` to the process's allocator, from now on: keep serves
/// every block from the heap (no mmap'd blocks) and never trims it, so the
/// process holds its largest footprint so far until it exits; release leaves
/// the allocator's own rules. Returns whether the allocator now does what
/// `policy` says (keep: false where can_keep_freed_memory() is false).
inline bool set_freed_memory(FreedMemory policy) {
  if (policy == FreedMemory::release) return true;
#if ORRERY_GLIBC_ALLOCATOR
  // mallopt(3): M_MMAP_MAX 0 serves large requests from the heap, and
  // M_TRIM_THRESHOLD -1 disables trimming completely.
  return mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, -1) == 1;
#else
  return false;
#endif
}

/// The policy ORRERY_FREED_MEMORY names (unset or empty: keep), applied;
/// returns it. A value other than keep or release is an InputError.
inline FreedMemory set_freed_memory_from_environment() {
  const char* env = std::getenv("ORRERY_FREED_MEMORY");
  const FreedMemory policy =
      env != nullptr && *env != '\0' ? parse_freed_memory(env, "ORRERY_FREED_MEMORY") : FreedMemory::keep;
  set_freed_memory(policy);
  return policy;
}

}  // namespace orrery
