#include <gtest/gtest.h>

#include <numeric>

#include "orrery/core/error.hpp"
#include "orrery/io/test_files.hpp"
#include "orrery/render/annotate.hpp"
#include "orrery/render/surface_density.hpp"

namespace orrery::render {
namespace {

using io::testing::ScratchDir;

TEST(SurfaceDensity, ConservesTheMassInsideTheSquare) {
  const auto p = io::testing::random_particles<double>(5000, 1);
  const auto map = project_surface_density(p, {.axis = 'z', .width = 100.0, .resolution = 64});
  const double cell = map.width / map.resolution;
  const double total = std::accumulate(map.sigma.begin(), map.sigma.end(), 0.0) * cell * cell;
  EXPECT_NEAR(total, std::accumulate(p.mass.begin(), p.mass.end(), 0.0), 1e-12);
}

TEST(SurfaceDensity, ProjectsAlongTheRequestedAxisWithTopRowUp) {
  Particles<double> p(1);
  p.x = {0.3}, p.y = {0.2}, p.z = {-0.35}, p.vx = p.vy = p.vz = {0.0}, p.mass = {1.0}, p.id = {1};
  // 16 pixels of 1/16 over width 1, pixel centres at (k + 0.5) / 16 - 0.5.
  const auto at = [](const DensityMap& m) {
    const auto k = std::max_element(m.sigma.begin(), m.sigma.end()) - m.sigma.begin();
    return std::pair<int, int>(static_cast<int>(k % m.resolution), static_cast<int>(k / m.resolution));
  };
  // z: plane (x, y); x = 0.3 -> column 12 or 13, y = 0.2 -> row from top 3 or 4.
  const auto [cz, rz] = at(project_surface_density(p, {.axis = 'z', .width = 1.0, .resolution = 16, .smoothing = 0}));
  EXPECT_NEAR(cz, 12.8 - 0.5, 0.6);
  EXPECT_NEAR(rz, 16 - 11.2 - 0.5, 0.6);
  // x: plane (y, z); y = 0.2 -> column ~11, z = -0.35 -> near the bottom.
  const auto [cx, rx] = at(project_surface_density(p, {.axis = 'x', .width = 1.0, .resolution = 16, .smoothing = 2.0}));
  EXPECT_NEAR(cx, 11.2 - 0.5, 0.6);
  EXPECT_NEAR(rx, 16 - 2.4 - 0.5, 0.6);
}

TEST(SurfaceDensity, BadOptionsNameTheFlag) {
  const auto p = io::testing::random_particles<double>(10, 1);
  io::testing::expect_input_error([&] { project_surface_density(p, {.axis = 'w'}); }, {"--axis", "w"});
  io::testing::expect_input_error([&] { project_surface_density(p, {.resolution = 3}); }, {"--resolution", "3"});
  io::testing::expect_input_error([&] { project_surface_density(p, {.width = -1}); }, {"--width"});
  io::testing::expect_input_error([&] { project_surface_density(p, {.smoothing = -1}); }, {"--smooth"});
  io::testing::expect_input_error([] { Colormap::named("jet", "--colormap"); }, {"--colormap", "jet", "viridis"});
}

TEST(Png, WritesAndReadsBackTheImage) {
  ScratchDir dir;
  const auto p = io::testing::random_particles<double>(2000, 2);
  const auto image = density_image(project_surface_density(p, {.resolution = 32}), Colormap::named("inferno"));
  write_png(dir / "a.png", image);
  const auto back = read_png(dir / "a.png");
  EXPECT_EQ(back.width, 32);
  EXPECT_EQ(back.pixels, image.pixels);
  // The brightest pixel has the top colour of the map, empty ones the bottom colour.
  EXPECT_NE(std::find(image.pixels.begin(), image.pixels.end(), Colormap::named("inferno")(1.0)), image.pixels.end());
  io::testing::expect_input_error([&] { write_png(dir / "no/a.png", image); }, {"no", "No such file"});
}

}  // namespace
}  // namespace orrery::render

namespace orrery::render {
namespace {

TEST(Annotate, NiceStepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(nice_step(0.7), 1.0);
  EXPECT_DOUBLE_EQ(nice_step(1.0), 1.0);
  EXPECT_DOUBLE_EQ(nice_step(13.0), 20.0);
  EXPECT_DOUBLE_EQ(nice_step(24.0), 50.0);
  EXPECT_DOUBLE_EQ(nice_step(0.003), 0.005);
}

TEST(Annotate, TheMapIsKeptInsideMarginsOfInkOnPaper) {
  constexpr int n = 128;
  DensityMap map;
  map.resolution = n, map.width = 10;
  map.sigma.assign(n * n, 1.0);
  map.sigma[0] = 100.0;
  const auto colormap = Colormap::named("gray");
  const Image picture = density_image(map, colormap, 2.0);
  Labels labels;
  labels.length_unit = "kpc", labels.time = "t = 1 Gyr";
  const Image out = annotated(map, picture, colormap, 2.0, labels);
  ASSERT_EQ(out.width, n + 174);
  ASSERT_EQ(out.height, n + 76);
  // Between the time (top left on the map) and the scale bar (bottom left) the map is untouched.
  for (int y = 30; y < 90; ++y)
    for (int x = 0; x < n; ++x) ASSERT_EQ(out.at(70 + x, 30 + y), picture.at(x, y)) << x << ", " << y;
  const auto ink_in = [&](int x0, int y0, int x1, int y1) {
    int ink = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) ink += out.at(x, y).r < 128;
    return ink;
  };
  EXPECT_GT(ink_in(0, 30 + n + 6, 70 + n, out.height), 20);  // tick labels and the axis label below the map
  EXPECT_GT(ink_in(70 + n + 14 + 16, 30, out.width, 30 + n), 10);  // the colour bar's tick labels
}

}  // namespace
}  // namespace orrery::render
