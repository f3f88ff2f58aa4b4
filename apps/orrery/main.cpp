// orrery: the command-line program. Exit status (the README's table; one
// line on stderr naming what was wrong): 0 success, 2 the user's input is
// wrong, 3 the environment failed (disk, permissions, memory), 1 a bug.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <new>
#include <set>
#include <string>

#include "commands.hpp"
#include "mpi_launch.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/freed_memory.hpp"
#include "orrery/gravity/solver_factory.hpp"

namespace {

/// "orrery 0.9.0 (backends: cpu, cuda)": the version and what this build can run on.
std::string version_line() {
  std::set<std::string> backends;
  for (const auto& pair : orrery::gravity::available_solvers()) backends.insert(pair.substr(pair.find('/') + 1));
  std::string list;
  for (const auto& b : backends) list += (list.empty() ? "" : ", ") + b;
  return std::string("orrery ") + ORRERY_VERSION + " (backends: " + list + ")";
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// HDF5 1.10 leaks a few small buffers on its own error paths when it parses a
// corrupt file (inside libhdf5, not ours; io_mutation_test.cpp says the same):
// the sanitized CLI tests must report our leaks only.
// Without printing the suppressions used: that would be a second stderr line.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif

int main(int argc, char** argv) {
  CLI::App app{"Orrery: gravitational N-body simulation (direct and Barnes-Hut, CPU and CUDA)", "orrery"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line(), "Print the version and the build's backends, then exit");
  orrery::cli::add_run_command(app);
  orrery::cli::add_config_command(app);
  orrery::cli::add_ic_command(app);
  orrery::cli::add_info_command(app);
  orrery::cli::add_render_command(app);
  orrery::cli::add_compare_command(app);
  // Every failure is one line on stderr, naming the rank in an MPI job; then
  // end_mpi ends MPI, aborting every rank of the job after a failure.
  int status = 0;
  const auto fail = [&](int code, const char* kind, const std::string& message) {
    std::fprintf(stderr, "orrery: %s: %s%s\n", kind, orrery::cli::rank_prefix().c_str(), message.c_str());
    status = code;
  };
  try {
    // Before any large allocation: a run's steps reuse the pages their
    // arrays had (docs/adr/0020); ORRERY_FREED_MEMORY=release opts out.
    orrery::set_freed_memory_from_environment();
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fail(2, "error", std::string(e.what()) + " (orrery --help lists the commands)");
  } catch (const orrery::InputError& e) {
    fail(2, "error", e.what());
  } catch (const orrery::EnvironmentError& e) {
    fail(3, "error", e.what());
  } catch (const std::bad_alloc&) {
    // No string built (no memory to spare for one), so no rank named either.
    std::fputs("orrery: error: out of memory (a request for memory was refused); "
               "accepted: a run that fits this machine's free memory\n", stderr);
    status = 3;
  } catch (const orrery::RuntimeFailure& e) {
    // CUDA and other libraries: the message names the call and its error, which may be the
    // device's or the driver's as well as ours.
    fail(1, "failure", e.what());
  } catch (const std::exception& e) {
    fail(1, "failure", std::string(e.what()) + " (please report this)");
  }
  orrery::cli::end_mpi(status);
  return status;
}
