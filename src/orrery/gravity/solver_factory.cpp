#include "orrery/gravity/solver_factory.hpp"

#include <optional>
#include <span>
#include <string_view>

#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/per_type_softening.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "orrery/gravity/tree_solver.hpp"
#if defined(ORRERY_HAVE_CUDA)
#include "orrery/cuda/device.hpp"
#include "orrery/gravity/direct_gpu.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#endif

namespace orrery::gravity {

namespace {

template <class Real>
using SolverMaker = std::unique_ptr<ForceSolver<Real>> (*)(const GravityConfig&);
template <class Real>
using DeviceSolverMaker = std::unique_ptr<DeviceForceSolver<Real>> (*)(const GravityConfig&);

struct SolverEntry {
  std::string_view solver;
  std::string_view backend;
  SolverMaker<float> make_float;
  SolverMaker<double> make_double;
  bool (*available)() = nullptr;  // run-time check (e.g. a device present); null: always
  // The same solver as a DeviceForceSolver, for device-resident runs; null: host only.
  DeviceSolverMaker<float> make_device_float = nullptr;
  DeviceSolverMaker<double> make_device_double = nullptr;

  template <class Real, class F, class D>
  static auto of_precision(F for_float, D for_double) {
    if constexpr (sizeof(Real) == 4) {
      return for_float;
    } else {
      return for_double;
    }
  }
  template <class Real>
  SolverMaker<Real> maker() const {
    return of_precision<Real>(make_float, make_double);
  }
  template <class Real>
  DeviceSolverMaker<Real> device_maker() const {
    return of_precision<Real>(make_device_float, make_device_double);
  }
  bool usable() const { return available == nullptr || available(); }
};

/// The softening per type a CPU solver takes: none when every type has gravity.softening.
std::optional<SofteningClasses> per_type(const GravityConfig& c) {
  if (!c.per_type_softening()) return std::nullopt;
  return c.softening_classes();
}

template <class Real>
std::unique_ptr<ForceSolver<Real>> make_reference(const GravityConfig& c) {
  return std::make_unique<ReferenceSolver<Real>>(c.softening_kernel, c.softening, per_type(c));
}

template <class Real>
std::unique_ptr<ForceSolver<Real>> make_tree_cpu(const GravityConfig& c) {
  return std::make_unique<gravity::TreeSolver<Real>>(gravity::tree_solver_config(c));
}

#if defined(ORRERY_HAVE_CUDA)
template <class Real>
std::unique_ptr<ForceSolver<Real>> make_tree_cuda(const GravityConfig& c) {
  return make_gpu_tree_solver<Real>(c);
}

template <class Real>
std::unique_ptr<DeviceForceSolver<Real>> make_tree_cuda_device(const GravityConfig& c) {
  return make_gpu_tree_solver<Real>(c);
}
#endif

template <class Real>
std::unique_ptr<ForceSolver<Real>> make_direct_cpu(const GravityConfig& c) {
  return make_softened<DirectSolver, ForceSolver<Real>>(c.softening_kernel, static_cast<Real>(c.softening), per_type(c));
}

// The backends that compute a softening per type (docs/softening.md).
constexpr std::string_view kPerTypeBackend = "cpu";

// What this build provides, in order of preference within a backend.
// To add a solver: one line {"name", "backend", &make<float>, &make<double>[, &available]}.
#define ORRERY_SOLVER(name, backend, maker) {name, backend, &maker<float>, &maker<double>}
constexpr SolverEntry kSolvers[] = {
    ORRERY_SOLVER("reference", "cpu", make_reference),
    ORRERY_SOLVER("direct", "cpu", make_direct_cpu),
    ORRERY_SOLVER("tree", "cpu", make_tree_cpu),
#if defined(ORRERY_HAVE_CUDA)
    // CUDA solvers register here, with a device check:
    {"direct", "cuda", &make_direct_cuda<float>, &make_direct_cuda<double>, &cuda::device_available,
     &make_direct_cuda_device<float>, &make_direct_cuda_device<double>},
    {"tree", "cuda", &make_tree_cuda<float>, &make_tree_cuda<double>, &cuda::device_available,
     &make_tree_cuda_device<float>, &make_tree_cuda_device<double>},
#endif
};
#undef ORRERY_SOLVER

constexpr std::string_view kAutoOrder[] = {"cuda", "cpu"};

bool backend_compiled(std::string_view backend) {
  for (const auto& e : kSolvers) {
    if (e.backend == backend) return true;
  }
  return false;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string joined_available() {
  std::string out;
  for (const auto& name : available_solvers()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

const SolverEntry* find(std::string_view solver, std::string_view backend) {
  for (const auto& e : kSolvers) {
    if (e.solver == solver && e.backend == backend) return &e;
  }
  return nullptr;
}

const SolverEntry& choose(const GravityConfig& c) {
  const bool per_type = c.per_type_softening();
  if (per_type && c.backend != "auto" && c.backend != kPerTypeBackend) refuse_per_type_softening(c.solver + "/" + c.backend);
  if (c.backend == "auto") {
    for (auto backend : kAutoOrder) {
      // auto picks a backend that computes what was asked for.
      if (per_type && backend != kPerTypeBackend) continue;
      const SolverEntry* e = find(c.solver, backend);
      if (e != nullptr && e->usable()) return *e;
    }
    throw InputError("gravity.solver = " + quoted(c.solver) + " is not available on any backend of this build; accepted: " +
                     joined_available());
  }
  if (c.backend == "cuda" && !backend_compiled("cuda")) {
    throw InputError("gravity.backend = \"cuda\" is not available in this build (compiled without CUDA); accepted: cpu, auto");
  }
  const SolverEntry* e = find(c.solver, c.backend);
  if (e == nullptr) {
    throw InputError("gravity.solver = " + quoted(c.solver) + " with gravity.backend = " + quoted(c.backend) +
                     " is not available in this build; accepted (solver/backend): " + joined_available());
  }
  if (!e->usable()) {
    throw InputError("gravity.backend = " + quoted(c.backend) + ": no usable device found at run time; accepted: cpu, auto");
  }
  return *e;
}

}  // namespace

std::vector<std::string> available_solvers() {
  std::vector<std::string> out;
  for (const auto& e : kSolvers) out.push_back(std::string(e.solver) + "/" + std::string(e.backend));
  return out;
}

template <class Real>
std::unique_ptr<ForceSolver<Real>> make_solver(const GravityConfig& config) {
  return choose(config).template maker<Real>()(config);
}

template std::unique_ptr<ForceSolver<float>> make_solver<float>(const GravityConfig&);
template std::unique_ptr<ForceSolver<double>> make_solver<double>(const GravityConfig&);

template <class Real>
std::unique_ptr<DeviceForceSolver<Real>> make_device_solver(const GravityConfig& config) {
  const auto maker = choose(config).template device_maker<Real>();
  return maker == nullptr ? nullptr : maker(config);
}

template std::unique_ptr<DeviceForceSolver<float>> make_device_solver<float>(const GravityConfig&);
template std::unique_ptr<DeviceForceSolver<double>> make_device_solver<double>(const GravityConfig&);

}  // namespace orrery::gravity
