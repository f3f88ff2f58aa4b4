#pragma once
// A vector a rank keeps across solves and overwrites whole each time (the
// walk's results, the sort's spare field): its size follows the rank's
// particle count, which moves by a little every migration.
#include <cstddef>
#include <vector>

namespace orrery::mpi {

/// Makes v.size() n, for the caller to overwrite every element: the old
/// contents are not kept where the storage must grow. Past the capacity the
/// old storage is freed first (never two copies held at once, none copied)
/// and the new one has 1/64 room, so that a count that grows a little each
/// step does not reallocate (and zero-fill, on one thread) each step.
template <class T>
void resize_for_overwrite(std::vector<T>& v, std::size_t n) {
  if (n > v.capacity()) {
    v = std::vector<T>();
    v.reserve(n + n / 64);
  }
  v.resize(n);
}

}  // namespace orrery::mpi
