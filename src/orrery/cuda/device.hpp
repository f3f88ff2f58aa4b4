#pragma once
// Which CUDA devices exist, and which one this thread uses. No CUDA header.
#include <cstddef>
#include <string>

namespace orrery::cuda {

/// Number of usable CUDA devices; 0 when there is no GPU, no driver, or the
/// driver is older than the runtime. Never throws.
int device_count() noexcept;

/// True when at least one CUDA device can be used. Never throws: GPU tests call
/// it to GTEST_SKIP() on machines without a GPU or driver.
bool device_available() noexcept;

/// Makes device `index` current for the calling host thread. Throws
/// RuntimeFailure naming the call, the CUDA error, the index asked for and the
/// number of devices present (e.g. index 7 with 1 device).
void select_device(int index);

/// The device current for the calling thread (0 unless select_device said otherwise).
int current_device();

/// Makes device `local_rank` mod device_count() current and returns its index:
/// the ranks of one node share its GPUs round-robin (one GPU each where there
/// are enough, all on the one GPU of a single-GPU machine). Throws
/// RuntimeFailure naming the rank when no device is present.
int select_rank_device(int local_rank);

/// The PCI bus id of device `index` ("0000:19:00.0"): equal for two
/// processes exactly when they use the same GPU. Throws as select_device does.
std::string pci_bus_id(int index);

struct DeviceInfo {
  int index = 0;
  std::string name;
  int multiprocessors = 0;
  int compute_major = 0, compute_minor = 0;
  double peak_clock_ghz = 0;  // the driver's peak SM clock
  std::size_t total_bytes = 0;
  int driver_version = 0, runtime_version = 0;
};

/// Multiprocessors (SMs) of the current device, for launch geometry.
int current_multiprocessors();

/// Properties of device `index`. Throws RuntimeFailure as select_device does.
DeviceInfo device_info(int index);

struct MemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};

/// Free and total memory of the current device.
MemoryInfo memory_info();

}  // namespace orrery::cuda
