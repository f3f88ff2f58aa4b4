#include "orrery/mpi/target_split.hpp"

#include <algorithm>
#include <string>

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/morton.hpp"
#include "orrery/bh/radix_sort.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::mpi {
namespace {
// Exact products of a work sum (< 2^63) and a rank count.
__extension__ typedef unsigned __int128 Wide;
}  // namespace

template <class Real>
std::vector<std::int64_t> morton_order(const SourcesView<Real>& s) {
  const std::int64_t n = s.count;
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  if (n == 0) return order;
  // min/max are exact whatever the order: the cube is the same on every rank.
  double lo[3] = {s.x[0], s.y[0], s.z[0]}, hi[3] = {s.x[0], s.y[0], s.z[0]};
  for (std::int64_t i = 0; i < n; ++i) {
    const double p[3] = {s.x[i], s.y[i], s.z[i]};
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], p[d]);
      hi[d] = std::max(hi[d], p[d]);
    }
  }
  const bh::Cube cube = bh::cube_from_box(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n)), sorted;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) keys[i] = bh::position_key(s.x[i], s.y[i], s.z[i], cube);
  std::vector<std::int32_t> by_key;
  bh::sort_by_key(keys, sorted, by_key);
  for (std::int64_t k = 0; k < n; ++k) order[k] = by_key[k];
  return order;
}

std::vector<std::int64_t> subset_in_order(std::span<const std::int64_t> by_key, std::span<const std::int64_t> subset) {
  std::vector<std::int64_t> place(by_key.size(), -1), order;
  for (std::size_t k = 0; k < subset.size(); ++k) {
    auto& p = place[static_cast<std::size_t>(subset[k])];
    if (p >= 0) throw InputError(gravity::target_listed_twice(subset[k], static_cast<std::int64_t>(k)));
    p = static_cast<std::int64_t>(k);
  }
  order.reserve(subset.size());
  for (const auto i : by_key)
    if (place[static_cast<std::size_t>(i)] >= 0) order.push_back(place[static_cast<std::size_t>(i)]);
  return order;
}

namespace {

template <class Work>
std::vector<std::int64_t> cuts_of(std::span<const Work> work, int parts) {
  if (parts < 1) throw InputError("a split into " + std::to_string(parts) + " parts; accepted: at least 1");
  const auto n = static_cast<std::int64_t>(work.size());
  Wide total = 0;
  for (const auto w : work) total += w;
  std::vector<std::int64_t> cuts(static_cast<std::size_t>(parts) + 1, n);
  cuts[0] = 0;
  if (total == 0) {
    for (int r = 1; r < parts; ++r) cuts[r] = static_cast<std::int64_t>((static_cast<Wide>(n) * r) / parts);
    return cuts;
  }
  // cuts[r] is the first k with prefix(k) * parts >= r * total.
  Wide prefix = 0;
  int r = 1;
  for (std::int64_t k = 0; k <= n && r < parts; ++k) {
    while (r < parts && prefix * static_cast<unsigned>(parts) >= total * static_cast<unsigned>(r)) cuts[r++] = k;
    if (k < n) prefix += work[static_cast<std::size_t>(k)];
  }
  return cuts;
}

}  // namespace

std::vector<std::int64_t> balanced_cuts(std::span<const std::uint32_t> work, int parts) {
  return cuts_of(work, parts);
}
std::vector<std::int64_t> balanced_cuts(std::span<const std::uint64_t> work, int parts) {
  return cuts_of(work, parts);
}

template std::vector<std::int64_t> morton_order(const SourcesView<float>&);
template std::vector<std::int64_t> morton_order(const SourcesView<double>&);

}  // namespace orrery::mpi
