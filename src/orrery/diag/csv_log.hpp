#pragma once
// The diagnostics log: CSV, a header row, then one row per diagnostics
// interval. Columns: time, step, energies, relative energy error, virial
// ratio, momentum and angular momentum components, Lagrangian radii
// (r10, r50, r90), then the accumulated wall seconds of each named phase
// (wall_<phase>_s) and in total (wall_total_s).
//
// Nothing the user had is left half-written (contract 7): rows go to
// <path>.partial, flushed after each row, which is renamed to <path> only by
// close(), when the run is complete. A log destroyed without close() (the run
// failed) stays <path>.partial, and an earlier <path> is left as it was.
// Every write is checked (and is a write of the fault-injection seam,
// core/write_fault.hpp): a failed one throws, naming the file and the OS error.
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "orrery/diag/diagnostics.hpp"

namespace orrery::diag {

class CsvLog {
 public:
  /// phases: the names of the wall-time columns, in order. Creates the
  /// parent directory if needed. Throws (core/os_error.hpp) if the file
  /// cannot be created or its header written.
  CsvLog(std::filesystem::path path, std::vector<std::string> phases);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;

  /// phase_seconds: accumulated wall seconds by phase name; phases not listed
  /// are written as 0, names not among the columns are ignored.
  void write(const Diagnostics& d, const std::vector<std::pair<std::string, double>>& phase_seconds,
             double total_wall_seconds);
  /// Closes and renames into place: the run is complete. Idempotent.
  void close();
  const std::filesystem::path& path() const { return path_; }
  /// Where the rows are until close(): where a failed run's log stays.
  const std::filesystem::path& partial_path() const { return partial_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path partial_;
  std::vector<std::string> phases_;
  std::FILE* out_ = nullptr;

  void emit(const std::string& text, const std::string& what);
};

}  // namespace orrery::diag
