#include "orrery/render/surface_density.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::render {
namespace {

/// Components (horizontal, vertical) of the projection plane for an axis.
std::array<int, 2> plane_of(char axis) {
  switch (axis) {
    case 'x': return {1, 2};
    case 'y': return {2, 0};
    case 'z': return {0, 1};
    default: throw InputError(std::string("--axis = ") + axis + "; accepted: x, y, z");
  }
}

/// The side of the centred square holding 98 % of the particles (x 1.1), for width = 0.
double fitting_width(const Particles<double>& p, const std::array<int, 2>& plane, const std::array<double, 3>& c) {
  std::vector<double> extent(static_cast<std::size_t>(p.size()));
  const std::array<const std::vector<double>*, 3> pos{&p.x, &p.y, &p.z};
  for (std::size_t i = 0; i < extent.size(); ++i)
    extent[i] = std::max(std::abs((*pos[plane[0]])[i] - c[plane[0]]), std::abs((*pos[plane[1]])[i] - c[plane[1]]));
  const auto k = static_cast<std::size_t>(0.98 * static_cast<double>(extent.size() - 1));
  std::nth_element(extent.begin(), extent.begin() + static_cast<std::ptrdiff_t>(k), extent.end());
  return extent.empty() || !(extent[k] > 0) ? 1.0 : 2.2 * extent[k];
}

/// Separable Gaussian blur of an n x n image, sigma in pixels, kernel cut at 3 sigma.
void smooth(std::vector<double>& image, int n, double sigma) {
  if (sigma <= 0) return;
  const int half = std::max(1, static_cast<int>(std::ceil(3 * sigma)));
  std::vector<double> kernel(2 * half + 1);
  double sum = 0;
  for (int k = -half; k <= half; ++k) sum += kernel[k + half] = std::exp(-0.5 * k * k / (sigma * sigma));
  for (double& w : kernel) w /= sum;
  std::vector<double> tmp(image.size(), 0.0);
  for (int pass = 0; pass < 2; ++pass) {  // rows, then columns
    std::fill(tmp.begin(), tmp.end(), 0.0);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        const double v = image[static_cast<std::size_t>(r) * n + c];
        if (v == 0) continue;
        for (int k = -half; k <= half; ++k) {
          const int rr = pass == 0 ? r : r + k, cc = pass == 0 ? c + k : c;
          if (rr >= 0 && rr < n && cc >= 0 && cc < n) tmp[static_cast<std::size_t>(rr) * n + cc] += v * kernel[k + half];
        }
      }
    image.swap(tmp);
  }
}

}  // namespace

DensityMap project_surface_density(const Particles<double>& p, ProjectionOptions o) {
  const auto plane = plane_of(o.axis);
  if (o.resolution < 16 || o.resolution > 8192)
    throw InputError("--resolution = " + std::to_string(o.resolution) + "; accepted: an integer from 16 to 8192");
  if (o.width < 0 || !std::isfinite(o.width))
    throw InputError("--width = " + std::to_string(o.width) + "; accepted: a number > 0 (0: fit the particles)");
  if (!(o.smoothing >= 0 && o.smoothing <= 64))
    throw InputError("--smooth = " + std::to_string(o.smoothing) + "; accepted: a number of pixels from 0 to 64");
  if (o.width == 0) o.width = fitting_width(p, plane, o.centre);
  const int n = o.resolution;
  DensityMap map{n, o.width, std::vector<double>(static_cast<std::size_t>(n) * n, 0.0)};
  const double cell = o.width / n;
  const std::array<const std::vector<double>*, 3> pos{&p.x, &p.y, &p.z};
  const auto deposit = [&](int col, int row_from_bottom, double m) {
    if (col < 0 || col >= n || row_from_bottom < 0 || row_from_bottom >= n) return;
    map.sigma[static_cast<std::size_t>(n - 1 - row_from_bottom) * n + col] += m;
  };
  for (std::int64_t i = 0; i < p.size(); ++i) {
    // Pixel coordinates with pixel centres at integers (cloud-in-cell).
    const double u = ((*pos[plane[0]])[i] - o.centre[plane[0]] + 0.5 * o.width) / cell - 0.5;
    const double v = ((*pos[plane[1]])[i] - o.centre[plane[1]] + 0.5 * o.width) / cell - 0.5;
    if (!(u > -1 && u < n && v > -1 && v < n)) continue;
    const int c0 = static_cast<int>(std::floor(u)), r0 = static_cast<int>(std::floor(v));
    const double fu = u - c0, fv = v - r0, m = p.mass[i];
    deposit(c0, r0, m * (1 - fu) * (1 - fv));
    deposit(c0 + 1, r0, m * fu * (1 - fv));
    deposit(c0, r0 + 1, m * (1 - fu) * fv);
    deposit(c0 + 1, r0 + 1, m * fu * fv);
  }
  smooth(map.sigma, n, o.smoothing);
  for (double& s : map.sigma) s /= cell * cell;
  return map;
}

Image density_image(const DensityMap& map, const Colormap& colormap, double decades, double peak) {
  if (!(peak > 0)) peak = *std::max_element(map.sigma.begin(), map.sigma.end());
  const double top = peak > 0 ? std::log10(peak) : 0.0;
  Image image(map.resolution, map.resolution, colormap(0.0));
  for (std::size_t k = 0; k < map.sigma.size(); ++k)
    if (map.sigma[k] > 0) image.pixels[k] = colormap((std::log10(map.sigma[k]) - (top - decades)) / decades);
  return image;
}

}  // namespace orrery::render
