#include "orrery/bh/device_tree_copy.hpp"

#include <span>
#include <vector>

namespace orrery::bh {

template <class Real>
void DeviceTreeCopy<Real>::upload(const bh::Octree<Real>& t, cuda::StreamHandle s) {
  upload_arrays(t, static_cast<std::int64_t>(t.x.size()), true, s);
}

template <class Real>
void DeviceTreeCopy<Real>::upload_nodes(const bh::Octree<Real>& t, std::int64_t num_particles, cuda::StreamHandle s) {
  upload_arrays(t, num_particles, false, s);
  for (auto* b : {&arrays_.x, &arrays_.y, &arrays_.z, &arrays_.m}) b->fit(static_cast<std::size_t>(num_particles));
}

template <class Real>
void DeviceTreeCopy<Real>::upload_arrays(const bh::Octree<Real>& t, std::int64_t num_particles, bool with_particles,
                                         cuda::StreamHandle s) {
  num_nodes_ = t.num_nodes();
  multipole_ = t.view().multipole;
  num_particles_ = num_particles;
  params_ = t.params;
  for_each_array(
      [&]<class T>(TreeArray kind, cuda::DeviceBuffer<T>& dst, const std::vector<T>& src) {
        if (kind == TreeArray::particle && !with_particles) return;
        dst.fit(src.size());  // the block is kept when it holds the new size: a tree's sizes change a little
        staged_.add(dst.data(), src.data(), src.size() * sizeof(T));
      },
      arrays_, t);
  staged_.run(s);
}

template <class Real>
bh::OctreeView<Real> DeviceTreeCopy<Real>::view() const {
  return arrays_.view(num_nodes_, num_particles_, multipole_, !arrays_.crit_rel.empty(), params_);
}

template <class Real>
std::size_t DeviceTreeCopy<Real>::device_bytes() const {
  std::size_t b = 0;
  for_each_array([&b](TreeArray, const auto& buf) { b += buf.bytes(); }, arrays_);
  return b;
}

template class DeviceTreeCopy<float>;
template class DeviceTreeCopy<double>;

}  // namespace orrery::bh
