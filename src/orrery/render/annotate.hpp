#pragma once
// The picture `orrery render` writes: the density map framed by axes with
// tick labels in the run's units, a scale bar and the time on the map, and a
// colour bar of log10 surface density with its units.
#include <array>
#include <string>

#include "orrery/render/colormap.hpp"
#include "orrery/render/image.hpp"
#include "orrery/render/surface_density.hpp"

namespace orrery::render {

struct Labels {
  char axis = 'z';                          // the projection axis; the picture shows the other two
  std::array<double, 2> centre{0, 0};       // the picture's centre in its two coordinates, code units
  std::string length_unit = "code units";  // e.g. "kpc"
  double length_scale = 1;                  // displayed length per code length
  std::string sigma_unit = "code units";   // e.g. "Msun/kpc^2"
  double sigma_scale = 1;                   // displayed surface density per code surface density
  std::string time;                         // e.g. "t = 1.96 Gyr"
  double peak = 0;                          // the colour scale's top, code units, as density_image's
};

/// `picture` (density_image(map, colormap, decades)) with margins, axes,
/// scale bar, time and colour bar.
Image annotated(const DensityMap& map, const Image& picture, const Colormap& colormap, double decades,
                const Labels& labels);

/// The "nice" number (1, 2 or 5 times a power of ten) nearest above `x` > 0: tick steps, scale bars.
double nice_step(double x);

}  // namespace orrery::render
