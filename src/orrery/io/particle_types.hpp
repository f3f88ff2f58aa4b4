#pragma once
// GADGET particle types (PartType0..5) over Orrery's single particle array.
//
// Orrery keeps the particles in file order for the whole run (no solver
// reorders them), so a type is a contiguous range: PartType0 first, then 1,
// ... 5. The six counts say where each type's range is; they travel with the
// particles from the initial snapshot into every snapshot and checkpoint. All
// types feel and make the same gravity, with one softening or a softening
// per type (core/softening_classes.hpp, docs/softening.md).
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"

namespace orrery::io {

inline constexpr int kParticleTypes = 6;  // GADGET's NTYPES: yt indexes a 6-tuple

struct ParticleTypes {
  std::array<std::uint64_t, kParticleTypes> count{};  // all zero: every particle is PartType1

  /// All n particles in PartType1 (collisionless: what Orrery's generators make).
  static ParticleTypes collisionless(std::uint64_t n) {
    ParticleTypes t;
    t.count[1] = n;
    return t;
  }
  std::uint64_t total() const {
    std::uint64_t n = 0;
    for (const auto c : count) n += c;
    return n;
  }
  std::uint64_t first(int type) const {
    std::uint64_t n = 0;
    for (int t = 0; t < type; ++t) n += count[t];
    return n;
  }
  /// These counts, or all in PartType1 when none are set; InputError when they
  /// do not add up to the `n` particles being written.
  ParticleTypes resolved(std::uint64_t n, const std::string& context) const {
    if (total() == 0) return collisionless(n);
    if (total() != n)
      throw InputError(context + ": particle type counts add up to " + std::to_string(total()) + ", not to the " +
                       std::to_string(n) + " particles");
    return *this;
  }
  friend bool operator==(const ParticleTypes&, const ParticleTypes&) = default;
};

inline std::string type_group(int type) { return "PartType" + std::to_string(type); }

/// The counts as a checkpoint's named integers ("PartType0" ... "PartType5"), and back;
/// a checkpoint without them (written before types were kept) holds PartType1 only.
inline void put_types(const ParticleTypes& t, std::map<std::string, std::int64_t>& counters) {
  for (int k = 0; k < kParticleTypes; ++k) counters[type_group(k)] = static_cast<std::int64_t>(t.count[k]);
}
inline ParticleTypes types_from(const std::map<std::string, std::int64_t>& counters) {
  ParticleTypes t;
  for (int k = 0; k < kParticleTypes; ++k) {
    const auto it = counters.find(type_group(k));
    if (it != counters.end()) t.count[k] = static_cast<std::uint64_t>(it->second);
  }
  return t;
}

/// Rows [first, first + n) of each column.
template <class Real>
Particles<Real> slice(const Particles<Real>& p, std::uint64_t first, std::uint64_t n) {
  Particles<Real> out;
  const auto cut = [&](const auto& v) { return std::decay_t<decltype(v)>(v.begin() + first, v.begin() + first + n); };
  out.x = cut(p.x), out.y = cut(p.y), out.z = cut(p.z);
  out.vx = cut(p.vx), out.vy = cut(p.vy), out.vz = cut(p.vz);
  out.mass = cut(p.mass), out.id = cut(p.id);
  return out;
}

template <class Real>
Accelerations<Real> slice(const Accelerations<Real>& a, std::uint64_t first, std::uint64_t n) {
  Accelerations<Real> out;
  const auto cut = [&](const std::vector<Real>& v) {
    return v.empty() ? std::vector<Real>{} : std::vector<Real>(v.begin() + first, v.begin() + first + n);
  };
  out.ax = cut(a.ax), out.ay = cut(a.ay), out.az = cut(a.az), out.potential = cut(a.potential);
  return out;
}

/// Appends `b`'s rows to `a`.
template <class Real>
void append(Particles<Real>& a, const Particles<Real>& b) {
  const auto add = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  add(a.x, b.x), add(a.y, b.y), add(a.z, b.z), add(a.vx, b.vx), add(a.vy, b.vy), add(a.vz, b.vz);
  add(a.mass, b.mass), add(a.id, b.id);
}

template <class Real>
void append(Accelerations<Real>& a, const Accelerations<Real>& b) {
  const auto add = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  add(a.ax, b.ax), add(a.ay, b.ay), add(a.az, b.az), add(a.potential, b.potential);
}

}  // namespace orrery::io
