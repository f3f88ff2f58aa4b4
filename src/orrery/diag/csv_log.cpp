#include "orrery/diag/csv_log.hpp"

#include <cstdio>
#include <system_error>

#include "orrery/core/error.hpp"
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
  out_.open(partial_, std::ios::out | std::ios::trunc);
  if (!out_) {
    throw InputError("output.directory: cannot write the diagnostics log " + partial_.string() +
                     "; accepted: a directory that can be created and written");
  }
  out_ << "time,step,kinetic,potential,total,relative_energy_error,virial_ratio,px,py,pz,lx,ly,lz";
  for (double f : kLagrangianFractions) out_ << ",r" << static_cast<int>(f * 100 + 0.5);
  for (const auto& phase : phases_) out_ << ",wall_" << phase << "_s";
  out_ << ",wall_total_s\n";
  out_.flush();
}

CsvLog::~CsvLog() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() reports when called directly
  }
}

void CsvLog::write(const Diagnostics& d, const std::vector<std::pair<std::string, double>>& phase_seconds,
                   double total_wall_seconds) {
  out_ << number(d.time) << ',' << d.step << ',' << number(d.kinetic) << ',' << number(d.potential) << ','
       << number(d.total) << ',' << number(d.relative_energy_error) << ',' << number(d.virial_ratio);
  for (double v : d.momentum) out_ << ',' << number(v);
  for (double v : d.angular_momentum) out_ << ',' << number(v);
  for (double r : d.lagrangian_radii) out_ << ',' << number(r);
  for (const auto& phase : phases_) {
    double s = 0;
    for (const auto& [name, seconds] : phase_seconds) s = name == phase ? seconds : s;
    out_ << ',' << number(s);
  }
  out_ << ',' << number(total_wall_seconds) << '\n';
  out_.flush();
}

void CsvLog::close() {
  if (!out_.is_open()) return;
  out_.close();
  std::error_code ec;
  std::filesystem::rename(partial_, path_, ec);
  if (ec) throw RuntimeFailure("diagnostics log: cannot rename " + partial_.string() + " to " + path_.string() + ": " + ec.message());
}

}  // namespace orrery::diag
