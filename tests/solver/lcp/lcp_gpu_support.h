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

/// How much of a Chebyshev residual history two float backends must share. Pass t restarts the
/// weight schedule when r_{t-1} > kChebyshevRestartRise r_{t-2} (chebyshevStart); when the two
/// sides of that test are within 2e-4 relative (backends' histories differ by ~3e-5 relative),
/// rounding decides the restart, and from pass t + 1 on the backends may follow different
/// schedules. Returns t + 1 for the first such tie (histories agree on [0, t]), else the size.
/// Seed 3767509001 in the matrix-free test: r_54 / r_53 = 1.010021 on the CPU, just above the
/// threshold 1.01, and just below it on llvmpipe.
inline std::size_t restartTieEnd(std::span<const float> history) {
    for (std::size_t t = 2; t < history.size(); ++t) {
        const double rise = kChebyshevRestartRise * static_cast<double>(history[t - 2]);
        if (std::abs(history[t - 1] - rise) <= 2e-4 * rise) {
            return t + 1;
        }
    }
    return history.size();
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
