#pragma once
// Errors a user can cause. Each message names what was wrong (the key, the
// file, the field), the value, and what is accepted; the CLI prints it as one
// line and exits with status 2 (contract 7).
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

}  // namespace orrery
