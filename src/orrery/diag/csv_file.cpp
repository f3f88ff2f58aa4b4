#include "orrery/diag/csv_file.hpp"

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>

#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"

namespace orrery::diag {

std::string CsvFile::number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // round-trips a double
  return buf;
}

CsvFile::CsvFile(std::filesystem::path path, const std::string& header, std::string what)
    : path_(std::move(path)), partial_(path_.string() + ".partial"), what_(std::move(what)) {
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  out_ = std::fopen(partial_.c_str(), "w");
  if (out_ == nullptr)
    throw_os_error(what_ + " '" + partial_.string() + "': cannot be created", errno,
                   "accepted: an output.directory that can be created and written");
  row(header, "the header");
}

CsvFile::~CsvFile() {
  // Not closed: the run failed. The rows so far stay in the .partial file, and
  // an earlier complete file under the final name is not replaced.
  if (out_ != nullptr) std::fclose(out_);
}

void CsvFile::row(const std::string& line, const std::string& which) {
  const int e = write_and_flush(out_, line + '\n');
  if (e != 0)
    throw_os_error(what_ + " '" + partial_.string() + "': " + which + " could not be written", e,
                   "the rows before it stay in that file and any earlier '" + path_.filename().string() +
                       "' is unchanged");
}

void CsvFile::close() {
  if (out_ == nullptr) return;
  const int rc = std::fclose(std::exchange(out_, nullptr));
  if (rc != 0)
    throw_os_error(what_ + " '" + partial_.string() + "': could not be closed", errno,
                   "any earlier '" + path_.filename().string() + "' is unchanged");
  std::error_code ec;
  std::filesystem::rename(partial_, path_, ec);
  if (ec) throw_os_error(what_ + ": cannot rename '" + partial_.string() + "' to '" + path_.string() + "'", ec.value());
}

}  // namespace orrery::diag
