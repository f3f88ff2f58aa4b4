#include "orrery/io/snapshot_softening.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace orrery::io {
namespace {

constexpr int kTypes = 6;

std::string class_name(const char* what, int n) { return std::string(what) + std::to_string(n); }

}  // namespace

void write_softening_classes(const h5::Where& w, hid_t g, double softening, const SofteningPerType& per_type) {
  const int classes = per_type ? kTypes : 1;
  for (int c = 0; c < classes; ++c) {
    const double eps = per_type ? (*per_type)[c] : softening;
    h5::write_attr(w, g, class_name("SofteningComovingClass", c).c_str(), eps);
    h5::write_attr(w, g, class_name("SofteningMaxPhysClass", c).c_str(), eps);
  }
  for (int t = 0; t < kTypes; ++t)
    h5::write_attr(w, g, class_name("SofteningClassOfPartType", t).c_str(), std::int32_t{per_type ? t : 0});
}

SofteningPerType read_softening_classes(const h5::Where& w, hid_t g) {
  std::array<double, kTypes> eps{};
  for (int t = 0; t < kTypes; ++t) {
    const std::string of_type = class_name("SofteningClassOfPartType", t);
    if (!h5::has_attr(g, of_type.c_str())) return std::nullopt;
    const auto c = h5::read_attr_u64(w, g, "Parameters", of_type.c_str(), 1)[0];
    const std::string name = class_name("SofteningComovingClass", static_cast<int>(c));
    if (!h5::has_attr(g, name.c_str()))
      w.fail("Parameters." + of_type, "names softening class " + std::to_string(c) + ", but Parameters." + name +
                                          " is missing; accepted: a class whose SofteningComovingClass is stored");
    eps[t] = h5::read_attr_f64(w, g, "Parameters", name.c_str(), 1)[0];
    if (!(eps[t] >= 0) || !std::isfinite(eps[t]))
      w.fail("Parameters." + name, "softening " + std::to_string(eps[t]) + " is not accepted; accepted: a finite number >= 0");
  }
  for (const double e : eps)
    if (e != eps[0]) return eps;
  return std::nullopt;
}

}  // namespace orrery::io
