// What the GPU LCP tests share: the GPU solver on the embedded shaders, and a fixture with a
// GPU context (skipped locally without one, failed when CI=true), the GPU and CPU solvers, and
// a fresh seed that failures report.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "lcp_generators.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_common.h"
#include "solver/lcp/lcp_solver.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"

namespace ww::lcp {

/// How much of two Chebyshev residual histories of the same solve (two backends) must agree.
/// Pass t restarts the weight schedule when r_{t-1} > kChebyshevRestartRise r_{t-2}
/// (chebyshevStart). Where the two sides of that test are closer than the backends' rounding,
/// one backend restarts and the other does not, and from pass t + 1 on they follow different
/// schedules. Returns t + 1 for the first pass whose restart decision, taken from each
/// history, differs (the histories must agree on [0, t]), else the length. (Seed 3767509001 of
/// the matrix-free test: r_54 / r_53 = 1.010021 on the CPU, just above 1.01, and just below it
/// on llvmpipe.) A backend that ignored the rule would still be caught: its history would leave
/// the other's after a restart that both histories call for.
inline std::size_t sharedScheduleEnd(std::span<const float> a, std::span<const float> b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t t = 2; t < n; ++t) {
        if (chebyshevStart(static_cast<int>(t), 0, a[t - 1], a[t - 2]) !=
            chebyshevStart(static_cast<int>(t), 0, b[t - 1], b[t - 2])) {
            return t + 1;
        }
    }
    return n;
}

inline std::unique_ptr<LcpSolver> gpuSolver() {
    static gpu::ShaderLibrary shaders;
    auto s = makeGpuLcpSolver(shaders);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::move(s).value() : nullptr;
}

class GpuLcpTest : public ::testing::Test {
  protected:
    void SetUp() override {
        WW_REQUIRE_GPU();
        m_gpu = gpuSolver();
        ASSERT_TRUE(m_gpu);
        m_cpu = makeCpuLcpSolver(ww::test::executor());
    }
    std::unique_ptr<LcpSolver> m_gpu, m_cpu;
    const unsigned m_seed = ww::test::freshSeed();
    ::testing::ScopedTrace m_trace{__FILE__, __LINE__, "fresh seed " + std::to_string(m_seed)};
};

}  // namespace ww::lcp
