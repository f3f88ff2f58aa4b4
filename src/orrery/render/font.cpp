#include "orrery/render/font.hpp"

namespace orrery::render {
namespace {

const Glyph& glyph(char c) {
  const auto code = static_cast<unsigned char>(c);
  return label_font().glyphs[(code >= 32 && code < 127) ? code - 32 : '?' - 32];
}

int hex(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

}  // namespace

int text_width(const std::string& text) {
  int w = 0;
  for (const char c : text) w += glyph(c).advance;
  return w;
}

void draw_text(Image& image, int x, int y, const std::string& text, Rgb colour) {
  for (const char c : text) {
    const Glyph& g = glyph(c);
    for (int r = 0; r < g.height; ++r) {
      for (int k = 0; k < g.width; ++k) {
        const int px = x + g.left + k, py = y + g.top + r;
        if (px < 0 || py < 0 || px >= image.width || py >= image.height) continue;
        const char* byte = g.coverage + 2 * (r * g.width + k);
        const int a = hex(byte[0]) * 16 + hex(byte[1]);
        if (a == 0) continue;
        Rgb& p = image.at(px, py);
        const auto mix = [a](std::uint8_t under, std::uint8_t over) {
          return static_cast<std::uint8_t>((under * (255 - a) + over * a + 127) / 255);
        };
        p = {mix(p.r, colour.r), mix(p.g, colour.g), mix(p.b, colour.b)};
      }
    }
    x += g.advance;
  }
}

}  // namespace orrery::render
