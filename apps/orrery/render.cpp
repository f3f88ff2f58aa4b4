// orrery render SNAPSHOT -o IMAGE.png [--axis z] [--width W] [--resolution N] [--colormap NAME]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "orrery/core/error.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/render/animation.hpp"
#include "orrery/render/annotate.hpp"
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
  bool bare = false;
  std::string movie;  // a run's output directory: every snapshot_*.h5, one frame each
  int fps = 8;
};

/// Axis, scale-bar and colour-bar labels in the snapshot's units: Orrery's
/// physical system in kpc, Msun/kpc^2 and Gyr; Henon units as code units.
render::Labels labels_for(const io::SnapshotInfo& info, char axis, const std::array<double, 3>& centre) {
  render::Labels l;
  l.axis = axis;
  const int first = axis == 'x' ? 1 : axis == 'y' ? 2 : 0, second = (first + 1) % 3;
  l.centre = {centre[first], centre[second]};
  char time[64];
  if (info.units.name == "physical") {
    const double kpc = info.units.length_cm / cgs::kpc, msun = info.units.mass_g / cgs::msun;
    l.length_unit = "kpc", l.length_scale = kpc;
    l.sigma_unit = "Msun/kpc^2", l.sigma_scale = msun / (kpc * kpc);
    std::snprintf(time, sizeof time, "t = %.4g Gyr", info.units.time_gyr(info.time));
  } else {
    std::snprintf(time, sizeof time, "t = %.4g", info.time);
  }
  l.time = time;
  return l;
}

render::ProjectionOptions projection(const RenderOptions& o) {
  if (o.axis.size() != 1) throw InputError("--axis = " + o.axis + "; accepted: x, y, z");
  if (!(o.decades > 0)) throw InputError("--decades = " + std::to_string(o.decades) + "; accepted: a number > 0");
  render::ProjectionOptions p;
  p.axis = o.axis[0];
  p.width = o.width;
  p.resolution = o.resolution;
  p.smoothing = o.smoothing;
  p.centre = {o.centre[0], o.centre[1], o.centre[2]};
  return p;
}

render::Image picture(const RenderOptions& o, const render::Colormap& colormap, const render::ProjectionOptions& p,
                      const render::DensityMap& map, const io::SnapshotInfo& info, double peak) {
  const auto image = render::density_image(map, colormap, o.decades, peak);
  if (o.bare) return image;
  auto labels = labels_for(info, p.axis, p.centre);
  labels.peak = peak;
  return render::annotated(map, image, colormap, o.decades, labels);
}

void render_snapshot(const RenderOptions& o) {
  const auto colormap = render::Colormap::named(o.colormap, "--colormap");
  const auto p = projection(o);
  const auto snapshot = io::read_snapshot<double>(o.snapshot);
  const auto map = render::project_surface_density(snapshot.particles, p);
  const auto image = picture(o, colormap, p, map, snapshot.info, 0.0);
  render::write_png(o.output, image);
  std::printf("%s: %dx%d (map %dx%d), width %g, projected along %s, t = %g\n", o.output.c_str(), image.width,
              image.height, map.resolution, map.resolution, map.width, o.axis.c_str(), snapshot.info.time);
}

/// One frame per snapshot of the directory, in order, all with the first
/// frame's width (unless --width) and one colour scale (the largest peak).
void render_movie(const RenderOptions& o) {
  if (!o.snapshot.empty()) throw InputError("--movie renders a directory: give no SNAPSHOT with it");
  if (o.fps < 1 || o.fps > 120) throw InputError("--fps = " + std::to_string(o.fps) + "; accepted: 1 to 120");
  const std::filesystem::path out = o.output;
  const bool apng = out.extension() == ".png" || out.extension() == ".apng";
  if (!apng && out.extension() != ".mp4")
    throw InputError("-o " + o.output + ": accepted for a movie: NAME.mp4 (ffmpeg) or NAME.png (animated PNG)");
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(o.movie, ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("snapshot_", 0) == 0 && entry.path().extension() == ".h5") files.push_back(entry.path());
  }
  if (ec) throw InputError("--movie " + o.movie + ": " + ec.message());
  if (files.empty()) throw InputError("--movie " + o.movie + ": no snapshot_*.h5 in it");
  std::sort(files.begin(), files.end());
  const auto colormap = render::Colormap::named(o.colormap, "--colormap");
  auto p = projection(o);
  std::vector<render::DensityMap> maps;
  std::vector<io::SnapshotInfo> infos;
  double peak = 0;
  for (const auto& file : files) {
    const auto snapshot = io::read_snapshot<double>(file);
    maps.push_back(render::project_surface_density(snapshot.particles, p));
    p.width = maps.back().width;  // the first frame's fit holds for the rest
    peak = std::max(peak, *std::max_element(maps.back().sigma.begin(), maps.back().sigma.end()));
    infos.push_back(snapshot.info);
  }
  std::vector<render::Image> frames;
  for (std::size_t i = 0; i < maps.size(); ++i) frames.push_back(picture(o, colormap, p, maps[i], infos[i], peak));
  if (apng) {
    render::write_apng(out, frames, o.fps);
  } else {
    render::write_ffmpeg(out, frames, o.fps);
  }
  std::printf("%s: %zu frames of %dx%d at %d per second (%s), width %g, projected along %s\n", o.output.c_str(),
              frames.size(), frames[0].width, frames[0].height, o.fps, apng ? "animated PNG" : "ffmpeg", p.width,
              o.axis.c_str());
}

void render_command(const RenderOptions& o) {
  if (!o.movie.empty()) return render_movie(o);
  if (o.snapshot.empty()) throw InputError("render: give a SNAPSHOT, or --movie DIR for a run's snapshots");
  render_snapshot(o);
}
}  // namespace

void add_render_command(CLI::App& app) {
  auto o = std::make_shared<RenderOptions>();
  auto* cmd = app.add_subcommand("render", "Picture of a snapshot: projected surface density, log scale (PNG)");
  cmd->add_option("snapshot", o->snapshot, "HDF5 snapshot");
  cmd->add_option("-o,--output", o->output, "PNG to write (with --movie: NAME.mp4 through ffmpeg, or NAME.png, an "
                                            "animated PNG)")->required();
  cmd->add_option("--movie", o->movie, "A run's output directory: a movie of its snapshot_*.h5, one frame each");
  cmd->add_option("--fps", o->fps, "Movie frames per second")->capture_default_str();
  cmd->add_option("--axis", o->axis, "Projection axis: x, y or z")->capture_default_str();
  cmd->add_option("--width", o->width, "Side of the square shown, in code length units (0: fit 98 % of the particles)")
      ->capture_default_str();
  cmd->add_option("--resolution", o->resolution, "Pixels per side (16 to 8192)")->capture_default_str();
  cmd->add_option("--colormap", o->colormap, "viridis, inferno, magma, cividis or gray")->capture_default_str();
  cmd->add_option("--decades", o->decades, "Dynamic range: decades of surface density below the peak")
      ->capture_default_str();
  cmd->add_option("--smooth", o->smoothing, "Gaussian smoothing in pixels (0: none)")->capture_default_str();
  cmd->add_option("--centre", o->centre, "Centre of the picture: X Y Z")->expected(3)->capture_default_str();
  cmd->add_flag("--bare", o->bare,
                "The density map alone, resolution x resolution pixels (default: with axes in the run's units, a "
                "scale bar, the time and a colour bar)");
  cmd->footer(
      "Examples:\n"
      "  orrery render orrery-out/snapshot_0010.h5 -o halo.png\n"
      "  orrery render snap.h5 -o collision.png --axis y --width 20 --resolution 1024 --colormap magma\n"
      "  orrery render --movie orrery-out -o run.mp4      # ffmpeg; -o run.png: an animated PNG");
  cmd->callback([o] { render_command(*o); });
}

}  // namespace orrery::cli
