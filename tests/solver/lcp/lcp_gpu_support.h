// What the GPU LCP tests share: the GPU solver on the embedded shaders, and a fixture with a
// GPU context (skipped locally without one, failed when CI=true), the GPU and CPU solvers, and
// a fresh seed that failures report.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "lcp_generators.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_solver.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"

namespace ww::lcp {

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
