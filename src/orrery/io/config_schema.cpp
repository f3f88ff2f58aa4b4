#include "orrery/io/config_schema.hpp"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace orrery::io {

namespace {

using integrate::RunConfig;

const std::string& as_string(const Value& v) { return std::get<std::string>(v); }

// A field as a Value of its key's type (string, boolean, number or integer),
// and back.
template <class T>
T from_value(const Value& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return std::get<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::get<double>(v);
  } else {
    return static_cast<T>(std::get<std::int64_t>(v));
  }
}
template <class T>
Value to_value(const T& field) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return field;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(field);
  } else {
    return static_cast<std::int64_t>(field);
  }
}

/// The enumerator of `all` whose to_string is `name` (the schema has checked
/// that it is one of them).
template <class E>
E named(const std::string& name, std::initializer_list<E> all) {
  for (const E e : all) {
    if (to_string(e) == name) return e;
  }
  return *all.begin();
}

// The two directions of a key, KeySpec::apply and KeySpec::read, written once:
// a key that is one field of the RunConfig as it is (ORRERY_FIELD), or one
// that names an enumerator by its to_string (ORRERY_NAMED, the enumerators
// listed).
#define ORRERY_FIELD(member)                                                               \
  [](const Value& v, RunConfig& c) { c.member = from_value<decltype(c.member)>(v); }, \
      [](const RunConfig& c) { return to_value(c.member); }
#define ORRERY_NAMED(member, ...)                                                        \
  [](const Value& v, RunConfig& c) { c.member = named(as_string(v), {__VA_ARGS__}); }, \
      [](const RunConfig& c) { return Value(std::string(to_string(c.member))); }

std::vector<KeySpec> build_schema() {
  std::vector<KeySpec> s;
  // [initial_conditions]
  s.push_back({"initial_conditions.kind", ValueType::string, std::string("plummer"),
               "Initial conditions generator, built in Henon units (G = M = 1). plummer: Plummer sphere (Aarseth, "
               "Henon & Wielen 1974, E = -1/4). hernquist: Hernquist sphere from its isotropic distribution function "
               "(scale radius 1/3). cold_sphere: uniform sphere at rest (radius 12/5, E = -1/4; free-fall time 4.13). "
               "kepler: two bodies on a Kepler orbit (count and seed unused). collision: two Plummer spheres of mass "
               "1/2 on a collision orbit. file: the HDF5 snapshot at initial_conditions.path.",
               {"plummer", "hernquist", "cold_sphere", "kepler", "collision", "file"}, {}, false,
               ORRERY_FIELD(initial_conditions.kind)});
  s.push_back({"initial_conditions.path", ValueType::string, std::string(""),
               "kind = \"file\": the snapshot to start from (GADGET-4-layout HDF5, e.g. from orrery ic or an earlier "
               "run; the run starts at its Header.Time).",
               {}, {}, false, ORRERY_FIELD(initial_conditions.path)});
  s.push_back({"initial_conditions.count", ValueType::integer, std::int64_t{4096}, "Number of particles.", {}, 1.0,
               false, ORRERY_FIELD(initial_conditions.count)});
  s.push_back({"initial_conditions.seed", ValueType::integer, std::int64_t{1},
               "Random seed; the same seed gives bit-identical initial conditions on every platform.", {}, 0.0, false,
               ORRERY_FIELD(initial_conditions.seed)});
  s.push_back({"initial_conditions.mass", ValueType::real, 1.0,
               "Total mass the model is scaled to (Msun with units.system = \"physical\", else code units).", {}, 0.0,
               true, ORRERY_FIELD(initial_conditions.mass)});
  s.push_back({"initial_conditions.length", ValueType::real, 1.0,
               "Length the model's Henon length unit is stretched to (kpc with units.system = \"physical\"); "
               "velocities scale by sqrt(mass / length).",
               {}, 0.0, true, ORRERY_FIELD(initial_conditions.length)});
  s.push_back({"initial_conditions.hernquist.truncation", ValueType::real, 100.0,
               "hernquist: radii are drawn inside this many scale radii (100: 98 % of the untruncated mass).", {}, 0.0,
               true, ORRERY_FIELD(initial_conditions.hernquist.truncation)});
  s.push_back({"initial_conditions.kepler.eccentricity", ValueType::real, 0.5,
               "kepler: orbital eccentricity, in [0, 1); the bodies start at apocentre.", {}, 0.0, false,
               ORRERY_FIELD(initial_conditions.kepler.eccentricity)});
  s.push_back({"initial_conditions.kepler.semi_major_axis", ValueType::real, 1.0,
               "kepler: semi-major axis (period 2 pi a^1.5 for G = M = 1).", {}, 0.0, true,
               ORRERY_FIELD(initial_conditions.kepler.semi_major_axis)});
  s.push_back({"initial_conditions.kepler.mass_ratio", ValueType::real, 1.0, "kepler: m2 / m1 (total mass 1).", {},
               0.0, true, ORRERY_FIELD(initial_conditions.kepler.mass_ratio)});
  s.push_back({"initial_conditions.collision.separation", ValueType::real, 10.0,
               "collision: initial distance between the spheres' centres.", {}, 0.0, true,
               ORRERY_FIELD(initial_conditions.collision.separation)});
  s.push_back({"initial_conditions.collision.impact_parameter", ValueType::real, 0.0,
               "collision: offset perpendicular to the approach (0: head-on); less than the separation.", {}, 0.0,
               false, ORRERY_FIELD(initial_conditions.collision.impact_parameter)});
  s.push_back({"initial_conditions.collision.relative_velocity", ValueType::real, -1.0,
               "collision: relative speed of approach; < 0: parabolic (the escape speed at the separation).", {}, {},
               false, ORRERY_FIELD(initial_conditions.collision.relative_velocity)});
  // [gravity]
  s.push_back({"gravity.solver", ValueType::string, std::string("direct"),
               "Force solver: reference (double-precision direct summation with compensated sums, the yardstick), "
               "direct (O(N^2) summation), tree (Barnes-Hut octree).",
               {"reference", "direct", "tree"}, {}, false,
               ORRERY_FIELD(gravity.solver)});
  s.push_back({"gravity.backend", ValueType::string, std::string("cpu"),
               "Where forces are computed: cpu (OpenMP threads), cuda (NVIDIA GPU), auto (cuda when built and a "
               "device is present, else cpu).",
               {"cpu", "cuda", "auto"}, {}, false, ORRERY_FIELD(gravity.backend)});
  s.push_back({"gravity.precision", ValueType::string, std::string("single"),
               "Floating-point precision of particles and forces.", {"single", "double"}, {}, false,
               ORRERY_NAMED(gravity.precision, gravity::Precision::single, gravity::Precision::double_)});
  s.push_back({"gravity.softening", ValueType::real, 0.05,
               "Softening length eps (Plummer-equivalent for the spline kernel), in length units.", {}, 0.0, false,
               ORRERY_FIELD(gravity.softening)});
  s.push_back({"gravity.softening_kernel", ValueType::string, std::string("plummer"),
               "Softening kernel: plummer (phi = -m / sqrt(r^2 + eps^2)) or spline (the cubic spline of GADGET-2, "
               "Newtonian beyond 2.8 eps).",
               {"plummer", "spline"}, {}, false,
               ORRERY_NAMED(gravity.softening_kernel, SofteningKind::plummer, SofteningKind::spline)});
  // GADGET-4's softening classes, one per type (docs/softening.md).
  constexpr auto per_type = [](auto type) {
    constexpr int t = decltype(type)::value;
    return KeySpec{"gravity.softening_per_type.PartType" + std::to_string(t), ValueType::real, gravity::kUnsetSoftening,
                   "Softening length of particle type " + std::to_string(t) +
                       " (PartType" + std::to_string(t) + ", in length units; GADGET-4's SofteningComovingClass" +
                       std::to_string(t) + "). A pair is softened with the larger of its two softenings, a tree cell "
                       "with the largest among its particles (docs/softening.md). Setting any type's softening works "
                       "with the CPU solvers only.",
                   {}, 0.0, false,
                   [](const Value& v, RunConfig& c) { c.gravity.softening_per_type[t] = std::get<double>(v); },
                   [](const RunConfig& c) { return Value(c.gravity.softening_per_type[t]); }, gravity::kUnsetSoftening,
                   "unset: gravity.softening"};
  };
  [&]<int... T>(std::integer_sequence<int, T...>) {
    (s.push_back(per_type(std::integral_constant<int, T>{})), ...);
  }(std::make_integer_sequence<int, kSofteningClasses>{});
  s.push_back({"gravity.theta", ValueType::real, 0.5,
               "Opening angle of the tree solver: a cell is used as a whole when the target is farther from its "
               "centre of mass than size/theta + delta (Barnes' criterion, delta = centre of mass to cell centre). "
               "Smaller is more accurate and slower; 0 opens every cell (direct summation). With gravity.opening = "
               "\"relative\" it is the cap on top of the relative criterion (1.0 recommended).",
               {}, 0.0, false, ORRERY_FIELD(gravity.theta)});
  s.push_back({"gravity.leaf_capacity", ValueType::integer, std::int64_t{16},
               "Tree solver: a cell holding more particles than this is split into its children (particles at "
               "one position stay together in one leaf).",
               {}, 1.0, false, ORRERY_FIELD(gravity.leaf_capacity)});
  s.push_back({"gravity.multipole", ValueType::string, std::string("monopole"),
               "Tree solver: the cell expansion, GADGET-4's Cartesian orders 1 to 4. monopole (mass at the centre "
               "of mass, softened like a particle), quadrupole (plus the second-order term, softened consistently "
               "with Plummer softening; docs/adr/0005), octupole and hexadecapole (plus the third- and "
               "fourth-order terms, softened alike; docs/adr/0016). A higher order costs more per cell and opens "
               "fewer cells at the same accuracy (docs/performance/cpu_tree.md).",
               {"monopole", "quadrupole", "octupole", "hexadecapole"}, {}, false,
               [](const Value& v, RunConfig& c) {
                 c.gravity.multipole_order = gravity::multipole_order_of(as_string(v));
               },
               [](const RunConfig& c) {
                 return Value(std::string(bh::to_string(gravity::tree_multipole(c.gravity.multipole_order))));
               }});
  s.push_back({"gravity.opening", ValueType::string, std::string("geometric"),
               "Tree solver: which cells a target uses as a whole. geometric: Barnes' criterion with gravity.theta "
               "alone. relative: GADGET's relative criterion, which also requires mass * size^2 <= tolerance * "
               "a_old * d^4 (a_old: the magnitude of the target's acceleration in the previous force evaluation), "
               "bounding each interaction's error relative to the target's acceleration: fewer interactions for the "
               "same accuracy. gravity.theta is then the geometric cap (1.0 recommended) and the angle of the first "
               "evaluation, a geometric one that supplies a_old (docs/adr/0007).",
               {"geometric", "relative"}, {}, false,
               ORRERY_NAMED(gravity.opening, bh::Opening::geometric, bh::Opening::relative)});
  s.push_back({"gravity.mpi_layout", ValueType::string, std::string("replicated"),
               "Under mpirun: how the force solve is spread over the ranks (one process ignores it). replicated: "
               "every rank holds every particle and walks a share of the targets (docs/adr/0013). distributed: the "
               "tree is distributed, each rank holding only its domain's particles and receiving the nodes "
               "its walks need from the others (local essential trees, docs/adr/0012; outputs gathered to rank 0 "
               "in pieces); gravity.solver = \"tree\" (CPU ranks, or each rank's walk on its GPU), with the "
               "global step or block time steps (integration.kind = \"block\": each substep walks the active "
               "particles, the nodes sent for their boxes alone). Both give one process's bits for every number "
               "of ranks.",
               {"replicated", "distributed"}, {}, false,
               ORRERY_NAMED(gravity.mpi_layout, gravity::RankLayout::replicated, gravity::RankLayout::distributed)});
  s.push_back({"gravity.max_particles_per_rank", ValueType::integer, std::int64_t{0},
               "Under mpirun with gravity.mpi_layout = \"distributed\": the most particles a rank may hold, its "
               "domain's and those the other ranks send it for its walks (local essential trees), checked at "
               "every force solve; a rank past it stops the run with an error naming the rank and the counts "
               "(a memory budget: more ranks hold fewer each). 0: no limit.",
               {}, 0.0, false, ORRERY_FIELD(gravity.max_particles_per_rank)});
  s.push_back({"gravity.tolerance", ValueType::real, 0.002,
               "Tree solver, opening = \"relative\": alpha, the force error allowed per interaction relative to the "
               "target's acceleration (GADGET's ErrTolForceAcc, unit-free with G = 1; docs/adr/0015). Smaller is "
               "more accurate and slower.",
               {}, 0.0, true, ORRERY_FIELD(gravity.tolerance)});
  {
    KeySpec cap{"gravity.relative_cap", ValueType::real, 0.5,
                "Tree solver, opening = \"relative\": the cap's angle as a fraction of gravity.theta. A cell that "
                "Barnes' criterion at relative_cap * theta accepts is used as a whole whatever the relative test "
                "says, which bounds the cost where the relative rule would open far more than the geometric one "
                "(dense centres, uniform regions); 0: no cap, 1: the geometric criterion at theta (docs/adr/0015).",
                {}, 0.0, false, ORRERY_FIELD(gravity.relative_cap)};
    cap.max = 1.0;
    s.push_back(std::move(cap));
  }
  {
    KeySpec group{"gravity.group_opening", ValueType::integer, std::int64_t{0},
                  "Tree solver: targets that decide together which cells to open (docs/adr/0017). 0: each target "
                  "for itself (its own walk). G, a power of two from 32 to 4096: the targets of one group cell (the "
                  "largest tree node of at most G particles) within each block of 32 consecutive targets accept a "
                  "cell only where every one of them would, as Bonsai's groups do: no target sums a cell coarser "
                  "than its own walk's, so forces are as accurate or more, for more interactions. A target's force "
                  "depends on its group. At equal accuracy it is not faster than 0 on the GPU (1.0 to 1.26 times its "
                  "time, docs/performance/gpu_tree.md); on the CPU, G = 512 took 0.65 to 0.85 of its time where "
                  "both walks are AVX2 and 1.05 to 1.11 times where the own walk runs AVX-512 "
                  "(docs/performance/cpu_tree.md). "
                  "Not under MPI, with a softening per type, or with multipole orders above 2.",
                  {}, 0.0, false, ORRERY_FIELD(gravity.group_opening)};
    group.max = 4096.0;
    s.push_back(std::move(group));
  }
  s.push_back({"gravity.list_walk", ValueType::boolean, false,
               "Tree solver: Bonsai's walk (docs/adr/0019). The targets decide together in groups of 32 (every "
               "particle: in the Hilbert order of the tree's leaves), breadth first, and every target of a group "
               "sums the group's lists of cells and particles: on the GPU no lane computes a term it drops. A cell "
               "is used only where every target of the group would accept it, so forces are as accurate or more "
               "than with false, for more interactions; a target's force depends on its group. Single precision on "
               "the GPU; monopole and quadrupole; not with group_opening, under MPI, or with a softening per type. "
               "Timings at equal accuracy: docs/performance/gpu_tree.md, \"The list walk\".",
               {}, 0.0, false, ORRERY_FIELD(gravity.list_walk)});
  s.push_back({"gravity.math", ValueType::string, std::string("fast"),
               "Force-kernel arithmetic. exact: IEEE division and square root, explicit fma, no contraction: the "
               "GPU's accelerations equal the CPU's bit for bit. fast: the GPU may use rsqrt and flush denormals "
               "(rounding differs, never the tree or the walk). The CPU computes the same in both.",
               {"fast", "exact"}, {}, false,
               ORRERY_NAMED(gravity.math, MathMode::fast, MathMode::exact)});
  s.push_back({"gravity.traversal", ValueType::string, std::string("coherent"),
               "GPU tree walk (backend cuda, solver tree). coherent: a group of gravity.group_width targets walks "
               "the tree together, each summing exactly its own walk's terms; independent: one thread per target "
               "(the baseline). Both give the same bits.",
               {"coherent", "independent"}, {}, false,
               ORRERY_FIELD(gravity.traversal)});
  s.push_back({"gravity.group_width", ValueType::integer, std::int64_t{32},
               "Coherent GPU tree walk: targets sharing one node index, 8, 16, 32 (one warp; fastest on the H200) "
               "or 64 (two warps).",
               {}, 8.0, false, ORRERY_FIELD(gravity.group_width)});
  // [integration]
  s.push_back({"integration.kind", ValueType::string, std::string("global"),
               "How particles are stepped by the kick-drift-kick leapfrog. global: every particle by integration.dt. "
               "block: individual power-of-two time steps (GADGET-4's time bins): each particle takes the longest "
               "step integration.dt_max / 2^k that its integration.criterion allows, down to integration.dt_min; "
               "only particles whose step ends are kicked and have their forces computed, against every particle. "
               "Outputs fall on the synchronisation points, every integration.dt_max (docs/block_steps.md).",
               {"global", "block"}, {}, false, ORRERY_FIELD(integration.kind)});
  s.push_back({"integration.dt", ValueType::real, 0.0078125,
               "kind = \"global\": the fixed time step of the kick-drift-kick leapfrog.", {}, 0.0, true,
               ORRERY_FIELD(integration.dt)});
  s.push_back({"integration.dt_max", ValueType::real, 0.0625,
               "kind = \"block\": the longest step (time bin 0), and the interval between synchronisation points, "
               "where every particle's step ends and the outputs are written.",
               {}, 0.0, true, ORRERY_FIELD(integration.dt_max)});
  s.push_back({"integration.dt_min", ValueType::real, 1e-6,
               "kind = \"block\": the shortest step allowed (<= dt_max; the deepest bin is the last dt_max / 2^k "
               ">= dt_min). A particle whose criterion asks for less stops the run with an error naming it.",
               {}, 0.0, true, ORRERY_FIELD(integration.dt_min)});
  s.push_back({"integration.criterion", ValueType::string, std::string("softening"),
               "kind = \"block\": each particle's step. softening: dt = sqrt(2 eta eps / |a|), GADGET-4's (eps = "
               "gravity.softening, which must be > 0). dynamical: dt = eta / sqrt(G rho), rho the mean density "
               "inside the particle's radius about the point mass that gives it its acceleration and potential "
               "(Zemp et al. 2007): defined without softening, exact for Kepler orbits; costs a potential with "
               "every force evaluation.",
               {"softening", "dynamical"}, {}, false,
               ORRERY_NAMED(integration.criterion, integrate::StepCriterion::softening,
                            integrate::StepCriterion::dynamical)});
  s.push_back({"integration.eta", ValueType::real, 0.025,
               "kind = \"block\": the criterion's accuracy parameter (smaller: shorter steps). 0.025 is GADGET-4's "
               "documented ErrTolIntAccuracy for the softening criterion; for the dynamical one a Kepler orbit of "
               "eccentricity 0.99 needs 5e-4 for |dE/E| < 1e-4 over 10 orbits.",
               {}, 0.0, true, ORRERY_FIELD(integration.eta)});
  s.push_back({"integration.t_end", ValueType::real, 10.0,
               "Simulated time to run to; the run stops at the first step at or past it.", {}, 0.0, false,
               ORRERY_FIELD(integration.t_end)});
  s.push_back({"integration.wall_limit_minutes", ValueType::real, 0.0,
               "Wall-clock minutes after which the run writes a checkpoint and stops (0: no limit); continue it with "
               "orrery run --restart.",
               {}, 0.0, false, ORRERY_FIELD(integration.wall_limit_minutes)});
  s.push_back({"integration.max_energy_error", ValueType::real, 1e-2,
               "Largest relative energy error |dE/E| a diagnostics row may show: past it the run writes a checkpoint "
               "and stops with an error naming the step, the time and the error (exit status 2), since its step "
               "is too large for the system (0: no limit). The run also warns, at its start and at the first "
               "diagnostics row where it happens, when integration.dt is larger than the step the time-step "
               "criterion gives the fastest particle (docs/time_steps.md).",
               {}, 0.0, false, ORRERY_FIELD(integration.max_energy_error)});
  // [output]
  s.push_back({"output.directory", ValueType::string, std::string("orrery-out"),
               "Directory for the outputs (created if missing); the diagnostics log is diagnostics.csv in it.", {}, {},
               false, ORRERY_FIELD(output.directory)});
  s.push_back({"output.diagnostics_interval", ValueType::real, 0.125,
               "Simulated time between rows of the diagnostics log (energies, momenta, virial ratio, Lagrangian "
               "radii, wall time per phase).",
               {}, 0.0, true, ORRERY_FIELD(output.diagnostics_interval)});
  s.push_back({"output.snapshot_interval", ValueType::real, 1.0,
               "Simulated time between HDF5 snapshots snapshot_NNNN.h5 (GADGET-4 layout, docs/snapshots.md); 0: none.",
               {}, 0.0, false, ORRERY_FIELD(output.snapshot_interval)});
  s.push_back({"output.checkpoint_minutes", ValueType::real, 60.0,
               "Wall-clock minutes between checkpoints (0: only when stopped and at the end). A STOP file in the "
               "directory, SIGINT or SIGTERM also write one and stop the run.",
               {}, 0.0, false, ORRERY_FIELD(output.checkpoint_minutes)});
  s.push_back({"output.checkpoint_keep", ValueType::integer, std::int64_t{2},
               "How many checkpoints of this run to keep (the newest; other runs' checkpoints are never removed).",
               {}, 1.0, false, ORRERY_FIELD(output.checkpoint_keep)});
  // [units]
  s.push_back({"units.system", ValueType::string, std::string("henon"),
               "What code units (always G = 1) mean: henon (scaled for readers by units.length_kpc and "
               "units.mass_msun) or physical (kpc, km/s, configuration masses in Msun; docs/snapshots.md).",
               {"henon", "physical"}, {}, false, ORRERY_FIELD(units.system)});
  s.push_back({"units.length_kpc", ValueType::real, 1.0, "henon: one length unit in kpc (written to snapshots).", {},
               0.0, true, ORRERY_FIELD(units.length_kpc)});
  s.push_back({"units.mass_msun", ValueType::real, 1e10, "henon: one mass unit in Msun (written to snapshots).", {},
               0.0, true, ORRERY_FIELD(units.mass_msun)});
  return s;
}
#undef ORRERY_NAMED
#undef ORRERY_FIELD

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The shortest text that reads back as the same double.
std::string number(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

}  // namespace

std::string_view to_string(ValueType t) {
  switch (t) {
    case ValueType::integer:
      return "integer";
    case ValueType::real:
      return "number";
    case ValueType::string:
      return "string";
    case ValueType::boolean:
      return "boolean";
  }
  return "?";
}

std::string to_toml(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::string s = number(*d);
    // TOML floats need a '.' or an exponent.
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
  }
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return "\"" + std::get<std::string>(v) + "\"";
}

std::string KeySpec::accepted() const {
  if (!choices.empty()) {
    std::string out = "one of: ";
    for (std::size_t k = 0; k < choices.size(); ++k) out += (k ? ", " : "") + choices[k];
    return out;
  }
  std::string out = type == ValueType::integer ? "an integer" : (type == ValueType::real ? "a number" : "a " + std::string(to_string(type)));
  if (min) out += (min_exclusive ? " > " : " >= ") + number(*min);
  if (max) out += (min ? " and <= " : " <= ") + number(*max);
  if (unset) out += ", or " + number(*unset) + " (" + unset_means + ")";
  return out;
}

bool KeySpec::accepts(const Value& v) const {
  if (!choices.empty()) return std::find(choices.begin(), choices.end(), std::get<std::string>(v)) != choices.end();
  double x = 0;
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    x = static_cast<double>(*i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) return false;
    x = *d;
  } else {
    return true;
  }
  if (unset && x == *unset) return true;
  if (max && x > *max) return false;
  if (!min) return true;
  return min_exclusive ? x > *min : x >= *min;
}

std::string KeySpec::not_accepted(const Value& v) const {
  return key + " = " + to_toml(v) + " is not accepted; accepted: " + accepted();
}

std::string KeySpec::wrong_type(std::string_view text) const {
  return key + " = " + std::string(text) + " has the wrong type; accepted: " + accepted() + " (" +
         std::string(to_string(type)) + ")";
}

const std::vector<KeySpec>& config_schema() {
  static const std::vector<KeySpec> schema = build_schema();
  return schema;
}

const KeySpec* find_key(std::string_view key) {
  for (const auto& spec : config_schema()) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

std::string nearest_key(std::string_view key) {
  const KeySpec* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& spec : config_schema()) {
    // A key written without its section ("softening") matches its last part.
    const std::string_view name = std::string_view(spec.key).substr(spec.key.find('.') + 1);
    const std::size_t d = std::min(edit_distance(key, spec.key), edit_distance(key, name));
    if (best == nullptr || d < best_distance) {
      best = &spec;
      best_distance = d;
    }
  }
  return best ? best->key : std::string();
}

}  // namespace orrery::io
