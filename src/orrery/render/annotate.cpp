#include "orrery/render/annotate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "orrery/render/font.hpp"

namespace orrery::render {
namespace {

constexpr Rgb kInk{20, 20, 20}, kPaper{255, 255, 255}, kOnMap{255, 255, 255};
constexpr int kLeft = 70, kRight = 104, kTop = 30, kBottom = 46;  // margins, pixels
constexpr int kTick = 5, kBarGap = 14, kBarWidth = 14;

void fill(Image& image, int x0, int y0, int w, int h, Rgb c) {
  for (int y = std::max(0, y0); y < std::min(image.height, y0 + h); ++y)
    for (int x = std::max(0, x0); x < std::min(image.width, x0 + w); ++x) image.at(x, y) = c;
}

/// A number with as many decimals as the step between neighbours needs.
std::string tick_text(double v, double step) {
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::abs(v) < 0.5 * step ? 0.0 : v);
  return buf;
}

/// Tick values over [lo, hi] (about five).
std::vector<double> ticks(double lo, double hi, double& step) {
  step = nice_step((hi - lo) / 5);
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step) out.push_back(t);
  return out;
}

/// The largest of 1, 2, 5 times a power of ten up to `x` > 0.
double nice_below(double x) {
  const double power = std::pow(10.0, std::floor(std::log10(x)));
  for (const double m : {5.0, 2.0, 1.0})
    if (m * power <= x * (1 + 1e-9)) return m * power;
  return power;
}

}  // namespace

double nice_step(double x) {
  const double power = std::pow(10.0, std::floor(std::log10(x)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= x * (1 - 1e-9)) return m * power;
  return 10 * power;
}

Image annotated(const DensityMap& map, const Image& picture, const Colormap& colormap, double decades,
                const Labels& labels) {
  const int n = picture.width;
  Image out(kLeft + n + kRight, kTop + n + kBottom, kPaper);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) out.at(kLeft + x, kTop + y) = picture.at(x, y);
  // Frame.
  fill(out, kLeft - 1, kTop - 1, n + 2, 1, kInk), fill(out, kLeft - 1, kTop + n, n + 2, 1, kInk);
  fill(out, kLeft - 1, kTop - 1, 1, n + 2, kInk), fill(out, kLeft + n, kTop - 1, 1, n + 2, kInk);

  const Font& font = label_font();
  const double half = 0.5 * map.width * labels.length_scale;
  const char names[3][2] = {{'y', 'z'}, {'z', 'x'}, {'x', 'y'}};  // right-handed: x -> (y, z), ...
  const auto& kept = names[labels.axis - 'x'];
  // Axes: ticks and labels along the bottom (first coordinate) and the left (second).
  for (int a = 0; a < 2; ++a) {
    const double c = labels.centre[a] * labels.length_scale, lo = c - half, hi = c + half;
    double step = 0;
    for (const double t : ticks(lo, hi, step)) {
      const int along = static_cast<int>(std::lround((t - lo) / (hi - lo) * (n - 1)));
      const std::string text = tick_text(t, step);
      if (a == 0) {
        fill(out, kLeft + along, kTop + n, 1, kTick, kInk);
        draw_text(out, kLeft + along - text_width(text) / 2, kTop + n + kTick + 1, text, kInk);
      } else {
        const int y = kTop + (n - 1 - along);
        fill(out, kLeft - kTick, y, kTick, 1, kInk);
        draw_text(out, kLeft - kTick - 3 - text_width(text), y - font.line_height / 2, text, kInk);
      }
    }
  }
  const std::string first = std::string(1, kept[0]) + " (" + labels.length_unit + ")";
  const std::string second = std::string(1, kept[1]) + " (" + labels.length_unit + ")";
  draw_text(out, kLeft + n / 2 - text_width(first) / 2, kTop + n + kTick + font.line_height + 4, first, kInk);
  draw_text(out, std::max(2, kLeft - text_width(second) / 2), 4, second, kInk);

  // Scale bar, lower left on the map: about a fifth of the width.
  const double bar = nice_below(0.2 * 2 * half);
  const int bar_px = static_cast<int>(std::lround(bar / (2 * half) * n));
  if (bar_px < n / 2) {
    char text[64];
    std::snprintf(text, sizeof text, "%g %s", bar, labels.length_unit.c_str());
    const int x0 = kLeft + 14, y0 = kTop + n - 16;
    fill(out, x0, y0, bar_px, 3, kOnMap);
    // Centred on the bar, but never left of it (the map's edge: white on white would vanish).
    draw_text(out, x0 + std::max(0, bar_px / 2 - text_width(text) / 2), y0 - font.line_height - 2, text, kOnMap);
  }
  // The time, upper left on the map.
  if (!labels.time.empty()) draw_text(out, kLeft + 10, kTop + 8, labels.time, kOnMap);

  // Colour bar: log10 sigma from the peak down `decades`, in displayed units.
  const double peak = labels.peak > 0 ? labels.peak : *std::max_element(map.sigma.begin(), map.sigma.end());
  const double top = (peak > 0 ? std::log10(peak) : 0.0) + std::log10(labels.sigma_scale), bottom = top - decades;
  const int x0 = kLeft + n + kBarGap;
  for (int y = 0; y < n; ++y) fill(out, x0, kTop + y, kBarWidth, 1, colormap(1.0 - double(y) / double(n - 1)));
  fill(out, x0 - 1, kTop - 1, kBarWidth + 2, 1, kInk), fill(out, x0 - 1, kTop + n, kBarWidth + 2, 1, kInk);
  fill(out, x0 - 1, kTop - 1, 1, n + 2, kInk), fill(out, x0 + kBarWidth, kTop - 1, 1, n + 2, kInk);
  double step = 0;
  for (const double v : ticks(bottom, top, step)) {
    const int y = kTop + static_cast<int>(std::lround((top - v) / decades * (n - 1)));
    fill(out, x0 + kBarWidth, y, 4, 1, kInk);
    draw_text(out, x0 + kBarWidth + 6, y - font.line_height / 2, tick_text(v, step), kInk);
  }
  draw_text(out, x0 - 4, 4, "log10 Sigma", kInk);
  const std::string unit = "(" + labels.sigma_unit + ")";
  draw_text(out, std::min(x0 - 4, out.width - text_width(unit) - 2), kTop + n + kTick + 1, unit, kInk);
  return out;
}

}  // namespace orrery::render
