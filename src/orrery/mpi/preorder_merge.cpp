#include "orrery/mpi/preorder_merge.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "orrery/core/error.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {
namespace {

template <class Real>
std::pair<std::uint64_t, std::int32_t> cell(const NodeRecords<Real>& r, std::int64_t k) {
  return {r.key[k], r.level[k]};
}

std::string named(std::pair<std::uint64_t, std::int32_t> c) {
  return "(key " + std::to_string(c.first) + ", level " + std::to_string(c.second) + ")";
}

/// Node b (of rank rb) follows node a (of rank ra) in the held sequence but
/// not after it in pre-order: the same node twice, or a list out of order.
template <class Real>
[[noreturn]] void out_of_order(const NodeRecords<Real>& a, std::int64_t ka, int ra, const NodeRecords<Real>& b,
                               std::int64_t kb, int rb, int rank) {
  const auto ca = cell(a, ka), cb = cell(b, kb);
  if (ca == cb)
    throw RuntimeFailure("rank " + std::to_string(rank) + " holds node " + named(cb) + " from ranks " +
                         std::to_string(ra) + " and " + std::to_string(rb) + "; accepted: every node once");
  throw RuntimeFailure("rank " + std::to_string(rank) + ": node " + named(cb) + " of rank " + std::to_string(rb) +
                       " comes after node " + named(ca) + " of rank " + std::to_string(ra) +
                       ", before it in pre-order; accepted: each rank's nodes in pre-order (key, level), the ranks' "
                       "domains in rank order");
}

}  // namespace

template <class Real>
std::vector<NodeRun<Real>> preorder_runs(const NodeRecords<Real>& top, std::span<const NodeRecords<Real>* const> lists,
                                         int rank) {
  // The lists, one after the other, must be strictly increasing by (key,
  // level): each list in itself (on the rank's threads), and at the seams.
  const NodeRecords<Real>* before = nullptr;
  std::int64_t before_k = 0;
  int before_r = 0;
  for (std::size_t r = 0; r < lists.size(); ++r) {
    const NodeRecords<Real>& l = *lists[r];
    const std::int64_t n = l.size();
    std::int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n >= kParallelLoop)
    for (std::int64_t k = 1; k < n; ++k)
      if (!(cell(l, k - 1) < cell(l, k))) bad = std::min(bad, k);
    if (bad < n) out_of_order(l, bad - 1, static_cast<int>(r), l, bad, static_cast<int>(r), rank);
    if (n == 0) continue;
    if (before != nullptr && !(cell(*before, before_k) < cell(l, 0)))
      out_of_order(*before, before_k, before_r, l, 0, static_cast<int>(r), rank);
    before = &l, before_k = n - 1, before_r = static_cast<int>(r);
  }

  std::vector<NodeRun<Real>> runs;
  std::int64_t at = 0;
  const auto emit = [&](const NodeRecords<Real>& from, std::int64_t first, std::int64_t count, int origin) {
    if (count > 0) runs.push_back({&from, first, count, at, origin});
    at += count;
  };
  // The next list record not yet emitted: record k of list r.
  std::size_t r = 0;
  std::int64_t k = 0;
  std::int64_t last_top = -1;
  for (std::int64_t t = 0; t < top.size(); ++t) {
    if (top.complete[t] == 0) continue;  // a top leaf: its owner's list holds it
    if (last_top >= 0 && !(cell(top, last_top) < cell(top, t))) out_of_order(top, last_top, rank, top, t, rank, rank);
    last_top = t;
    const auto c = cell(top, t);
    // The list records before it, then it.
    for (; r < lists.size(); ++r, k = 0) {
      const NodeRecords<Real>& l = *lists[r];
      std::int64_t lo = k, hi = l.size();  // the first record at or after c
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (cell(l, mid) < c)
          lo = mid + 1;
        else
          hi = mid;
      }
      emit(l, k, lo - k, static_cast<int>(r));
      k = lo;
      if (lo < l.size()) {
        if (cell(l, lo) == c) out_of_order(top, t, rank, l, lo, static_cast<int>(r), rank);
        break;
      }
    }
    emit(top, t, 1, rank);
  }
  for (; r < lists.size(); ++r, k = 0) emit(*lists[r], k, lists[r]->size() - k, static_cast<int>(r));
  return runs;
}

template <class Real>
void copy_runs(std::span<const NodeRun<Real>> runs, NodeRecords<Real>& out, std::vector<int>& origin, bool rel,
               bool with_quad) {
  const std::int64_t n = runs.empty() ? 0 : runs.back().at + runs.back().count;
  out.resize_for_overwrite(n, rel, with_quad);  // the runs tile [0, n): every record is written
  resize_for_overwrite(origin, static_cast<std::size_t>(n));
  // Pieces of at most kParallelLoop records, so that one long run (a rank's
  // own subtrees) spreads over the threads.
  std::vector<NodeRun<Real>> pieces;
  for (const NodeRun<Real>& run : runs)
    for (std::int64_t d = 0; d < run.count; d += kParallelLoop)
      pieces.push_back({run.from, run.first + d, std::min(kParallelLoop, run.count - d), run.at + d, run.origin});
  const auto np = static_cast<std::int64_t>(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) if (n >= kParallelLoop)
  for (std::int64_t p = 0; p < np; ++p) {
    const NodeRun<Real>& piece = pieces[static_cast<std::size_t>(p)];
    out.set(piece.at, *piece.from, piece.first, piece.count);
    std::fill_n(origin.begin() + piece.at, piece.count, piece.origin);
  }
}

template std::vector<NodeRun<float>> preorder_runs(const NodeRecords<float>&, std::span<const NodeRecords<float>* const>,
                                                   int);
template std::vector<NodeRun<double>> preorder_runs(const NodeRecords<double>&,
                                                    std::span<const NodeRecords<double>* const>, int);
template void copy_runs(std::span<const NodeRun<float>>, NodeRecords<float>&, std::vector<int>&, bool, bool);
template void copy_runs(std::span<const NodeRun<double>>, NodeRecords<double>&, std::vector<int>&, bool, bool);

}  // namespace orrery::mpi
