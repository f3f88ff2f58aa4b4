#pragma once
// A CSV file written row by row, as every log of a run is (the diagnostics
// log, the substep and time-bin logs of block steps): nothing the user had
// is left half-written (contract 7). Rows go to <path>.partial, flushed
// after each row, which is renamed to <path> only by close(), when the run
// is complete. A file destroyed without close() (the run failed) stays
// <path>.partial, and an earlier <path> is left as it was. Every write is
// checked (and is a write of the fault-injection seam, core/write_fault.hpp):
// a failed one throws, naming the file and the OS error.
#include <cstdio>
#include <filesystem>
#include <string>

namespace orrery::diag {

class CsvFile {
 public:
  /// `what` names the file in messages ("diagnostics log"). Creates the
  /// parent directory if needed. Throws (core/os_error.hpp) if the file
  /// cannot be created or the header (one line, without its newline) written.
  CsvFile(std::filesystem::path path, const std::string& header, std::string what);
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;

  /// Appends one line (without its newline); `which` names it in messages ("the row of step 12").
  void row(const std::string& line, const std::string& which);
  /// Closes and renames into place: the run is complete. Idempotent.
  void close();
  const std::filesystem::path& path() const { return path_; }
  /// Where the rows are until close(): where a failed run's file stays.
  const std::filesystem::path& partial_path() const { return partial_; }

  /// The shortest text that reads back as the same double (%.17g).
  static std::string number(double v);

 private:
  std::filesystem::path path_;
  std::filesystem::path partial_;
  std::string what_;
  std::FILE* out_ = nullptr;
};

}  // namespace orrery::diag
