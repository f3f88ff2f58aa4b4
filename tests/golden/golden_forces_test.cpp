// Golden forces: the accelerations, potentials and interaction counters of
// every solver on 64K Plummer and Hernquist particles, as CRC-64 hashes of
// the output bytes, recorded from the commit before the Barnes-Hut
// restructuring (issue 14) and reproduced bit for bit by every later commit.
//
// The goldens are keyed by a hash of the input: the initial conditions use
// libm (sin, cos, asin), whose last bits may differ between C libraries, so
// a machine with another libm gets other inputs and needs goldens of its own
// (the file holds those of CI's Debian 12 and of the H200 host's Ubuntu 24.04).
// A case with no golden for this machine's input fails, naming the input hash.
//
// Two executables run these cases: orrery_golden_test the CPU ones (CI),
// orrery_golden_gpu_test the CUDA ones (label gpu; skipped without a device).
//
// To record (only from a commit whose results are the reference):
//   ORRERY_GOLDEN_RECORD=/tmp/new.txt orrery_golden_test
// appends one line per case to that file; merge it into forces_64k.txt.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/io/crc64.hpp"

namespace orrery {
namespace {

constexpr std::int64_t kCount = 65536;

struct Case {
  std::string name;  // model/solver/backend/... ; unique
  std::string model;  // plummer | hernquist
  gravity::GravityConfig config;
  bool steady = false;  // relative opening: a second solve with the first one's accelerations
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

template <class T>
std::uint64_t hash_of(const std::vector<T>& v) {
  return io::crc64(std::as_bytes(std::span(v)));
}

template <class Real>
struct Input {
  std::vector<Real> x, y, z, m;
  std::uint64_t hash = 0;
};

template <class Real>
const Input<Real>& input(const std::string& model) {
  static std::map<std::string, Input<Real>> cache;
  auto it = cache.find(model);
  if (it != cache.end()) return it->second;
  const Particles<double> p = model == "plummer" ? ic::plummer_sphere(kCount, 20261202) : ic::hernquist_sphere(kCount, 20261203);
  Input<Real> in;
  for (std::int64_t i = 0; i < p.size(); ++i) {
    in.x.push_back(static_cast<Real>(p.x[i]));
    in.y.push_back(static_cast<Real>(p.y[i]));
    in.z.push_back(static_cast<Real>(p.z[i]));
    in.m.push_back(static_cast<Real>(p.mass[i]));
  }
  in.hash = io::crc64(std::as_bytes(std::span(in.z)), io::crc64(std::as_bytes(std::span(in.y)),
                      io::crc64(std::as_bytes(std::span(in.x)), io::crc64(std::as_bytes(std::span(in.m))))));
  return cache.emplace(model, std::move(in)).first->second;
}

std::string hex(std::uint64_t h) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::string hexfloat(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

/// One case's result as the golden file's fields (after "input=... case=...").
template <class Real>
std::string evaluate(const Case& c, std::uint64_t& input_hash) {
  const Input<Real>& in = input<Real>(c.model);
  input_hash = in.hash;
  auto solver = gravity::make_solver<Real>(c.config);
  const SourcesView<Real> s{kCount, in.x.data(), in.y.data(), in.z.data(), in.m.data()};
  Accelerations<Real> a(kCount);
  gravity::SolveOptions o;
  o.potential = true;
  o.per_target_counts = c.config.solver == "tree";
  SolverReport r = solver->solve(s, a.view(), o);
  if (c.steady) {
    o.previous_accelerations = true;
    r = solver->solve(s, a.view(), o);
  }
  std::vector<std::uint64_t> counts;
  for (const auto& t : r.per_target) {
    counts.push_back(t.node_visits);
    counts.push_back(t.cell_interactions);
    counts.push_back(t.particle_interactions);
  }
  std::ostringstream out;
  out << "ax=" << hex(hash_of(a.ax)) << " ay=" << hex(hash_of(a.ay)) << " az=" << hex(hash_of(a.az))
      << " pot=" << hex(hash_of(a.potential)) << " counts=" << hex(hash_of(counts)) << " totals="
      << r.total.node_visits << "/" << r.total.cell_interactions << "/" << r.total.particle_interactions
      << " sample=" << hexfloat(a.ax[0]) << "," << hexfloat(a.ay[kCount / 2]) << "," << hexfloat(a.potential[kCount - 1]);
  return out.str();
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const std::string model : {"plummer", "hernquist"}) {
    const auto add = [&](const std::string& name, gravity::GravityConfig g, bool steady = false) {
      cases.push_back({model + "/" + name, model, g, steady});
    };
    gravity::GravityConfig base;
    base.softening = 0.05;
    {
      auto g = base;
      g.solver = "reference";
      add("reference/cpu", g);
    }
    for (const std::string backend : {ORRERY_GOLDEN_BACKEND}) {
      for (const MathMode math : {MathMode::fast, MathMode::exact}) {
        const std::string m(to_string(math));
        auto g = base;
        g.backend = backend;
        g.math = math;
        g.solver = "direct";
        add("direct/" + backend + "/" + m, g);
        g.solver = "tree";
        const std::vector<std::string> traversals =
            backend == "cuda" ? std::vector<std::string>{"coherent", "independent"} : std::vector<std::string>{"-"};
        for (const auto& trav : traversals) {
          if (trav != "-") g.traversal = trav;
          const std::string tb = backend + (trav == "-" ? "" : "/" + trav) + "/" + m;
          for (const int order : {1, 2}) {
            g.multipole_order = order;
            const std::string mp = order == 1 ? "monopole" : "quadrupole";
            g.opening = bh::Opening::geometric;
            g.theta = 0.5;
            g.leaf_capacity = 16;
            add("tree/" + tb + "/" + mp + "/geometric", g);
            g.opening = bh::Opening::relative;
            g.theta = 1.0;
            g.tolerance = 0.0055;
            g.leaf_capacity = 32;
            add("tree/" + tb + "/" + mp + "/relative/bootstrap", g);
            add("tree/" + tb + "/" + mp + "/relative/steady", g, true);
          }
        }
        if (math == MathMode::exact) {  // the spline kernel and double precision, on one configuration each
          auto h = base;
          h.backend = backend;
          h.math = math;
          h.solver = "tree";
          h.softening_kernel = SofteningKind::spline;
          h.multipole_order = 2;
          add("tree/" + backend + "/exact/quadrupole/geometric/spline", h);
          h.softening_kernel = SofteningKind::plummer;
          h.precision = gravity::Precision::double_;
          add("tree/" + backend + "/exact/quadrupole/geometric/double", h);
          h.opening = bh::Opening::relative;
          h.theta = 1.0;
          h.tolerance = 0.0055;
          add("tree/" + backend + "/exact/monopole/relative/double", h, true);
          h.multipole_order = 1;
          h.opening = bh::Opening::geometric;
          h.solver = "direct";
          add("direct/" + backend + "/exact/double", h);
        }
      }
    }
  }
  return cases;
}

/// golden[input hash + " " + case name] = fields.
std::map<std::string, std::string> read_goldens() {
  std::map<std::string, std::string> g;
  std::ifstream f(ORRERY_GOLDEN_FILE);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string in, name;
    is >> in >> name;
    std::string rest;
    std::getline(is, rest);
    g[in + " " + name] = rest.substr(rest.find_first_not_of(' '));
  }
  return g;
}

class GoldenForces : public ::testing::TestWithParam<Case> {};

TEST_P(GoldenForces, ReproducesTheRecordedBits) {
  const Case& c = GetParam();
  if (c.config.backend == "cuda") {
    const auto built = gravity::available_solvers();
    if (std::find(built.begin(), built.end(), "tree/cuda") == built.end()) GTEST_SKIP() << "built without CUDA";
    try {
      gravity::make_solver<float>(c.config);
    } catch (const InputError& e) {
      GTEST_SKIP() << "no CUDA device: " << e.what();
    }
  }
  std::uint64_t in = 0;
  const std::string got = c.config.precision == gravity::Precision::double_ ? evaluate<double>(c, in) : evaluate<float>(c, in);
  const std::string key = "input=" + hex(in) + " " + c.name;
  if (const char* record = std::getenv("ORRERY_GOLDEN_RECORD"); record != nullptr && *record != 0) {
    std::ofstream(record, std::ios::app) << key << " " << got << "\n";
    GTEST_SKIP() << "recorded to " << record;
  }
  static const auto goldens = read_goldens();
  const auto it = goldens.find(key);
  ASSERT_NE(it, goldens.end()) << "no golden for " << key << " in " << ORRERY_GOLDEN_FILE
                               << " (this machine's input hash; record it from the reference commit)";
  EXPECT_EQ(got, it->second) << c.name;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = info.param.name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, GoldenForces, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace orrery
