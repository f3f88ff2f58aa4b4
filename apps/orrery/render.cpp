// orrery render SNAPSHOT -o IMAGE.png [--axis z] [--width W] [--resolution N] [--colormap NAME]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "orrery/core/error.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/render/surface_density.hpp"

namespace orrery::cli {

namespace {
struct RenderOptions {
  std::string snapshot;
  std::string output;
  std::string axis = "z";
  double width = 0;
  int resolution = 512;
  std::string colormap = "inferno";
  double decades = 4;
  double smoothing = 1.0;
  std::vector<double> centre = {0, 0, 0};
};

void render_command(const RenderOptions& o) {
  if (o.axis.size() != 1) throw InputError("--axis = " + o.axis + "; accepted: x, y, z");
  if (!(o.decades > 0)) throw InputError("--decades = " + std::to_string(o.decades) + "; accepted: a number > 0");
  const auto colormap = render::Colormap::named(o.colormap, "--colormap");
  const auto snapshot = io::read_snapshot<double>(o.snapshot);
  render::ProjectionOptions p;
  p.axis = o.axis[0];
  p.width = o.width;
  p.resolution = o.resolution;
  p.smoothing = o.smoothing;
  p.centre = {o.centre[0], o.centre[1], o.centre[2]};
  const auto map = render::project_surface_density(snapshot.particles, p);
  render::write_png(o.output, render::density_image(map, colormap, o.decades));
  std::printf("%s: %dx%d, width %g, projected along %s, t = %g\n", o.output.c_str(), map.resolution, map.resolution,
              map.width, o.axis.c_str(), snapshot.info.time);
}
}  // namespace

void add_render_command(CLI::App& app) {
  auto o = std::make_shared<RenderOptions>();
  auto* cmd = app.add_subcommand("render", "Picture of a snapshot: projected surface density, log scale (PNG)");
  cmd->add_option("snapshot", o->snapshot, "HDF5 snapshot")->required();
  cmd->add_option("-o,--output", o->output, "PNG to write")->required();
  cmd->add_option("--axis", o->axis, "Projection axis: x, y or z")->capture_default_str();
  cmd->add_option("--width", o->width, "Side of the square shown, in code length units (0: fit 98 % of the particles)")
      ->capture_default_str();
  cmd->add_option("--resolution", o->resolution, "Pixels per side (16 to 8192)")->capture_default_str();
  cmd->add_option("--colormap", o->colormap, "viridis, inferno, magma, cividis or gray")->capture_default_str();
  cmd->add_option("--decades", o->decades, "Dynamic range: decades of surface density below the peak")
      ->capture_default_str();
  cmd->add_option("--smooth", o->smoothing, "Gaussian smoothing in pixels (0: none)")->capture_default_str();
  cmd->add_option("--centre", o->centre, "Centre of the picture: X Y Z")->expected(3)->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  orrery render orrery-out/snapshot_0010.h5 -o halo.png\n"
      "  orrery render snap.h5 -o collision.png --axis y --width 20 --resolution 1024 --colormap magma");
  cmd->callback([o] { render_command(*o); });
}

}  // namespace orrery::cli
