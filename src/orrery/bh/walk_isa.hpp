#pragma once
// Which instruction set the CPU tree walk (group_walk.hpp) runs with: the
// default build (-march=x86-64-v3, AVX2) or an AVX-512 instantiation of the
// same code, chosen at run time (docs/adr/0006). Both give the same bits,
// counters included: they execute the same IEEE operations per lane, only
// in wider registers (tested in walk_isa_test.cpp).
//
// The choice, in order of precedence:
//   1. set_walk_isa(WalkIsa::avx2 | WalkIsa::avx512), for tests and benchmarks;
//   2. the environment variable ORRERY_CPU_WALK=avx2|avx512|auto, read once,
//      at the first solve (or the first walk_isa_in_use()) of the process;
//   3. automatic: avx512 when the processor has AVX-512 F, VL, BW and DQ
//      (__builtin_cpu_supports), avx2 otherwise.
// Requesting avx512 on a processor without it is an InputError (from
// set_walk_isa, or from the first solve for the environment variable).
#include <string_view>

namespace orrery::bh {

enum class WalkIsa { automatic, avx2, avx512 };

constexpr std::string_view to_string(WalkIsa isa) {
  return isa == WalkIsa::avx2 ? "avx2" : isa == WalkIsa::avx512 ? "avx512" : "auto";
}

/// "avx2", "avx512" or "auto"; anything else is an InputError naming `what`.
WalkIsa parse_walk_isa(std::string_view text, std::string_view what = "ORRERY_CPU_WALK");

/// Whether this processor runs the AVX-512 walk (F, VL, BW and DQ).
bool cpu_supports_avx512_walk();

/// Process-wide; overrides ORRERY_CPU_WALK. Not to be called while a solve
/// runs on another thread (the solve reads the choice once, at its start).
void set_walk_isa(WalkIsa isa);

/// The instruction set the next solve walks with: avx2 or avx512, never automatic.
WalkIsa walk_isa_in_use();

}  // namespace orrery::bh
