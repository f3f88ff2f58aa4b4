#pragma once
// CRC-64/XZ (ECMA-182 polynomial, reflected; the check of xz and of many
// archive formats): detects every burst error up to 64 bits and all but
// 2^-64 of random corruption. Used over the whole payload of a checkpoint.
#include <cstddef>
#include <cstdint>
#include <span>

namespace orrery::io {

/// CRC of `bytes`, continuing from `crc` (0 to start). crc64("123456789") = 0x995DC9BBDF1939FA.
std::uint64_t crc64(std::span<const std::byte> bytes, std::uint64_t crc = 0);

}  // namespace orrery::io
