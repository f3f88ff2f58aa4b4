#include "orrery/render/image.hpp"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <memory>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"
#include "orrery/io/atomic_file.hpp"

namespace orrery::render {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// libpng's default handlers print their own line ("libpng error: Write
// Error") before ours: ours jump back without printing, and we report once.
[[noreturn]] void jump_back(png_structp png, png_const_charp) { png_longjmp(png, 1); }
void ignore_warning(png_structp, png_const_charp) {}

// libpng reports errors by longjmp; these functions keep only plain data
// between setjmp and the calls that may jump, so no destructor is skipped.
bool encode(std::FILE* file, const Image& image) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, jump_back, ignore_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < image.height; ++y)
    png_write_row(png, reinterpret_cast<png_const_bytep>(&image.pixels[static_cast<std::size_t>(y) * image.width]));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

bool decode(std::FILE* file, Image& image) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, jump_back, ignore_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_init_io(png, file);
  png_read_info(png, info);
  const bool rgb8 = png_get_color_type(png, info) == PNG_COLOR_TYPE_RGB && png_get_bit_depth(png, info) == 8;
  const auto w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if (!rgb8 || w == 0 || h == 0 || w > 1u << 15 || h > 1u << 15) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  image.width = static_cast<int>(w);
  image.height = static_cast<int>(h);
  image.pixels.assign(static_cast<std::size_t>(w) * h, Rgb{});
  for (png_uint_32 y = 0; y < h; ++y)
    png_read_row(png, reinterpret_cast<png_bytep>(&image.pixels[static_cast<std::size_t>(y) * w]), nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

void write_png(const std::filesystem::path& path, const Image& image) {
  if (image.width < 1 || image.height < 1 || image.pixels.size() != static_cast<std::size_t>(image.width) * image.height)
    throw InputError("image '" + path.string() + "': empty or inconsistent image");
  io::AtomicFile out(path);
  {
    std::FILE* file = std::fopen(out.temp_path().c_str(), "wb");
    int e = file == nullptr ? errno : injected_write_error();
    if (e == 0) {
      errno = 0;
      const bool ok = encode(file, image) && std::fflush(file) == 0 && !std::ferror(file);
      // A libpng failure that the system did not report (errno still 0) is an I/O error.
      if (!ok) e = errno != 0 ? errno : EIO;
    }
    if (file != nullptr && std::fclose(file) != 0 && e == 0) e = errno;
    if (e != 0)
      throw_os_error("image '" + path.string() + "': could not be written", e,
                     "any previous file of that name is unchanged");
  }
  out.commit();
}

Image read_png(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  Image image;
  if (!file || !decode(file.get(), image))
    throw InputError("image '" + path.string() + "': missing, or not an 8-bit RGB PNG");
  return image;
}

}  // namespace orrery::render
