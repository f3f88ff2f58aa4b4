#include "orrery/diag/csv_log.hpp"

#include "orrery/diag/lagrangian_radii.hpp"

namespace orrery::diag {
namespace {

std::string header(const std::vector<std::string>& phases) {
  std::string h = "time,step,kinetic,potential,total,relative_energy_error,virial_ratio,px,py,pz,lx,ly,lz";
  for (double f : kLagrangianFractions) h += ",r" + std::to_string(static_cast<int>(f * 100 + 0.5));
  for (const auto& phase : phases) h += ",wall_" + phase + "_s";
  return h + ",wall_total_s";
}

}  // namespace

CsvLog::CsvLog(std::filesystem::path path, std::vector<std::string> phases)
    : phases_(std::move(phases)), file_(std::move(path), header(phases_), "diagnostics log") {}

void CsvLog::write(const Diagnostics& d, const std::vector<std::pair<std::string, double>>& phase_seconds,
                   double total_wall_seconds) {
  const auto number = CsvFile::number;
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
  file_.row(row + ',' + number(total_wall_seconds), "the row of step " + std::to_string(d.step));
}

}  // namespace orrery::diag
