#include "orrery/mpi/index_order.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::mpi {

IndexOrder::IndexOrder(std::span<const std::uint64_t> index, Communicator comm)
    : comm_(comm), index_(index.begin(), index.end()), sorted_(index.size()) {
  std::iota(sorted_.begin(), sorted_.end(), std::size_t{0});
  std::sort(sorted_.begin(), sorted_.end(), [&](std::size_t a, std::size_t b) { return index_[a] < index_[b]; });
  std::vector<std::uint64_t> n = {static_cast<std::uint64_t>(index_.size())};
  comm_.sum(n);
  total_ = static_cast<std::int64_t>(n[0]);
}

IndexOrder::Piece IndexOrder::piece(std::int64_t begin, std::int64_t end) const {
  Piece p;
  p.begin = begin;
  p.end = end;
  const auto below = [&](std::uint64_t v) {
    return static_cast<std::size_t>(
        std::lower_bound(sorted_.begin(), sorted_.end(), v, [&](std::size_t k, std::uint64_t x) { return index_[k] < x; }) -
        sorted_.begin());
  };
  p.mine_begin = below(static_cast<std::uint64_t>(begin));
  p.mine_end = below(static_cast<std::uint64_t>(end));
  std::vector<std::uint64_t> mine(p.mine_end - p.mine_begin);
  for (std::size_t j = p.mine_begin; j < p.mine_end; ++j) mine[j - p.mine_begin] = index_[sorted_[j]];
  std::vector<std::int64_t> from;
  const std::vector<std::byte> got =
      comm_.gather_to_rank0(std::as_bytes(std::span<const std::uint64_t>(mine)), from);
  if (comm_.rank() != 0) return p;
  const std::size_t n = got.size() / sizeof(std::uint64_t);
  const auto width = static_cast<std::size_t>(end - begin);
  std::vector<char> seen(width, 0);
  p.place.resize(n);
  for (std::size_t q = 0; q < n; ++q) {
    std::uint64_t i;
    std::memcpy(&i, got.data() + q * sizeof(i), sizeof(i));
    const auto at = static_cast<std::int64_t>(i) - begin;
    p.place[q] = at;
    seen[static_cast<std::size_t>(at)] += 1;
  }
  for (std::size_t k = 0; k < width; ++k)
    if (seen[k] != 1)
      throw RuntimeFailure("particle index " + std::to_string(begin + static_cast<std::int64_t>(k)) + " is held by " +
                           std::to_string(int(seen[k])) +
                           " ranks; accepted: the indices 0 .. N-1 of one process's arrays, each on one rank");
  return p;
}

std::vector<std::byte> IndexOrder::gather(const Piece& piece, std::span<const std::byte> column, std::size_t width) const {
  std::vector<std::byte> bytes((piece.mine_end - piece.mine_begin) * width);
  for (std::size_t j = piece.mine_begin; j < piece.mine_end; ++j)
    std::memcpy(bytes.data() + (j - piece.mine_begin) * width, column.data() + sorted_[j] * width, width);
  std::vector<std::int64_t> from;
  const std::vector<std::byte> got = comm_.gather_to_rank0(bytes, from);
  std::vector<std::byte> out(comm_.rank() == 0 ? static_cast<std::size_t>(piece.end - piece.begin) * width : 0);
  for (std::size_t q = 0; q < piece.place.size(); ++q)
    std::memcpy(out.data() + static_cast<std::size_t>(piece.place[q]) * width, got.data() + q * width, width);
  return out;
}

}  // namespace orrery::mpi
