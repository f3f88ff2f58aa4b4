#pragma once
// A movie of a run's pictures (`orrery render --movie DIR`): an animated PNG
// written here (APNG: every browser and most viewers play it, no encoder
// needed), or MP4 through ffmpeg when it is installed (Debian: apt-get
// install ffmpeg).
#include <filesystem>
#include <vector>

#include "orrery/render/image.hpp"

namespace orrery::render {

/// Writes `frames` (all of one size, at least one) as an animated PNG looping
/// forever at `fps` frames per second, atomically. InputError naming the file
/// when it cannot be written.
void write_apng(const std::filesystem::path& path, const std::vector<Image>& frames, int fps);

/// Encodes `frames` to `path` (e.g. .mp4) with ffmpeg (H.264, yuv420p) at
/// `fps`. InputError saying so when ffmpeg is not on PATH or fails.
void write_ffmpeg(const std::filesystem::path& path, const std::vector<Image>& frames, int fps);

/// Whether an `ffmpeg` executable is on PATH.
bool have_ffmpeg();

}  // namespace orrery::render
