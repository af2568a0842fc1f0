// Finding a GPU's NUMA node and CPUs in sysfs (a fake tree here), and placing host memory on a
// node.

#include <neograde/gpu_smoke/numa.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace neograde::gpu_smoke::numa {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Numa, BusIdsInSysfsSpelling) {
  EXPECT_EQ(sysfs_bdf("00000000:3B:00.0"), "0000:3b:00.0");  // NVML pads the domain to 8 digits
  EXPECT_EQ(sysfs_bdf("0000:3B:00.0"), "0000:3b:00.0");      // CUDA
  EXPECT_EQ(sysfs_bdf("0001:c1:1f.7"), "0001:c1:1f.7");
  for (const char* bad : {"", "3B:00.0", "0000:3B:00", "0000:3B:00.0/../..", "0000:3G:00.0", "00010000:3B:00.0", "0000:3B:000.0"})
    EXPECT_EQ(sysfs_bdf(bad), std::nullopt) << bad;
}

TEST(Numa, Cpulists) {
  EXPECT_THAT(*parse_cpulist("0-3,8,10-11\n"), ElementsAre(0, 1, 2, 3, 8, 10, 11));
  EXPECT_THAT(*parse_cpulist("5"), ElementsAre(5));
  EXPECT_TRUE(parse_cpulist("")->empty());  // a memory-only node
  for (const char* bad : {"3-1", "a", "1,,2", "-1", "0-99999999", "1-", ","}) EXPECT_EQ(parse_cpulist(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_cpulist("0-8192"), std::nullopt);  // beyond max_cpu: no unbounded list
}

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("neograde-numa-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST_F(FakeSysfs, GpuOnNodeOne) {
  write("bus/pci/devices/0000:9a:00.0/numa_node", "1\n");
  write("devices/system/node/node1/cpulist", "56-111,168-223\n");
  const auto where = locate("00000000:9A:00.0", root_.string());
  EXPECT_EQ(where.node, 1);
  ASSERT_EQ(where.cpus.size(), 112u);
  EXPECT_EQ(where.cpus.front(), 56);
  EXPECT_EQ(where.cpus.back(), 223);
  EXPECT_EQ(where.reason, "");
}

TEST_F(FakeSysfs, NoNodeOrNoFileSaysWhy) {
  write("bus/pci/devices/0000:01:00.0/numa_node", "-1\n");
  auto where = locate("0000:01:00.0", root_.string());
  EXPECT_EQ(where.node, std::nullopt);
  EXPECT_THAT(where.reason, HasSubstr("is -1: the platform assigns the device no NUMA node"));
  where = locate("0000:02:00.0", root_.string());
  EXPECT_EQ(where.node, std::nullopt);
  EXPECT_THAT(where.reason, HasSubstr("cannot read"));
  where = locate("not a bus id", root_.string());
  EXPECT_THAT(where.reason, HasSubstr("no PCI bus id"));
  write("bus/pci/devices/0000:03:00.0/numa_node", "0\n");
  write("devices/system/node/node0/cpulist", "garbage\n");
  where = locate("0000:03:00.0", root_.string());
  EXPECT_EQ(where.node, 0);
  EXPECT_TRUE(where.cpus.empty());
  EXPECT_THAT(where.reason, HasSubstr("is not a cpulist"));
}

TEST(Numa, BindsTheCallingThread) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
    if (CPU_ISSET(c, &before)) first = c;
  ASSERT_GE(first, 0);
  EXPECT_EQ(bind_thread({first}), "");
  cpu_set_t now;
  ASSERT_EQ(sched_getaffinity(0, sizeof now, &now), 0);
  EXPECT_EQ(CPU_COUNT(&now), 1);
  EXPECT_TRUE(CPU_ISSET(first, &now));
  EXPECT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(bind_thread({}), "no CPU to bind to");
}

TEST(Numa, BufferIsUsableAndSaysHowItWasPlaced) {
  node_buffer b;
  ASSERT_TRUE(b.allocate(3 * 4096 + 1, 0));
  EXPECT_GE(b.bytes(), 3u * 4096 + 1);
  std::memset(b.get(), 0x5a, b.bytes());
  EXPECT_EQ(static_cast<unsigned char*>(b.get())[b.bytes() - 1], 0x5a);
  // Node 0 exists everywhere: mbind places it there, or (mbind refused, as in a container without
  // CAP_SYS_NICE) first touch does, and the reason is kept.
  EXPECT_THAT(b.placement(), ::testing::AnyOf("mbind", HasSubstr("first touch (mbind: ")));
  if (const auto node = b.resident_node()) EXPECT_EQ(*node, 0);
  // A node that does not exist: mbind refuses, the memory is still there, the reason recorded.
  node_buffer far;
  ASSERT_TRUE(far.allocate(4096, 4000));
  EXPECT_THAT(far.placement(), HasSubstr("first touch (mbind: "));
  static_cast<char*>(far.get())[0] = 1;
  node_buffer any;
  ASSERT_TRUE(any.allocate(4096, -1));
  EXPECT_EQ(any.placement(), "first touch");
  EXPECT_FALSE(node_buffer().allocate(0, 0));
}

}  // namespace
}  // namespace neograde::gpu_smoke::numa
