// `wavewall info`: what this machine offers wavewall — the GL context (renderer, version,
// limits) and a compute self-test (upload, dispatch, read back, compare).
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"
#include "solver/gpu/gl_objects.h"

namespace ww::app {

namespace {

// y <- a x + y on the GPU against the CPU; returns the max relative error or an error.
Result<double> computeSelfTest(const gpu::ShaderLibrary& shaders) {
    const std::size_t n = 1 << 16;
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = dist(rng);
        y[i] = dist(rng);
    }
    auto program = shaders.build(gpu::ProgramSpec::computeStage("gpu_selftest.comp"));
    if (!program) {
        return program.error();
    }
    auto bx = gpu::Buffer::fromSpan<float>(x, "self-test x");
    auto by = gpu::Buffer::fromSpan<float>(y, "self-test y");
    if (!bx || !by) {
        return bx ? by.error() : bx.error();
    }
    bx->bind(0);
    by->bind(1);
    program->set("uCount", static_cast<unsigned>(n / 4));
    program->set("uA", 0.75f);
    if (Status s = gpu::dispatch(*program, gpu::groupsFor(n / 4, program->localSize()[0])); !s) {
        return s.error();
    }
    gpu::barrier();
    const std::vector<float> out = by->download<float>(n);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double ref = 0.75 * x[i] + y[i];
        // Relative to the operands' size: cancellation makes the result itself tiny at times.
        worst = std::max(worst, std::abs(out[i] - ref) / (0.75 * std::abs(x[i]) + std::abs(y[i])));
    }
    return worst;
}

}  // namespace

CommandAction registerInfoCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "info", "Show the GPU (GL renderer, version, limits) and run a compute self-test");
    auto shaderDir = std::make_shared<std::string>();
    cmd->add_option("--shader-dir", *shaderDir,
                    "Load shaders from this folder instead of the embedded copies");
    return [shaderDir]() -> int {
        GpuSession session;
        Result<Backend> backend = selectBackend("gpu", *shaderDir, session);
        if (!backend) {
            return reportError(backend.error());
        }
        const gpu::GpuInfo& info = gpu::GpuContext::current()->info();
        std::printf("renderer      %s\nvendor        %s\nGL version    %s\nplatform      %s\n",
                    info.renderer.c_str(), info.vendor.c_str(), info.version.c_str(),
                    info.platform.c_str());
        std::printf("max SSBO      %lld MiB\nworkgroup     %d invocations, size %d x %d x %d\n",
                    static_cast<long long>(info.maxSsboBytes >> 20), info.maxWorkgroupInvocations,
                    info.maxWorkgroupSize[0], info.maxWorkgroupSize[1], info.maxWorkgroupSize[2]);
        std::printf("groups        %d x %d x %d\nshared memory %d KiB\ntimer queries %s\n",
                    info.maxWorkgroupCount[0], info.maxWorkgroupCount[1], info.maxWorkgroupCount[2],
                    info.maxSharedBytes >> 10, info.timerQueries ? "yes" : "no");
        Result<double> err = computeSelfTest(session.shaders);
        if (!err) {
            return reportError(err.error());
        }
        // One float multiply-add per element: anything above a few ulps is a broken device.
        const bool pass = *err < 1e-5;
        std::printf("self-test     y = a*x + y on 65536 floats: max rel. error %.2e -> %s\n", *err,
                    pass ? "ok" : "FAILED");
        return pass ? kExitOk : kExitCheckFailed;
    };
}

}  // namespace ww::app
