#pragma once
// numpy arrays in and out of the library's structure-of-arrays particles.
//
// Inputs arrive as C-contiguous CPU arrays of the run's dtype: the Python
// layer (orrery/_arrays.py) converts with numpy.ascontiguousarray and checks
// shapes first, so that its messages name the argument. Outputs are either
// new arrays that own their memory (a moved std::vector kept alive by a
// capsule) or read-only views of memory owned by a Python object.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include <nanobind/ndarray.h>

namespace orrery::python {

namespace nb = nanobind;

/// (N, 3) rows: positions, velocities.
template <class Real>
using Rows3 = nb::ndarray<const Real, nb::shape<-1, 3>, nb::c_contig, nb::device::cpu>;
/// (N,) values: masses, ids.
template <class T>
using Column = nb::ndarray<const T, nb::shape<-1>, nb::c_contig, nb::device::cpu>;

/// A numpy array that owns `values` (moved, not copied), with the given shape
/// (whose product must be values.size()).
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& values, std::initializer_list<std::size_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owned->data(), shape, owner);
}

/// A read-only numpy view of `values`; `owner` keeps the memory alive and
/// must outlive any resizing of the vector (the owners here never resize).
template <class T>
nb::ndarray<nb::numpy, const T, nb::ndim<1>> view(const std::vector<T>& values, nb::handle owner) {
  return nb::ndarray<nb::numpy, const T, nb::ndim<1>>(values.data(), {values.size()}, owner);
}

/// Copies (N, 3) rows into three columns.
template <class Real>
void split_rows(const Rows3<Real>& rows, std::vector<Real>& x, std::vector<Real>& y, std::vector<Real>& z) {
  const std::size_t n = rows.shape(0);
  const Real* r = rows.data();
  x.resize(n);
  y.resize(n);
  z.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = r[3 * i];
    y[i] = r[3 * i + 1];
    z[i] = r[3 * i + 2];
  }
}

/// A new (N, 3) numpy array holding the columns as rows.
template <class Real>
nb::ndarray<nb::numpy, Real> join_columns(const std::vector<Real>& x, const std::vector<Real>& y,
                                          const std::vector<Real>& z) {
  std::vector<Real> rows(3 * x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    rows[3 * i] = x[i];
    rows[3 * i + 1] = y[i];
    rows[3 * i + 2] = z[i];
  }
  return to_numpy(std::move(rows), {x.size(), 3});
}

/// Copies a column into a vector.
template <class T>
std::vector<T> to_vector(const Column<T>& column) {
  return std::vector<T>(column.data(), column.data() + column.shape(0));
}

}  // namespace orrery::python
