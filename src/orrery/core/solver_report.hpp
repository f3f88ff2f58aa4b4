#pragma once
// What a force evaluation did: interaction counts and time by phase.
//
// Counters are exact (contract 2): the particle-cell and particle-particle
// counts of every tree backend and traversal equal the CPU solver's. Node
// visits of the coherent GPU walk are larger by design and reported as such.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orrery {

struct InteractionCounts {
  std::uint64_t node_visits = 0;
  std::uint64_t cell_interactions = 0;      // particle-cell (multipole) terms
  std::uint64_t particle_interactions = 0;  // particle-particle terms

  friend bool operator==(const InteractionCounts&, const InteractionCounts&) = default;
  InteractionCounts& operator+=(const InteractionCounts& o) {
    node_visits += o.node_visits;
    cell_interactions += o.cell_interactions;
    particle_interactions += o.particle_interactions;
    return *this;
  }
};

struct SolverReport {
  InteractionCounts total;
  /// Per target in the caller's order; filled when the caller asks for it
  /// (SolveOptions::per_target_counts), empty otherwise.
  std::vector<InteractionCounts> per_target;
  /// Wall (host) or event (device) seconds per phase, in the order run.
  std::vector<std::pair<std::string, double>> phase_seconds;

  double seconds() const {
    double s = 0;
    for (const auto& [name, t] : phase_seconds) s += t;
    return s;
  }
  void add_phase(std::string name, double s) { phase_seconds.emplace_back(std::move(name), s); }

  /// Seconds of the pieces of a phase, named "phase/piece" (the distributed
  /// tree's "exchange/selection", ...), in the order run. They are already
  /// in their phase's phase_seconds, so they are kept apart: seconds() and
  /// whoever sums or sorts phase_seconds (the block steps' walk and build
  /// seconds) count each second once, and read what they read before.
  std::vector<std::pair<std::string, double>> piece_seconds;
  void add_piece(const std::string& phase, const std::string& piece, double s) {
    piece_seconds.emplace_back(phase + "/" + piece, s);
  }
};

}  // namespace orrery
