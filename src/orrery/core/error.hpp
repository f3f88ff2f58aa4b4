#pragma once
// Errors a user or the machine can cause. Each message names what was wrong
// (the key, the file, the field), the value, and what is accepted; the CLI
// prints it as one line (contract 7) and exits with the status of its class
// (the README's exit-status table):
//   InputError        2  the user's input is wrong (parameter, file, path)
//   EnvironmentError  3  the environment failed (disk full, permission, memory)
//   RuntimeFailure    1  a library failed (CUDA: the device, the driver, or us)
//   anything else     1  a bug in Orrery
#include <stdexcept>
#include <string>

namespace orrery {

/// Invalid input: a parameter, a file, a particle set. Exit status 2 in the CLI.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure of the machine or a library (CUDA, HDF5, the file system).
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The environment refused what a correct run asked for: a write on a full
/// disk, a file the user may not write, memory that is not there. Nothing
/// the user typed is wrong; exit status 3 in the CLI.
class EnvironmentError : public RuntimeFailure {
 public:
  using RuntimeFailure::RuntimeFailure;
};

}  // namespace orrery
