#include "orrery/diag/csv_log.hpp"

#include <cerrno>
#include <cstdio>
#include <system_error>

#include "orrery/core/os_error.hpp"
#include "orrery/core/write_fault.hpp"
#include "orrery/diag/lagrangian_radii.hpp"

namespace orrery::diag {

namespace {
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);  // round-trips a double
  return buf;
}
}  // namespace

CsvLog::CsvLog(std::filesystem::path path, std::vector<std::string> phases)
    : path_(std::move(path)), partial_(path_.string() + ".partial"), phases_(std::move(phases)) {
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  out_ = std::fopen(partial_.c_str(), "w");
  if (out_ == nullptr)
    throw_os_error("diagnostics log '" + partial_.string() + "': cannot be created", errno,
                   "accepted: an output.directory that can be created and written");
  std::string header = "time,step,kinetic,potential,total,relative_energy_error,virial_ratio,px,py,pz,lx,ly,lz";
  for (double f : kLagrangianFractions) header += ",r" + std::to_string(static_cast<int>(f * 100 + 0.5));
  for (const auto& phase : phases_) header += ",wall_" + phase + "_s";
  emit(header + ",wall_total_s\n", "the header");
}

CsvLog::~CsvLog() {
  // Not closed: the run failed. The rows so far stay in the .partial file, and
  // an earlier complete log under the final name is not replaced.
  if (out_ != nullptr) std::fclose(out_);
}

void CsvLog::emit(const std::string& text, const std::string& what) {
  const int e = write_and_flush(out_, text);
  if (e != 0)
    throw_os_error("diagnostics log '" + partial_.string() + "': " + what + " could not be written", e,
                   "the rows before it stay in that file and any earlier '" + path_.filename().string() +
                       "' is unchanged");
}

void CsvLog::write(const Diagnostics& d, const std::vector<std::pair<std::string, double>>& phase_seconds,
                   double total_wall_seconds) {
  std::string row = number(d.time) + ',' + std::to_string(d.step) + ',' + number(d.kinetic) + ',' +
                    number(d.potential) + ',' + number(d.total) + ',' + number(d.relative_energy_error) + ',' +
                    number(d.virial_ratio);
  for (double v : d.momentum) row += ',' + number(v);
  for (double v : d.angular_momentum) row += ',' + number(v);
  for (double r : d.lagrangian_radii) row += ',' + number(r);
  for (const auto& phase : phases_) {
    double s = 0;
    for (const auto& [name, seconds] : phase_seconds) s = name == phase ? seconds : s;
    row += ',' + number(s);
  }
  row += ',' + number(total_wall_seconds) + '\n';
  emit(row, "the row of step " + std::to_string(d.step));
}

void CsvLog::close() {
  if (out_ == nullptr) return;
  const int rc = std::fclose(std::exchange(out_, nullptr));
  if (rc != 0)
    throw_os_error("diagnostics log '" + partial_.string() + "': could not be closed", errno,
                   "any earlier '" + path_.filename().string() + "' is unchanged");
  std::error_code ec;
  std::filesystem::rename(partial_, path_, ec);
  if (ec)
    throw_os_error("diagnostics log: cannot rename '" + partial_.string() + "' to '" + path_.string() + "'",
                   ec.value());
}

}  // namespace orrery::diag
