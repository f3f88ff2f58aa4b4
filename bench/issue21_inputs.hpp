#pragma once
// Issue 21's inputs, shared by the benchmarks that measure them
// (opening_sweep_bench, gpu_tree_bench, coherent_walk_model): made on the host
// by ic/ with fixed seeds, so every table's rows are of the same particles.
// (bh_regression_bench keeps its own lines: it is copied into older trees.)
#include <cstdint>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/uniform_cube.hpp"

namespace orrery::bench {

/// "cube" (uniform in [-3, 3]^3, masses U(0, 1) / N), "plummer", "hernquist"
/// (truncated at 100 scale radii), n particles.
inline Particles<double> issue21_distribution(const std::string& model, std::int64_t n) {
  if (model == "cube") return ic::uniform_cube(n, 20261221, 3.0);
  if (model == "hernquist") return ic::hernquist_sphere(n, 20261223);
  if (model == "plummer") return ic::plummer_sphere(n, 20261222);
  throw InputError("unknown distribution '" + model + "'; accepted: cube, plummer, hernquist");
}

/// Issue 21's softening: the cube's eps 0.17 at 2^20 (kept at 2^18), the halos' 0.05.
inline double issue21_softening(const std::string& model) { return model == "cube" ? 0.17 : 0.05; }

}  // namespace orrery::bench
