#include "orrery/render/animation.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include <fmt/format.h>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"
#include "orrery/io/atomic_file.hpp"

namespace orrery::render {
namespace {

void put32(std::string& s, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xff));
}
void put16(std::string& s, std::uint16_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v & 0xff));
}

/// A PNG chunk: length, type, data, CRC-32 of type and data.
void chunk(std::string& out, const char* type, const std::string& data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::string body = std::string(type, 4) + data;
  out += body;
  put32(out, static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), body.size())));
}

/// The zlib stream of the image's rows, each with filter type 0.
std::string compressed_rows(const Image& image) {
  std::string raw;
  raw.reserve(static_cast<std::size_t>(image.height) * (1 + 3 * image.width));
  for (int y = 0; y < image.height; ++y) {
    raw.push_back('\0');
    for (int x = 0; x < image.width; ++x) {
      const Rgb& p = image.at(x, y);
      raw.push_back(static_cast<char>(p.r)), raw.push_back(static_cast<char>(p.g)), raw.push_back(static_cast<char>(p.b));
    }
  }
  uLongf size = compressBound(raw.size());
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 6) != Z_OK)
    throw RuntimeFailure("animated PNG: zlib could not compress a frame");
  out.resize(size);
  return out;
}

}  // namespace

void write_apng(const std::filesystem::path& path, const std::vector<Image>& frames, int fps) {
  if (frames.empty()) throw InputError("animated PNG '" + path.string() + "': no frames");
  const int w = frames[0].width, h = frames[0].height;
  std::string png("\x89PNG\r\n\x1a\n", 8), data;
  put32(data, w), put32(data, h);
  data += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, deflate, no interlace
  chunk(png, "IHDR", data);
  data.clear();
  put32(data, static_cast<std::uint32_t>(frames.size())), put32(data, 0);  // frames, loop forever
  chunk(png, "acTL", data);
  std::uint32_t sequence = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].width != w || frames[i].height != h)
      throw InputError(fmt::format("animated PNG '{}': frame {} is {}x{}, the first {}x{}", path.string(), i,
                                   frames[i].width, frames[i].height, w, h));
    data.clear();
    put32(data, sequence++), put32(data, w), put32(data, h), put32(data, 0), put32(data, 0);
    put16(data, 1), put16(data, static_cast<std::uint16_t>(fps));  // delay 1/fps s
    data += std::string("\x00\x00", 2);                             // dispose none, blend source
    chunk(png, "fcTL", data);
    if (i == 0) {
      chunk(png, "IDAT", compressed_rows(frames[i]));  // the default image is the first frame
    } else {
      data.clear();
      put32(data, sequence++);
      chunk(png, "fdAT", data + compressed_rows(frames[i]));
    }
  }
  chunk(png, "IEND", {});
  io::write_file_atomically(path, std::as_bytes(std::span(png.data(), png.size())));
}

bool have_ffmpeg() { return std::system("command -v ffmpeg >/dev/null 2>&1") == 0; }

void write_ffmpeg(const std::filesystem::path& path, const std::vector<Image>& frames, int fps) {
  if (!have_ffmpeg())
    throw InputError("'" + path.string() + "': ffmpeg is not on PATH (Debian: apt-get install ffmpeg); accepted "
                     "without it: an animated PNG, -o NAME.png");
  if (frames.empty()) throw InputError("movie '" + path.string() + "': no frames");
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("orrery-movie-{}", ::getpid());
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  // Classed like every other failed write (2: the path, 3: the machine), not an uncaught filesystem_error.
  if (made)
    throw_os_error("movie '" + path.string() + "': the frames' directory '" + dir.string() + "' cannot be created",
                   made.value());
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() { std::error_code ec; std::filesystem::remove_all(dir, ec); }
  } cleanup{dir};
  for (std::size_t i = 0; i < frames.size(); ++i) write_png(dir / fmt::format("frame_{:05}.png", i), frames[i]);
  // H.264 in yuv420p needs even sides: pad by a pixel where needed.
  const auto command = fmt::format(
      "ffmpeg -y -loglevel error -framerate {} -i '{}/frame_%05d.png' -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' "
      "-pix_fmt yuv420p '{}'", fps, dir.string(), path.string());
  if (std::system(command.c_str()) != 0) throw InputError("'" + path.string() + "': ffmpeg failed (" + command + ")");
}

}  // namespace orrery::render
