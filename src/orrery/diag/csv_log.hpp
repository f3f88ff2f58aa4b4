#pragma once
// The diagnostics log: CSV, a header row, then one row per diagnostics
// interval. Columns: time, step, energies, relative energy error, virial
// ratio, momentum and angular momentum components, Lagrangian radii
// (r10, r50, r90), then the accumulated wall seconds of each named phase
// (wall_<phase>_s) and in total (wall_total_s).
//
// Written as a CsvFile (csv_file.hpp): to <path>.partial until close().
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "orrery/diag/csv_file.hpp"
#include "orrery/diag/diagnostics.hpp"

namespace orrery::diag {

class CsvLog {
 public:
  /// phases: the names of the wall-time columns, in order. Creates the
  /// parent directory if needed. Throws (core/os_error.hpp) if the file
  /// cannot be created or its header written.
  CsvLog(std::filesystem::path path, std::vector<std::string> phases);

  /// phase_seconds: accumulated wall seconds by phase name; phases not listed
  /// are written as 0, names not among the columns are ignored.
  void write(const Diagnostics& d, const std::vector<std::pair<std::string, double>>& phase_seconds,
             double total_wall_seconds);
  /// Closes and renames into place: the run is complete. Idempotent.
  void close() { file_.close(); }
  const std::filesystem::path& path() const { return file_.path(); }
  /// Where the rows are until close(): where a failed run's log stays.
  const std::filesystem::path& partial_path() const { return file_.partial_path(); }

 private:
  std::vector<std::string> phases_;
  CsvFile file_;
};

}  // namespace orrery::diag
