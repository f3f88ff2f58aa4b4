// orrery info FILE [--config]: what a snapshot or a checkpoint holds.
#include <CLI/CLI.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "orrery/core/error.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/snapshot.hpp"

namespace orrery::cli {

namespace {
struct InfoOptions {
  std::string file;
  bool config = false;
};

template <class Real>
void print_particles(const Particles<Real>& p) {
  double mass = 0, c[3] = {0, 0, 0}, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (std::int64_t i = 0; i < p.size(); ++i) {
    const double x[3] = {double(p.x[i]), double(p.y[i]), double(p.z[i])};
    mass += p.mass[i];
    for (int k = 0; k < 3; ++k) c[k] += p.mass[i] * x[k], lo[k] = std::min(lo[k], x[k]), hi[k] = std::max(hi[k], x[k]);
  }
  std::printf("particles:        %lld\n", static_cast<long long>(p.size()));
  std::printf("total mass:       %.10g\n", mass);
  std::printf("centre of mass:   %.6g %.6g %.6g\n", c[0] / mass, c[1] / mass, c[2] / mass);
  std::printf("bounding box:     [%.6g, %.6g] x [%.6g, %.6g] x [%.6g, %.6g]\n", lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
}

/// "PartType1 8192, PartType2 4096": the GADGET types present, in file order.
std::string type_list(const io::ParticleTypes& t) {
  std::string out;
  for (int k = 0; k < io::kParticleTypes; ++k) {
    if (t.count[k] == 0) continue;
    out += (out.empty() ? "" : ", ") + io::type_group(k) + " " + std::to_string(t.count[k]);
  }
  return out;
}

/// "PartType1 0.02, PartType2 0.15": the softening of each type present
/// (docs/softening.md), or nothing when they have one softening.
void print_softening_per_type(const std::optional<std::array<double, io::kParticleTypes>>& eps,
                              const io::ParticleTypes& t) {
  if (!eps) return;
  std::string out;
  for (int k = 0; k < io::kParticleTypes; ++k) {
    if (t.count[k] == 0) continue;
    char eps_text[32];
    std::snprintf(eps_text, sizeof eps_text, "%g", (*eps)[k]);
    out += (out.empty() ? "" : ", ") + io::type_group(k) + " " + eps_text;
  }
  std::printf("softening/type:   %s (a pair takes the larger)\n", out.c_str());
}

void print_snapshot(const InfoOptions& o) {
  const auto s = io::read_snapshot<double>(o.file);
  const auto& i = s.info;
  std::printf("file:             %s (HDF5 snapshot, GADGET-4 layout)\n", o.file.c_str());
  std::printf("time:             %.17g (%.6g Gyr)\n", i.time, i.units.time_gyr(i.time));
  std::printf("step:             %lld\n", static_cast<long long>(i.step));
  std::printf("precision:        %s\n", i.precision.c_str());
  std::printf("units:            %s: length %.6g cm, mass %.6g g, velocity %.6g cm/s, G = %g\n", i.units.name.c_str(),
              i.units.length_cm, i.units.mass_g, i.units.velocity_cm_per_s, i.units.gravity_constant);
  std::printf("solver:           %s, softening %g (%s), theta %g\n", i.solver.c_str(), i.softening,
              i.softening_kernel.c_str(), i.theta);
  std::printf("types:            %s\n", type_list(i.types).c_str());
  print_softening_per_type(i.softening_per_type, i.types.resolved(static_cast<std::uint64_t>(s.particles.size()), o.file));
  std::printf("fields:           Coordinates Velocities Masses ParticleIDs%s%s\n", s.has_potential ? " Potential" : "",
              s.has_acceleration ? " Acceleration" : "");
  std::printf("written by:       orrery %s\n", i.version.empty() ? "(unknown)" : i.version.c_str());
  print_particles(s.particles);
  if (o.config) std::printf("\n%s", i.config.c_str());
}

template <class Real>
void print_checkpoint(const InfoOptions& o) {
  const auto c = io::read_checkpoint<Real>(o.file);
  std::printf("file:             %s (checkpoint, checksum verified)\n", o.file.c_str());
  std::printf("time:             %.17g\n", c.state.time_origin + static_cast<double>(c.state.step) * c.state.dt);
  std::printf("step:             %lld (dt %.17g)\n", static_cast<long long>(c.state.step), c.state.dt);
  std::printf("initial energy:   %.17g\n", c.state.initial_energy);
  std::printf("build:            orrery %s, %s, %s\n", c.build.version.c_str(), c.build.precision.c_str(),
              c.build.compiler.c_str());
  const auto types = io::types_from(c.counters).resolved(static_cast<std::uint64_t>(c.particles.size()), o.file);
  std::printf("types:            %s\n", type_list(types).c_str());
  const auto gravity = io::Config::from_string(c.config, "checkpoint " + o.file).run_config().gravity;
  if (gravity.per_type_softening()) print_softening_per_type(gravity.softening_classes().eps, types);
  const auto now = io::BuildFingerprint::current<Real>();
  std::printf("restartable here: %s\n", c.build == now ? "yes" : "no (another build: see orrery run --restart)");
  print_particles(c.particles);
  if (o.config) std::printf("\n%s", c.config.c_str());
}

void info_command(const InfoOptions& o) {
  if (io::is_checkpoint_file(o.file)) {
    if (io::checkpoint_precision(o.file) == "double") {
      print_checkpoint<double>(o);
    } else {
      print_checkpoint<float>(o);
    }
  } else {
    print_snapshot(o);  // any other file: the snapshot reader says what is wrong with it
  }
}
}  // namespace

void add_info_command(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand("info", "Show what a snapshot (.h5) or a checkpoint (.orrck) holds, after validating it");
  cmd->add_option("file", o->file, "Snapshot or checkpoint")->required();
  cmd->add_flag("--config", o->config, "Also print the run's full configuration stored in the file");
  cmd->footer(
      "Examples:\n"
      "  orrery info orrery-out/snapshot_0003.h5\n"
      "  orrery info --config orrery-out/checkpoint_000000001280.orrck");
  cmd->callback([o] { info_command(*o); });
}

}  // namespace orrery::cli
