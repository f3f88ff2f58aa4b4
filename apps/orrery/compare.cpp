// orrery compare [CONFIG.toml] [--set key=value ...] --against reference|direct|tree [--json]
//
// One force evaluation on the configured initial conditions with the
// configured solver and one with the solver named by --against (same
// softening, precision and tree parameters), then the relative acceleration
// error of the first against the second: the median, 90th and 99th
// percentiles and the maximum (the figures force-accuracy papers quote,
// GADGET-4's FORCETEST and SWIFT's force checks) and the RMS, and each
// solver's interaction counts and time.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/io/config.hpp"

namespace orrery::cli {

namespace {

struct CompareOptions {
  std::string config_file;
  std::vector<std::string> overrides;
  std::string against;
  bool json = false;
};

struct Evaluation {
  std::string name;
  SolverReport report;
  double seconds = 0;  // wall time of the solve call
  std::vector<double> ax, ay, az;
};

template <class Real>
Evaluation evaluate(const gravity::GravityConfig& g, const Particles<Real>& p) {
  auto solver = gravity::make_solver<Real>(g);
  Accelerations<Real> out(static_cast<std::size_t>(p.size()));
  const auto t0 = std::chrono::steady_clock::now();
  Evaluation e{solver->name(), solver->solve(p.sources(), out.view(), {.potential = false}), 0, {}, {}, {}};
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  e.ax.assign(out.ax.begin(), out.ax.end());
  e.ay.assign(out.ay.begin(), out.ay.end());
  e.az.assign(out.az.begin(), out.az.end());
  return e;
}

struct Errors {
  double rms = 0, median = 0, p90 = 0, p99 = 0, max = 0;
  std::int64_t compared = 0;  // targets with a non-zero reference acceleration
};

/// The q-quantile of sorted values by the nearest-rank rule (the smallest value
/// with at least a fraction q at or below it), so it is always one of the errors.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * double(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

/// |a - b| / |b| over the targets where b != 0.
Errors relative_errors(const Evaluation& a, const Evaluation& b) {
  std::vector<double> errors;
  double sum2 = 0;
  for (std::size_t i = 0; i < b.ax.size(); ++i) {
    const double n2 = b.ax[i] * b.ax[i] + b.ay[i] * b.ay[i] + b.az[i] * b.az[i];
    if (!(n2 > 0)) continue;
    const double dx = a.ax[i] - b.ax[i], dy = a.ay[i] - b.ay[i], dz = a.az[i] - b.az[i];
    const double e2 = (dx * dx + dy * dy + dz * dz) / n2;
    sum2 += e2;
    errors.push_back(std::sqrt(e2));
  }
  std::sort(errors.begin(), errors.end());
  Errors e;
  e.compared = static_cast<std::int64_t>(errors.size());
  e.rms = errors.empty() ? 0.0 : std::sqrt(sum2 / double(errors.size()));
  e.median = quantile(errors, 0.5);
  e.p90 = quantile(errors, 0.9);
  e.p99 = quantile(errors, 0.99);
  e.max = errors.empty() ? 0.0 : errors.back();
  return e;
}

std::string json_report(const Evaluation& e) {
  const auto& t = e.report.total;
  std::string phases;
  for (const auto& [name, s] : e.report.phase_seconds)
    phases += (phases.empty() ? "" : ", ") + ("\"" + name + "\": " + std::to_string(s));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "\"solver\": \"%s\", \"node_visits\": %llu, \"cell_interactions\": %llu, "
                "\"particle_interactions\": %llu, \"seconds\": %.6g, \"phase_seconds\": {",
                e.name.c_str(), static_cast<unsigned long long>(t.node_visits),
                static_cast<unsigned long long>(t.cell_interactions),
                static_cast<unsigned long long>(t.particle_interactions), e.seconds);
  return buf + phases + "}";
}

void print_text(const Evaluation& e, std::int64_t n) {
  const auto& t = e.report.total;
  const double per = n > 0 ? 1.0 / double(n) : 0.0;
  std::printf("%-24s %10.4f s   node visits %.4g (%.1f per particle), cell interactions %.4g (%.1f), "
              "particle interactions %.4g (%.1f)\n",
              e.name.c_str(), e.seconds, double(t.node_visits), double(t.node_visits) * per, double(t.cell_interactions),
              double(t.cell_interactions) * per, double(t.particle_interactions),
              double(t.particle_interactions) * per);
}

void compare_command(const CompareOptions& o) {
  const io::Config config = io::Config::load(o.config_file, o.overrides);
  const integrate::RunConfig rc = config.run_config();
  gravity::GravityConfig other = rc.gravity;
  other.solver = o.against;
  if (o.against == "reference") other.backend = "cpu";  // the yardstick exists on the host only
  const Particles<double> initial = driver::initial_state(rc).particles;
  const std::int64_t n = initial.size();
  gravity::with_precision(rc.gravity.precision, [&](auto tag) {
    using Real = decltype(tag);
    const Particles<Real> p = ic::to_precision<Real>(initial);
    const Evaluation mine = evaluate(rc.gravity, p);
    const Evaluation yardstick = evaluate(other, p);
    const Errors err = relative_errors(mine, yardstick);
    if (o.json) {
      std::printf("{\"count\": %lld, \"against\": \"%s\", \"rms_relative_error\": %.6g, "
                  "\"median_relative_error\": %.6g, \"p90_relative_error\": %.6g, \"p99_relative_error\": %.6g, "
                  "\"max_relative_error\": %.6g, \"compared_targets\": %lld, %s, \"against_report\": {%s}}\n",
                  static_cast<long long>(n), o.against.c_str(), err.rms, err.median, err.p90, err.p99, err.max,
                  static_cast<long long>(err.compared), json_report(mine).c_str(), json_report(yardstick).c_str());
      return 0;
    }
    std::printf("N = %lld, %s precision, relative acceleration error of %s against %s (%lld targets):\n",
                static_cast<long long>(n), std::string(gravity::to_string(rc.gravity.precision)).c_str(),
                mine.name.c_str(), yardstick.name.c_str(), static_cast<long long>(err.compared));
    std::printf("  median %.4g, 90th percentile %.4g, 99th percentile %.4g, max %.4g; RMS %.4g\n", err.median,
                err.p90, err.p99, err.max, err.rms);
    print_text(mine, n);
    print_text(yardstick, n);
    return 0;
  });
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "One force evaluation with the configured solver and with another; their relative acceleration error");
  cmd->add_option("config", options->config_file, "TOML configuration file (docs/config.md); default: the built-in one");
  cmd->add_option("--set", options->overrides, "Override a key: --set section.key=value (repeatable)")
      ->type_name("KEY=VALUE")
      ->take_last()
      ->allow_extra_args(false);
  cmd->add_option("--against", options->against, "The solver to measure against (the yardstick)")
      ->required()
      ->check(CLI::IsMember({"reference", "direct", "tree"}));
  cmd->add_flag("--json", options->json,
                "Print one JSON object: rms_relative_error, median_relative_error, p90_relative_error, "
                "p99_relative_error, max_relative_error, node_visits, cell_interactions, "
                "particle_interactions, seconds (of the configured solver), against_report");
  cmd->footer(
      "Examples:\n"
      "  orrery compare --set gravity.solver=tree --set initial_conditions.count=65536 --against reference\n"
      "  orrery compare run.toml --set gravity.multipole=quadrupole --against direct --json");
  cmd->callback([options] { compare_command(*options); });
}

}  // namespace orrery::cli
