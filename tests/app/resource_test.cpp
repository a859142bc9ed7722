// Long-run resource hygiene: creating and destroying GPU contexts and switching scenes between
// backends many times must not accumulate GL objects or memory.
#include <gtest/gtest.h>

#include <string>

#include "app/cli/memory_probe.h"
#include "app/cli/scene_factory.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/shader_library.h"
#include "support/gpu_fixture.h"

namespace ww {
namespace {

// AddressSanitizer keeps freed memory in quarantine, so RSS says nothing there; LeakSanitizer
// checks the same loops for leaks instead.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMeasureRss = false;
#else
constexpr bool kMeasureRss = true;
#endif

using app::residentKb;

TEST(Resources, ContextCreateDestroyCyclesDoNotAccumulate) {
    WW_REQUIRE_GPU();
    const gpu::LiveObjectCounts before = gpu::liveObjectCounts();
    long warmKb = 0;
    // 200 cycles: each creates a context, a program and buffers, and destroys them (about
    // 15 ms a cycle on llvmpipe). RSS is taken after 50 cycles of warm-up (driver caches).
    for (int i = 0; i < 200; ++i) {
        auto ctx = gpu::GpuContext::createHeadless();
        ASSERT_TRUE(ctx.ok()) << ctx.error().message;
        gpu::ShaderLibrary lib;
        auto prog = lib.build(gpu::ProgramSpec::computeStage("gpu_selftest.comp"));
        ASSERT_TRUE(prog.ok());
        auto buf = gpu::Buffer::create(1 << 16);
        ASSERT_TRUE(buf.ok());
        if (i == 50) {
            warmKb = residentKb();
        }
    }
    test::sharedGpu();  // make the shared context current again
    const gpu::LiveObjectCounts after = gpu::liveObjectCounts();
    EXPECT_EQ(after.buffers, before.buffers);
    EXPECT_EQ(after.programs, before.programs);
    // 1 MiB over 150 cycles: a leak of one context or driver object per cycle would exceed it.
    if (kMeasureRss) {
        EXPECT_LT(residentKb() - warmKb, 1024) << "RSS grew over 150 context cycles";
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
        const gpu::LiveObjectCounts onCpu = gpu::liveObjectCounts();
        long warmKb = 0;
        for (int i = 0; i < 1000; ++i) {
            ASSERT_TRUE((*scene)->setBackend(Backend::kGpu, &lib).ok()) << name << " switch " << i;
            if (i % 100 == 0) {
                (*scene)->step(rec);
            }
            ASSERT_TRUE((*scene)->setBackend(Backend::kCpu, &lib).ok()) << name << " switch " << i;
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
