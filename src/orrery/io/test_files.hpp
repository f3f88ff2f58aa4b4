#pragma once
// Helpers for the io tests: a scratch directory removed at the end, small
// particle sets, exact comparisons, and a check that a call throws an
// InputError whose message contains given words.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/rng.hpp"

namespace orrery::io::testing {

class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? info->name() : "test";
    for (char& c : name) c = (c == '/') ? '_' : c;  // parameterised tests: "Name/param"
    // Numbered: two scratch directories of one test (e.g. a run and its restart) must not be one.
    static int made = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("orrery_" + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(made++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// N particles with random (but valid) fields, IDs 1..N.
template <class Real>
Particles<Real> random_particles(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Particles<Real> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = Real(rng.normal()), p.y[i] = Real(rng.normal()), p.z[i] = Real(rng.normal());
    p.vx[i] = Real(rng.normal()), p.vy[i] = Real(rng.normal()), p.vz[i] = Real(rng.normal());
    p.mass[i] = Real(rng.uniform(0.5, 1.5) / double(n));
    p.id[i] = i + 1;
  }
  return p;
}

/// Bitwise equality of two arrays of floating-point numbers (NaN-safe, -0 != +0).
template <class Real>
bool same_bits(const std::vector<Real>& a, const std::vector<Real>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)) == 0;
}

template <class Real>
void expect_same_particles(const Particles<Real>& a, const Particles<Real>& b) {
  EXPECT_TRUE(same_bits(a.x, b.x));
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_TRUE(same_bits(a.z, b.z));
  EXPECT_TRUE(same_bits(a.vx, b.vx));
  EXPECT_TRUE(same_bits(a.vy, b.vy));
  EXPECT_TRUE(same_bits(a.vz, b.vz));
  EXPECT_TRUE(same_bits(a.mass, b.mass));
  EXPECT_EQ(a.id, b.id);
}

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

/// Runs `write` in a child process whose files may not grow past 64 KiB (a
/// full disk, as the writer sees it). Returns the child's exit status: 2 when
/// `write` threw an EnvironmentError naming `file`, 3 for one that does not name it,
/// 4 for any other exception, 0 when it succeeded.
template <class F>
int exit_status_on_full_disk(F&& write, const std::string& file) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    try {
      write();
    } catch (const EnvironmentError& e) {
      ::_exit(std::string(e.what()).find(file) != std::string::npos ? 2 : 3);
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Runs f, expects an Error (InputError, EnvironmentError) whose message contains every word.
template <class Error, class F>
void expect_error(F&& f, std::initializer_list<std::string> words) {
  try {
    f();
    ADD_FAILURE() << "no " << typeid(Error).name() << " thrown";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
  }
}

template <class F>
void expect_input_error(F&& f, std::initializer_list<std::string> words) {
  expect_error<InputError>(std::forward<F>(f), words);
}

}  // namespace orrery::io::testing
