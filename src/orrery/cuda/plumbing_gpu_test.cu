// The CUDA plumbing: device queries, checked calls and launches, buffers,
// streams and event timing. GPU tests skip where no device is present.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/pinned_buffer.hpp"
#include "orrery/cuda/staged_download.hpp"
#include "orrery/cuda/staged_upload.hpp"

namespace orrery::cuda {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!device_available()) GTEST_SKIP() << "no CUDA device"

std::string message_of(const auto& f) {
  try {
    f();
  } catch (const RuntimeFailure& e) {
    return e.what();
  }
  return "(no RuntimeFailure thrown)";
}

__global__ void spin_kernel(long long cycles, int* out) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0) *out = 1;
}

__global__ void iota_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i;  // guard the tail of the last block
}

TEST(CudaDevice, AvailabilityQueryNeverThrows) {
  bool available = false;
  EXPECT_NO_THROW(available = device_available());
  EXPECT_EQ(available, device_count() > 0);
}

TEST(CudaDevice, InfoDescribesTheDevice) {
  SKIP_WITHOUT_GPU();
  const DeviceInfo info = device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_GT(info.total_bytes, std::size_t{0});
  EXPECT_GT(info.peak_clock_ghz, 0.1);
  const MemoryInfo mem = memory_info();
  EXPECT_LE(mem.free_bytes, mem.total_bytes);
}

TEST(CudaDevice, RankDeviceIsLocalRankModTheDevices) {
  if (device_count() == 0) {  // without a device the choice refuses, naming the rank
    const std::string msg = message_of([] { select_rank_device(3); });
    EXPECT_NE(msg.find("local rank 3"), std::string::npos) << msg;
    return;
  }
  const int n = device_count();
  for (const int rank : {0, 1, n, 2 * n + 1}) {
    EXPECT_EQ(select_rank_device(rank), rank % n);
    EXPECT_EQ(current_device(), rank % n);
  }
  select_device(0);
}

TEST(CudaDevice, PciBusIdsNameEachDeviceOnce) {
  SKIP_WITHOUT_GPU();
  std::vector<std::string> ids;
  for (int d = 0; d < device_count(); ++d) ids.push_back(pci_bus_id(d));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_NE(ids[i].find(':'), std::string::npos) << ids[i];  // domain:bus:device.function
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(ids[i], ids[j]);
  }
}

TEST(CudaErrors, InvalidDeviceIndexNamesCallErrorAndCount) {
  SKIP_WITHOUT_GPU();
  const int bad = device_count() + 3;
  const std::string msg = message_of([&] { select_device(bad); });
  EXPECT_NE(msg.find("cudaSetDevice"), std::string::npos) << msg;
  EXPECT_NE(msg.find("device.cpp:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudaErrorInvalidDevice"), std::string::npos) << msg;
  EXPECT_NE(msg.find("device index " + std::to_string(bad) + " requested"), std::string::npos) << msg;
  EXPECT_NO_THROW(select_device(0));  // a failed selection leaves the thread usable
}

TEST(CudaErrors, OversizedAllocationReportsRequestedAndFreeBytes) {
  SKIP_WITHOUT_GPU();
  const std::size_t huge = memory_info().total_bytes * 4;
  const std::string msg = message_of([&] { DeviceBuffer<char> b(huge); });
  EXPECT_NE(msg.find("cudaMalloc"), std::string::npos) << msg;
  EXPECT_NE(msg.find("memory.cpp:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cudaErrorMemoryAllocation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("requested " + std::to_string(huge) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bytes free of"), std::string::npos) << msg;
  DeviceBuffer<int> ok(16);  // the failure is not sticky
  EXPECT_EQ(ok.size(), 16u);
}

TEST(CudaErrors, BadLaunchConfigurationIsReportedWithKernelName) {
  SKIP_WITHOUT_GPU();
  DeviceBuffer<int> out(1);
  const std::string msg = message_of([&] {
    spin_kernel<<<1, 4096>>>(0, out.data());  // 4096 threads: more than a block may have
    ORRERY_CUDA_CHECK_LAUNCH("spin_kernel");
  });
  EXPECT_NE(msg.find("launch of spin_kernel"), std::string::npos) << msg;
  EXPECT_NE(msg.find("plumbing_gpu_test.cu:"), std::string::npos) << msg;
  // CUDA 12 says cudaErrorInvalidConfiguration, CUDA 13 cudaErrorInvalidValue.
  EXPECT_NE(msg.find("cudaErrorInvalid"), std::string::npos) << msg;
}

TEST(DeviceBufferTest, RoundTripCopyMoveAndZero) {
  SKIP_WITHOUT_GPU();
  std::vector<double> host(1000);
  std::iota(host.begin(), host.end(), 0.5);
  DeviceBuffer<double> a(host.size());
  a.upload(host);
  DeviceBuffer<double> b(host.size());
  copy_device_to_device(b.data(), a.data(), a.bytes(), nullptr);
  DeviceBuffer<double> c = std::move(b);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  std::vector<double> back(host.size(), -1);
  c.download(back);
  EXPECT_EQ(back, host);
  c.zero();
  c.download(back);
  EXPECT_EQ(back, std::vector<double>(host.size(), 0.0));
  std::vector<double> too_many(host.size() + 1);
  EXPECT_THROW(c.upload(too_many), RuntimeFailure);
}

TEST(DeviceBufferTest, KernelOnAStreamWritesEveryElement) {
  SKIP_WITHOUT_GPU();
  const int n = 1000;
  Stream stream;
  DeviceBuffer<int> out(n);
  std::vector<int> poison(n, -7);
  out.upload(poison, stream.get());
  iota_kernel<<<(n + 127) / 128, 128, 0, stream.get()>>>(out.data(), n);
  ORRERY_CUDA_CHECK_LAUNCH("iota_kernel");
  stream.synchronize();
  std::vector<int> back(n);
  out.download(back, stream.get());
  for (int i = 0; i < n; ++i) ASSERT_EQ(back[i], 3 * i) << "element " << i;
}

// A pinned buffer stages a download and keeps its contents while it does not
// grow; growing gives room for the larger count (a walk's results, call
// after call).
TEST(PinnedBufferTest, StagesACopyAndGrowsOnDemand) {
  SKIP_WITHOUT_GPU();
  const int n = 1000;
  Stream stream;
  DeviceBuffer<int> out(2 * n);
  iota_kernel<<<(2 * n + 127) / 128, 128, 0, stream.get()>>>(out.data(), 2 * n);
  ORRERY_CUDA_CHECK_LAUNCH("iota_kernel");
  PinnedBuffer<int> pinned;
  const std::span<int> small = pinned.first(n);
  out.download(small, stream.get());
  for (int i = 0; i < n; ++i) ASSERT_EQ(small[i], 3 * i) << "element " << i;
  const std::span<int> again = pinned.first(n / 2);
  EXPECT_EQ(again.data(), small.data());  // no growth: the same block, the same contents
  EXPECT_EQ(again[n / 2 - 1], 3 * (n / 2 - 1));
  EXPECT_EQ(pinned.first(n + n / 8).data(), small.data());  // grown with an eighth to spare: still no growth
  const std::span<int> large = pinned.first(2 * n);
  ASSERT_EQ(large.size(), std::size_t(2 * n));
  out.download(large, stream.get());
  for (int i = 0; i < 2 * n; ++i) ASSERT_EQ(large[i], 3 * i) << "element " << i;
  EXPECT_TRUE(PinnedBuffer<double>().first(0).empty());
}

TEST(DeviceBufferTest, FitKeepsTheBlockThatHoldsTheSizeAndGrowsWithRoom) {
  SKIP_WITHOUT_GPU();
  DeviceBuffer<int> b;
  b.fit(800);
  EXPECT_EQ(b.size(), 800u);
  EXPECT_EQ(b.capacity(), 900u);  // an eighth more room than asked
  const std::vector<int> host = [] {
    std::vector<int> v(800);
    std::iota(v.begin(), v.end(), 7);
    return v;
  }();
  b.upload(host);
  const int* block = b.data();
  b.fit(900);  // within the room: the same block, the contents kept
  EXPECT_EQ(b.data(), block);
  EXPECT_EQ(b.size(), 900u);
  b.fit(100);  // smaller: the same block too, never shrunk
  EXPECT_EQ(b.data(), block);
  EXPECT_EQ(b.size(), 100u);
  std::vector<int> back(100);
  b.download(back);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(back[i], i + 7) << "element " << i;
  EXPECT_TRUE(message_of([&] { b.upload(host); }).find("800") != std::string::npos);  // size() bounds the copies
  b.fit(901);  // past the block: a new one with room
  EXPECT_EQ(b.size(), 901u);
  EXPECT_EQ(b.capacity(), 901u + 901u / 8);
  DeviceBuffer<int> moved(std::move(b));
  EXPECT_EQ(moved.capacity(), 901u + 901u / 8);
  EXPECT_EQ(b.capacity(), 0u);
  b.resize(10);  // resize() is exact
  EXPECT_EQ(b.capacity(), 10u);
}

TEST(StagedDownloadTest, CopiesEveryQueuedArrayIntoItsHostArrayOrKeepsIt) {
  SKIP_WITHOUT_GPU();
  // Sizes off any alignment, one larger than a copy piece (1 MiB), one empty.
  const int sizes[4] = {1000, 3, (1 << 18) + 5, 0};
  Stream stream;
  StagedDownload staging;
  StagedDownload pageable(std::size_t(1) << 20);  // the queue is past its limit: only the kept copy staged
  for (int round = 0; round < 4; ++round) {  // the second and the fourth reuse their staging
    StagedDownload& staged = round < 2 ? staging : pageable;
    std::vector<DeviceBuffer<int>> device;
    std::vector<std::vector<int>> host;
    for (int a = 0; a < 4; ++a) {
      device.emplace_back(static_cast<std::size_t>(sizes[a]));
      if (sizes[a] > 0) {
        iota_kernel<<<(sizes[a] + 127) / 128, 128, 0, stream.get()>>>(device.back().data(), sizes[a]);
        ORRERY_CUDA_CHECK_LAUNCH("iota_kernel");
      }
      host.emplace_back(static_cast<std::size_t>(sizes[a]) + 1, -1 - round);
    }
    for (int a = 0; a < 4; ++a)
      EXPECT_EQ(staged.add(host[a].data(), device[a].data(), sizes[a] * sizeof(int)), std::size_t(a));
    // One more with no host array: its bytes stay in the page-locked buffer.
    const std::size_t kept = staged.add(nullptr, device[0].data(), sizes[0] * sizeof(int));
    EXPECT_EQ(kept, 4u);  // the second round's queue starts again at 0
    staged.run(stream.get());
    for (int a = 0; a < 4; ++a) {
      for (int i = 0; i < sizes[a]; ++i) ASSERT_EQ(host[a][i], 3 * i) << "array " << a << ", element " << i;
      EXPECT_EQ(host[a][sizes[a]], -1 - round) << "array " << a << ": a byte past its copy was written";
    }
    const std::span<const int> in_place = staged.staged<int>(kept);
    ASSERT_EQ(in_place.size(), std::size_t(sizes[0]));
    for (int i = 0; i < sizes[0]; ++i) ASSERT_EQ(in_place[i], 3 * i) << "kept element " << i;
  }
}

TEST(StagedUploadTest, CopiesEveryQueuedHostArrayIntoItsDeviceArray) {
  SKIP_WITHOUT_GPU();
  // Sizes off any alignment, one past two upload pieces (16 MiB), one empty.
  const std::size_t sizes[4] = {1000, 3, (std::size_t(1) << 23) + 5, 0};
  Stream stream;
  StagedUpload staged;
  StagedUpload pageable(std::size_t(1) << 20);  // the queue is past its limit: the pageable way
  for (int round = 0; round < 4; ++round) {  // the second and the fourth reuse their staging
    StagedUpload& up = round < 2 ? staged : pageable;
    std::vector<DeviceBuffer<int>> device;
    std::vector<std::vector<int>> host;
    for (int a = 0; a < 4; ++a) {
      device.emplace_back(sizes[a] + 1);  // one more: no byte past its copy may change
      zero_device_bytes(device.back().data(), (sizes[a] + 1) * sizeof(int), stream.get());
      host.emplace_back(sizes[a]);
      for (std::size_t i = 0; i < sizes[a]; ++i) host[a][i] = static_cast<int>(i) * (a + 1) + round;
      up.add(device[a].data(), host[a].data(), sizes[a] * sizeof(int));
    }
    up.run(stream.get());
    for (int a = 0; a < 4; ++a) host[a].assign(host[a].size(), -7);  // the device holds its own bytes now
    for (int a = 0; a < 4; ++a) {
      std::vector<int> back(sizes[a] + 1);
      device[a].download(back);
      for (std::size_t i = 0; i < sizes[a]; ++i)
        ASSERT_EQ(back[i], static_cast<int>(i) * (a + 1) + round) << "array " << a << ", element " << i;
      EXPECT_EQ(back[sizes[a]], 0) << "array " << a << ": a byte past its copy was written";
    }
  }
}

TEST(EventTimerTest, MeasuresKernelDuration) {
  SKIP_WITHOUT_GPU();
  const DeviceInfo info = device_info(current_device());
  const auto cycles = static_cast<long long>(info.peak_clock_ghz * 1e9 * 2e-3);  // ~2 ms at peak clock
  DeviceBuffer<int> out(1);
  EventTimer timer;
  timer.start();
  spin_kernel<<<1, 32>>>(cycles, out.data());
  ORRERY_CUDA_CHECK_LAUNCH("spin_kernel");
  timer.stop();
  const double s = timer.seconds();
  EXPECT_GT(s, 1.5e-3);  // at least the cycles spun, at any clock up to the peak
  EXPECT_LT(s, 1.0);
}

}  // namespace
}  // namespace orrery::cuda
