#pragma once
// Projected surface density of a particle set, and its picture on a log
// scale (`orrery render`).
//
// The particles are projected along `axis` onto the plane of the other two
// axes (x: (y, z); y: (z, x)... in right-handed order: x -> (y, z),
// y -> (z, x), z -> (x, y)), inside a square of side `width` centred on
// `centre`, and deposited cloud-in-cell on resolution x resolution pixels:
// each pixel holds mass / pixel area, then smoothed with a Gaussian of
// `smoothing` pixels (so a few thousand particles read as a density, not as
// dots; the kernel is normalised, so mass is conserved away from the edges).
// Mass outside the square is dropped.
#include <array>
#include <string>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/render/colormap.hpp"
#include "orrery/render/image.hpp"

namespace orrery::render {

struct ProjectionOptions {
  char axis = 'z';                      // 'x', 'y' or 'z'
  double width = 0;                     // > 0 (code length units); 0: fit 98 % of the particles
  int resolution = 512;                 // pixels per side, 16..8192
  double smoothing = 1.0;               // Gaussian sigma in pixels, 0..64 (0: none)
  std::array<double, 3> centre{0, 0, 0};
};

struct DensityMap {
  int resolution = 0;
  double width = 0;
  std::vector<double> sigma;  // row-major, row 0 at the top (largest second coordinate)
};

/// InputError naming --axis / --width / --resolution for invalid options.
DensityMap project_surface_density(const Particles<double>& p, ProjectionOptions options);

/// Log-scaled picture: log10(sigma) from peak - `decades` (black end of the
/// map) to peak (bright end); `peak` 0: the map's own maximum (a movie passes
/// the largest of all its frames, so the colours mean the same in each).
/// Empty pixels get the darkest colour.
Image density_image(const DensityMap& map, const Colormap& colormap, double decades = 4.0, double peak = 0);

}  // namespace orrery::render
