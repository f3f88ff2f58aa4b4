#include "orrery/bh/walk_isa.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::bh {
namespace {

// -1: nothing requested yet (the environment decides at the first use).
std::atomic<int> requested{-1};

WalkIsa checked(WalkIsa isa, std::string_view what) {
  if (isa == WalkIsa::avx512 && !cpu_supports_avx512_walk())
    throw InputError(std::string(what) +
                     " = avx512 is not supported by this processor: the AVX-512 walk needs AVX-512 F, VL, BW and "
                     "DQ; accepted here: avx2 or auto (which gives avx2)");
  return isa;
}

}  // namespace

WalkIsa parse_walk_isa(std::string_view text, std::string_view what) {
  if (text == "avx2") return WalkIsa::avx2;
  if (text == "avx512") return WalkIsa::avx512;
  if (text == "auto" || text == "automatic") return WalkIsa::automatic;
  throw InputError(std::string(what) + " = '" + std::string(text) + "' is invalid; accepted: avx2, avx512, auto");
}

bool cpu_supports_avx512_walk() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return yes;
}

void set_walk_isa(WalkIsa isa) { requested.store(static_cast<int>(checked(isa, "set_walk_isa")), std::memory_order_relaxed); }

WalkIsa walk_isa_in_use() {
  int r = requested.load(std::memory_order_relaxed);
  if (r < 0) {
    const char* env = std::getenv("ORRERY_CPU_WALK");
    const WalkIsa isa = env && *env ? checked(parse_walk_isa(env), "ORRERY_CPU_WALK") : WalkIsa::automatic;
    int expected = -1;
    requested.compare_exchange_strong(expected, static_cast<int>(isa), std::memory_order_relaxed);
    r = requested.load(std::memory_order_relaxed);
  }
  const auto isa = static_cast<WalkIsa>(r);
  if (isa != WalkIsa::automatic) return isa;
  return cpu_supports_avx512_walk() ? WalkIsa::avx512 : WalkIsa::avx2;
}

}  // namespace orrery::bh
