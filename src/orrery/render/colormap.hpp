#pragma once
// Colour maps for density pictures: matplotlib's perceptually uniform maps
// (sampled at 17 points, linearly interpolated; the maps are CC0) and grey.
#include <string>
#include <string_view>
#include <vector>

#include "orrery/render/image.hpp"

namespace orrery::render {

class Colormap {
 public:
  /// "viridis", "inferno", "magma", "cividis" or "gray"; InputError naming
  /// `key` (e.g. "--colormap") and the accepted names otherwise.
  static Colormap named(std::string_view name, std::string_view key = "colormap");
  static std::vector<std::string> names();

  /// t in [0, 1] (clamped) to a colour.
  Rgb operator()(double t) const;

 private:
  explicit Colormap(std::vector<Rgb> stops) : stops_(std::move(stops)) {}
  std::vector<Rgb> stops_;
};

}  // namespace orrery::render
