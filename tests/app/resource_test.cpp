// Long-run resource hygiene: creating and destroying GPU contexts and switching scenes between
// backends many times must not accumulate GL objects or memory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "app/cli/memory_probe.h"
#include "app/cli/scene_registry.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/shader_library.h"
#include "support/gpu_fixture.h"
#include "support/sanitizer.h"

namespace ww {
namespace {

// AddressSanitizer keeps freed memory in quarantine, so RSS says nothing there (and its allocator
// bypasses glibc's heap count); LeakSanitizer checks the same loops for leaks instead.
constexpr bool kMeasureRss = !WW_TEST_UNDER_ASAN;

using app::heapInUseKb;
using app::residentKb;

// Context cycles: 200 in the discovered test, 1000 (the count) in the ctest
// Resources.ContextCycles1000, which sets WW_CONTEXT_CYCLES (tests/app/CMakeLists.txt).
int contextCycles() {
    const char* text = std::getenv("WW_CONTEXT_CYCLES");
    if (text == nullptr) {
        return 200;
    }
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return (*text != '\0' && *end == '\0' && n >= 100 && n <= 100000) ? static_cast<int>(n) : -1;
}

TEST(Resources, ContextCreateDestroyCyclesDoNotAccumulate) {
    WW_REQUIRE_GPU();
    const int cycles = contextCycles();
    ASSERT_GT(cycles, 0) << "WW_CONTEXT_CYCLES must be an integer in [100, 100000]";
    const gpu::LiveObjectCounts before = gpu::liveObjectCounts();
    long warmRssKb = 0;
    long warmHeapKb = 0;
    // Each cycle creates a context, a program and buffers, and destroys them (about 15 ms a
    // cycle on llvmpipe). Memory is taken after 50 cycles of warm-up (driver caches).
    constexpr int kWarmUp = 50;
    for (int i = 0; i < cycles; ++i) {
        auto ctx = gpu::GpuContext::createHeadless();
        ASSERT_TRUE(ctx.ok()) << "cycle " << i << ": " << ctx.error().message;
        gpu::ShaderLibrary lib;
        auto prog = lib.build(gpu::ProgramSpec::computeStage("gpu_selftest.comp"));
        ASSERT_TRUE(prog.ok()) << "cycle " << i;
        auto buf = gpu::Buffer::create(1 << 16);
        ASSERT_TRUE(buf.ok()) << "cycle " << i;
        if (i == kWarmUp) {
            warmRssKb = residentKb();
            warmHeapKb = heapInUseKb();
        }
    }
    test::sharedGpu();  // make the shared context current again
    const gpu::LiveObjectCounts after = gpu::liveObjectCounts();
    EXPECT_EQ(after.buffers, before.buffers);
    EXPECT_EQ(after.programs, before.programs);
    // 1 MiB over the cycles after warm-up: a leak of one context, program or 64 KiB buffer
    // per cycle (or of a few kB of driver state, over 1000 cycles) would exceed it.
    if (kMeasureRss) {
        EXPECT_LT(residentKb() - warmRssKb, 1024)
            << "RSS grew over " << cycles - kWarmUp << " context cycles";
        EXPECT_LT(heapInUseKb() - warmHeapKb, 1024)
            << "heap in use grew over " << cycles - kWarmUp << " context cycles";
    }
}

TEST(Resources, ThousandBackendSwitchesKeepStateAndObjects) {
    WW_REQUIRE_GPU();
    gpu::ShaderLibrary lib;
    app::SceneOptionValues values;
    values.grid = "32x32";
    values.wall = "3x2";
    for (const char* name : {"water", "wall"}) {
        auto scene = app::makeScene(name, values, 3);
        ASSERT_TRUE(scene.ok()) << scene.error().message;
        app::StepRecord rec;
        (*scene)->step(rec);
        // Something in motion, so that every step changes the state (a wall at rest stops to
        // the bit within a hundred steps).
        const auto event =
            app::parseEvent(std::string(name) == "wall" ? "1:shoot" : "1:drop:0.3,0.7");
        ASSERT_TRUE(event.ok()) << event.error().message;
        ASSERT_TRUE((*scene)->applyEvent(*event).ok()) << name;
        const gpu::LiveObjectCounts onCpu = gpu::liveObjectCounts();
        long warmKb = 0;
        // The state (water: both height fields; wall: every body) crosses each switch unchanged:
        // its hash after a switch is the hash before it, or after the step taken in between.
        std::string state = (*scene)->stateHash();
        for (int i = 0; i < 1000; ++i) {
            ASSERT_TRUE((*scene)->setBackend(Backend::kGpu, &lib).ok()) << name << " switch " << i;
            ASSERT_EQ((*scene)->stateHash(), state) << name << ": switch " << i << " to the GPU";
            if (i % 100 == 0) {
                (*scene)->step(rec);
                const std::string stepped = (*scene)->stateHash();
                ASSERT_NE(stepped, state) << name << ": a step on the GPU changed nothing";
                state = stepped;
            }
            ASSERT_TRUE((*scene)->setBackend(Backend::kCpu, &lib).ok()) << name << " switch " << i;
            ASSERT_EQ((*scene)->stateHash(), state) << name << ": switch " << i << " to the CPU";
            if (i == 200) {
                warmKb = residentKb();
            }
        }
        const gpu::LiveObjectCounts back = gpu::liveObjectCounts();
        EXPECT_EQ(back.buffers, onCpu.buffers) << name << ": GPU buffers left behind on the CPU";
        EXPECT_EQ(back.programs, onCpu.programs) << name;
        if (kMeasureRss) {
            EXPECT_LT(residentKb() - warmKb, 1024) << name << ": RSS grew over 800 switches";
        }
        std::vector<std::string> violations;
        (*scene)->step(rec);
        (*scene)->checkInvariants(rec, violations);
        EXPECT_TRUE(violations.empty()) << name << ": " << violations.front();
    }
}

}  // namespace
}  // namespace ww
