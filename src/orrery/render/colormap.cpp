#include "orrery/render/colormap.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::render {
namespace {

struct Named {
  std::string_view name;
  std::vector<Rgb> stops;
};

const std::vector<Named>& maps() {
  static const std::vector<Named> all = {
      {"viridis", {{68, 1, 84}, {72, 24, 106}, {71, 45, 123}, {66, 64, 134}, {59, 82, 139}, {51, 99, 141},
                   {44, 114, 142}, {38, 130, 142}, {33, 145, 140}, {31, 160, 136}, {40, 174, 128}, {63, 188, 115},
                   {94, 201, 98}, {132, 212, 75}, {173, 220, 48}, {216, 226, 25}, {253, 231, 37}}},
      {"inferno", {{0, 0, 4}, {11, 7, 36}, {33, 12, 74}, {61, 9, 101}, {87, 16, 110}, {113, 25, 110},
                   {138, 34, 106}, {163, 44, 97}, {188, 55, 84}, {210, 70, 68}, {228, 90, 49}, {241, 115, 29},
                   {249, 142, 9}, {252, 172, 17}, {249, 203, 53}, {242, 234, 105}, {252, 255, 164}}},
      {"magma", {{0, 0, 4}, {10, 8, 34}, {29, 17, 71}, {54, 16, 107}, {81, 18, 124}, {106, 28, 129},
                 {131, 38, 129}, {156, 46, 127}, {183, 55, 121}, {208, 65, 111}, {231, 82, 99}, {245, 107, 92},
                 {252, 137, 97}, {254, 167, 114}, {254, 196, 136}, {253, 226, 163}, {252, 253, 191}}},
      {"cividis", {{0, 34, 78}, {0, 46, 106}, {26, 56, 111}, {50, 67, 109}, {67, 78, 108}, {83, 90, 109},
                   {97, 101, 111}, {111, 112, 115}, {125, 124, 120}, {140, 136, 120}, {155, 148, 118},
                   {171, 160, 114}, {188, 174, 108}, {205, 187, 99}, {222, 201, 88}, {240, 216, 70}, {254, 232, 56}}},
      {"gray", {{0, 0, 0}, {255, 255, 255}}},
  };
  return all;
}

}  // namespace

std::vector<std::string> Colormap::names() {
  std::vector<std::string> out;
  for (const auto& m : maps()) out.emplace_back(m.name);
  return out;
}

Colormap Colormap::named(std::string_view name, std::string_view key) {
  for (const auto& m : maps())
    if (m.name == name) return Colormap(m.stops);
  std::string accepted;
  for (const auto& n : names()) accepted += (accepted.empty() ? "" : ", ") + n;
  throw InputError(std::string(key) + " = \"" + std::string(name) + "\"; accepted: " + accepted);
}

Rgb Colormap::operator()(double t) const {
  t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
  const double x = t * static_cast<double>(stops_.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(x), stops_.size() - 2);
  const double f = x - static_cast<double>(i);
  const auto mix = [f](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(std::lround((1 - f) * a + f * b));
  };
  return {mix(stops_[i].r, stops_[i + 1].r), mix(stops_[i].g, stops_[i + 1].g), mix(stops_[i].b, stops_[i + 1].b)};
}

}  // namespace orrery::render
