#include "orrery/io/crc64.hpp"

#include <array>

namespace orrery::io {
namespace {

constexpr std::array<std::uint64_t, 256> make_table() {
  constexpr std::uint64_t poly = 0xC96C5795D7870F42ULL;  // ECMA-182, reflected
  std::array<std::uint64_t, 256> t{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = make_table();

}  // namespace

std::uint64_t crc64(std::span<const std::byte> bytes, std::uint64_t crc) {
  crc = ~crc;
  for (const std::byte b : bytes) crc = kTable[(crc ^ static_cast<std::uint64_t>(b)) & 0xff] ^ (crc >> 8);
  return ~crc;
}

}  // namespace orrery::io
