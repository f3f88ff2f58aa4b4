// The two opening criteria at matched accuracy on three distributions
// (issue 21, docs/performance/gpu_tree.md "Choosing the relative cap"): for
// each model, the geometric quadrupole over theta and the relative
// quadrupole over tolerance and cap (gravity.relative_cap), each row's
// median and 99th-percentile |da|/|a| against a double direct sum over every
// source at a sample of targets, and the interactions per target (particle
// + cell terms), which are the walk's cost and equal on the CPU and the GPU
// (contract 2). A relative row is the steady state: a first solve (the
// bootstrap, also reported) and a second one with its accelerations as
// a_old.
//
// Models (float, quadrupole, leaf capacity --leaf):
//   cube       ic::uniform_cube, [-3, 3]^3, masses U(0, 1) / N, eps 0.17
//   plummer    ic::plummer_sphere, eps 0.05
//   hernquist  ic::hernquist_sphere (truncation 100 scale radii), eps 0.05
//
// usage: opening_sweep_bench [--n N] [--targets K] [--models cube,plummer,hernquist] [--leaf L]
//                            [--thetas a,b,..] [--tolerances a,b,..] [--caps a,b,..] [--out FILE.csv]
//   threads: OMP_NUM_THREADS (counters and errors do not depend on them).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "issue21_inputs.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"

namespace {

using namespace orrery;

struct Args {
  std::int64_t n = 262144;
  std::int64_t targets = 4096;
  int leaf = 32;
  std::vector<std::string> models = {"cube", "plummer", "hernquist"};
  std::vector<double> thetas = {0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8};
  std::vector<double> tolerances = {0.001, 0.002, 0.004, 0.008, 0.016};
  std::vector<double> caps = {0.5, 0.6, 0.7};
  std::string out = "opening_sweep.csv";
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) v.push_back(item);
  return v;
}

std::vector<double> numbers(const std::string& s) {
  std::vector<double> v;
  for (const auto& t : split(s)) v.push_back(std::stod(t));
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--n") a.n = std::stoll(v);
    else if (k == "--targets") a.targets = std::stoll(v);
    else if (k == "--leaf") a.leaf = std::stoi(v);
    else if (k == "--models") a.models = split(v);
    else if (k == "--thetas") a.thetas = numbers(v);
    else if (k == "--tolerances") a.tolerances = numbers(v);
    else if (k == "--caps") a.caps = numbers(v);
    else if (k == "--out") a.out = v;
    else throw InputError("opening_sweep_bench: unknown option " + k +
                          "; accepted: --n --targets --models --leaf --thetas --tolerances --caps --out");
  }
  return a;
}

struct Model {
  Particles<float> p;
  double eps = 0;
};

Model make_model(const std::string& name, std::int64_t n) {
  return {ic::to_precision<float>(bench::issue21_distribution(name, n)), bench::issue21_softening(name)};
}

/// The reference accelerations at a spread sample of targets.
struct Reference {
  std::vector<std::int64_t> targets;
  std::vector<double> ax, ay, az;
};

Reference reference(const Model& m, std::int64_t count) {
  Reference r;
  const std::int64_t n = m.p.size();
  count = std::min(count, n);
  for (std::int64_t k = 0; k < count; ++k) r.targets.push_back(static_cast<std::int64_t>((k * 2654435761ull) % n));
  r.ax.resize(r.targets.size());
  r.ay.resize(r.targets.size());
  r.az.resize(r.targets.size());
  gravity::reference_accelerations_at(m.p.sources(), r.targets, SofteningKind::plummer, m.eps, r.ax.data(), r.ay.data(),
                                      r.az.data());
  return r;
}

struct Row {
  double median = 0, p99 = 0, cells = 0, parts = 0, walk_s = 0, bootstrap_s = 0;
};

void errors(const Reference& r, const Accelerations<float>& a, Row& row) {
  std::vector<double> e;
  for (std::size_t k = 0; k < r.targets.size(); ++k) {
    const auto i = r.targets[k];
    const double dx = a.ax[i] - r.ax[k], dy = a.ay[i] - r.ay[k], dz = a.az[i] - r.az[k];
    e.push_back(std::sqrt((dx * dx + dy * dy + dz * dz) / (r.ax[k] * r.ax[k] + r.ay[k] * r.ay[k] + r.az[k] * r.az[k])));
  }
  std::sort(e.begin(), e.end());
  row.median = e[e.size() / 2];
  row.p99 = e[std::min(e.size() - 1, static_cast<std::size_t>(0.99 * double(e.size())))];
}

void counts(const SolverReport& rep, std::int64_t n, Row& row) {
  row.cells = double(rep.total.cell_interactions) / double(n);
  row.parts = double(rep.total.particle_interactions) / double(n);
  for (const auto& [name, s] : rep.phase_seconds) {
    if (name == "walk") row.walk_s = s;
    if (name == "bootstrap walk") row.bootstrap_s = s;
  }
}

bh::TreeSolverConfig config(const Args& a, const Model& m, double theta) {
  bh::TreeSolverConfig c;
  c.tree.theta = theta;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.leaf_capacity = a.leaf;
  c.softening = m.eps;
  return c;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args a = parse(argc, argv);
  std::ofstream csv(a.out);
  csv << "model,n,criterion,theta,tolerance,cap,phase,median,p99,particles_per_target,cells_per_target,"
         "interactions_per_target,walk_s,bootstrap_walk_s\n";
  const auto line = [&](const std::string& model, const char* crit, double theta, double tol, double cap,
                        const char* phase, const Row& r) {
    std::printf("| %s | %s | %.2f | %.4g | %.2f | %s | %.2e | %.2e | %.0f + %.0f = %.0f | %.3f | %.3f |\n", model.c_str(),
                crit, theta, tol, cap, phase, r.median, r.p99, r.parts, r.cells, r.parts + r.cells, r.walk_s,
                r.bootstrap_s);
    std::fflush(stdout);
    csv << model << "," << a.n << "," << crit << "," << theta << "," << tol << "," << cap << "," << phase << ","
        << r.median << "," << r.p99 << "," << r.parts << "," << r.cells << "," << r.parts + r.cells << "," << r.walk_s
        << "," << r.bootstrap_s << "\n";
    csv.flush();
  };
  std::printf("| model | criterion | theta | tolerance | cap | evaluation | median | p99 | particle + cell per target "
              "| walk s | bootstrap walk s |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& name : a.models) {
    const Model m = make_model(name, a.n);
    const Reference r = reference(m, a.targets);
    Accelerations<float> acc(static_cast<std::size_t>(m.p.size()));
    for (const double theta : a.thetas) {
      gravity::TreeSolver<float> s(config(a, m, theta));
      Row row;
      counts(s.solve(m.p.sources(), acc.view()), m.p.size(), row);
      errors(r, acc, row);
      line(name, "geometric", theta, 0, 0, "-", row);
    }
    for (const double cap : a.caps) {
      for (const double tol : a.tolerances) {
        auto c = config(a, m, 1.0);
        c.tree.opening = bh::Opening::relative;
        c.tree.tolerance = tol;
        c.tree.relative_cap = cap;
        gravity::TreeSolver<float> s(c);
        Row boot, steady;
        counts(s.solve(m.p.sources(), acc.view()), m.p.size(), boot);
        errors(r, acc, boot);
        line(name, "relative", 1.0, tol, cap, "bootstrap", boot);
        counts(s.solve(m.p.sources(), acc.view(), {.previous_accelerations = true}), m.p.size(), steady);
        errors(r, acc, steady);
        line(name, "relative", 1.0, tol, cap, "steady", steady);
      }
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "opening_sweep_bench: %s\n", e.what());
  return 2;
}
