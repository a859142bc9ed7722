#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "solver/gpu/gl_objects.h"
#include "solver/gpu/gpu_context.h"
#include "solver/gpu/shader_library.h"
#include "support/gpu_fixture.h"
#include "support/seed.h"

namespace ww {
namespace {

TEST(GpuContext, ReportsInfoAndLimits) {
    WW_REQUIRE_GPU();
    const gpu::GpuInfo& info = test::sharedGpu()->info();
    EXPECT_FALSE(info.renderer.empty());
    EXPECT_GE(info.major * 10 + info.minor, 43);
    // GL 4.3 guarantees these minimums (spec table 23.75).
    EXPECT_GE(info.maxSsboBytes, 1 << 24);
    EXPECT_GE(info.maxWorkgroupInvocations, 1024);
    EXPECT_GE(info.maxSharedBytes, 32768);
    EXPECT_GE(info.maxWorkgroupCount[0], 65535);
}

TEST(GpuContext, ComputeRoundTripOnRandomData) {
    WW_REQUIRE_GPU();
    std::mt19937 rng(ww::test::freshSeed());
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    const std::size_t n = 4 * 12345;  // not a multiple of the workgroup size
    std::vector<float> x(n);
    std::vector<float> y(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = dist(rng);
        y[i] = dist(rng);
    }
    const float a = dist(rng);

    auto bx = gpu::Buffer::fromSpan<float>(x);
    auto by = gpu::Buffer::fromSpan<float>(y);
    ASSERT_TRUE(bx.ok() && by.ok());
    gpu::ShaderLibrary lib;
    auto prog = lib.build(gpu::ProgramSpec::computeStage("gpu_selftest.comp"));
    ASSERT_TRUE(prog.ok()) << prog.error().message;
    EXPECT_EQ(prog->localSize()[0], 256);

    bx->bind(0);
    by->bind(1);
    prog->set("uCount", static_cast<unsigned>(n / 4));
    prog->set("uA", a);
    ASSERT_TRUE(gpu::dispatch(*prog, gpu::groupsFor(n / 4, 256)).ok());
    gpu::barrier();
    std::vector<float> out = by->download<float>(n);
    for (std::size_t i = 0; i < n; ++i) {
        // One fused or unfused multiply-add in float: within 1 ulp of the double result
        // scaled by the operands' magnitude.
        const double ref = static_cast<double>(a) * x[i] + y[i];
        const double tol = 2e-7 * (std::abs(static_cast<double>(a) * x[i]) + std::abs(y[i]));
        ASSERT_NEAR(out[i], ref, tol) << "element " << i;
    }
}

TEST(GpuContext, ImpossibleVersionReturnsReason) {
    WW_REQUIRE_GPU();  // with a working EGL, asking for GL 9.9 must fail cleanly
    gpu::HeadlessOptions opts;
    opts.glMajor = 9;
    opts.glMinor = 9;
    auto r = gpu::GpuContext::createHeadless(opts);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kGpuUnavailable);
    EXPECT_NE(r.error().message.find("9.9"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("Tried"), std::string::npos) << r.error().message;
    test::sharedGpu();  // restore the shared context as current
}

TEST(GpuContext, MissingDeviceReturnsReason) {
    gpu::HeadlessOptions opts;
    opts.platform = gpu::HeadlessPlatform::kDevice;
    opts.deviceIndex = 999;
    auto r = gpu::GpuContext::createHeadless(opts);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kGpuUnavailable);
    EXPECT_NE(r.error().message.find("egl-device"), std::string::npos) << r.error().message;
    test::sharedGpu();
}

TEST(GpuContext, BufferBeyondLimitIsRejected) {
    WW_REQUIRE_GPU();
    const std::int64_t limit = test::sharedGpu()->info().maxSsboBytes;
    auto r = gpu::Buffer::create(static_cast<std::size_t>(limit) + 16, nullptr, "test matrix");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kGpuLimit);
    EXPECT_NE(r.error().message.find("test matrix"), std::string::npos);
}

TEST(GpuContext, ObjectsDoNotLeak) {
    WW_REQUIRE_GPU();
    const gpu::LiveObjectCounts before = gpu::liveObjectCounts();
    gpu::ShaderLibrary lib;
    for (int i = 0; i < 50; ++i) {
        auto b = gpu::Buffer::create(1024);
        ASSERT_TRUE(b.ok());
        gpu::Buffer moved = std::move(b).value();
        auto p = lib.build(gpu::ProgramSpec::computeStage("gpu_selftest.comp"));
        ASSERT_TRUE(p.ok());
        gpu::TimerQuery q;
    }
    const gpu::LiveObjectCounts after = gpu::liveObjectCounts();
    EXPECT_EQ(after.buffers, before.buffers);
    EXPECT_EQ(after.programs, before.programs);
    EXPECT_EQ(after.queries, before.queries);
}

}  // namespace
}  // namespace ww
