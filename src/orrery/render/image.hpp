#pragma once
// An 8-bit RGB raster and its PNG writer (libpng), written atomically
// through io::AtomicFile so an existing picture is never half-overwritten.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace orrery::render {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

struct Image {
  int width = 0;
  int height = 0;
  std::vector<Rgb> pixels;  // row-major, row 0 at the top

  Image() = default;
  Image(int w, int h, Rgb fill = {}) : width(w), height(h), pixels(static_cast<std::size_t>(w) * h, fill) {}
  Rgb& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
  const Rgb& at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

/// Writes `image` as an 8-bit RGB PNG. InputError naming the file when the
/// directory is not writable or the disk is full (the old file is then kept).
void write_png(const std::filesystem::path& path, const Image& image);

/// Reads an 8-bit RGB PNG written by write_png (for tests). InputError otherwise.
Image read_png(const std::filesystem::path& path);

}  // namespace orrery::render
