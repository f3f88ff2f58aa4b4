#include "orrery/bh/device_tree_copy.hpp"

#include <span>
#include <vector>

namespace orrery::bh {
namespace {

template <class T>
void put(cuda::DeviceBuffer<T>& dst, const std::vector<T>& src, cuda::StreamHandle stream) {
  dst.resize(src.size());
  dst.upload(std::span<const T>(src), stream);
}

}  // namespace

template <class Real>
void DeviceTreeCopy<Real>::upload(const bh::Octree<Real>& t, cuda::StreamHandle s) {
  num_nodes_ = t.num_nodes();
  num_particles_ = static_cast<std::int64_t>(t.x.size());
  put(key_, t.key, s);
  put(level_, t.level, s);
  put(first_, t.first, s);
  put(count_, t.count, s);
  put(next_, t.next, s);
  put(order_, t.order, s);
  put(mass_, t.mass, s);
  put(com_x_, t.com_x, s);
  put(com_y_, t.com_y, s);
  put(com_z_, t.com_z, s);
  put(crit2_, t.crit2, s);
  put(quad_, t.quad, s);
  put(crit_rel_, t.crit_rel, s);
  put(x_, t.x, s);
  put(y_, t.y, s);
  put(z_, t.z, s);
  put(m_, t.m, s);
}

template <class Real>
bh::OctreeView<Real> DeviceTreeCopy<Real>::view() const {
  return {num_nodes_,     num_particles_,  key_.data(),   level_.data(), first_.data(),
          count_.data(),  next_.data(),    mass_.data(),  com_x_.data(), com_y_.data(),
          com_z_.data(),  crit2_.data(),   quad_.empty() ? nullptr : quad_.data(),
          x_.data(),      y_.data(),       z_.data(),     m_.data(),
          crit_rel_.empty() ? nullptr : crit_rel_.data()};
}

template <class Real>
std::size_t DeviceTreeCopy<Real>::device_bytes() const {
  std::size_t b = key_.bytes() + level_.bytes() + first_.bytes() + count_.bytes() + next_.bytes() + order_.bytes();
  for (const auto* buf : {&mass_, &com_x_, &com_y_, &com_z_, &crit2_, &quad_, &crit_rel_, &x_, &y_, &z_, &m_}) b += buf->bytes();
  return b;
}

template class DeviceTreeCopy<float>;
template class DeviceTreeCopy<double>;

}  // namespace orrery::bh
