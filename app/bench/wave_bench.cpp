// The `water` benchmark suite (see wave_bench.h).
#include "app/bench/wave_bench.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "solver/cg/vector_kernels.h"
#include "solver/gpu/gpu_context.h"
#include "solver/wave/wave_model.h"

namespace ww::wave {

namespace {

struct Measured {
    double msPerStep = 0.0;
    double meanIterations = 0.0;
    bool ok = false;
};

WaveParams benchParams(int nx, int ny, Scheme scheme, float dtRatio) {
    WaveParams p;
    p.nx = nx;
    p.ny = ny;
    p.scheme = scheme;
    p.dtRatio = dtRatio;
    p.trackEnergy = false;
    return p;
}

// Median over repeats of the mean step time over `steps` steps, after a few warm-up steps
// with a drop and rain so the surface is busy.
Measured measure(const std::shared_ptr<const exec::Executor>& ex, const WaveParams& p,
                 Backend backend, const gpu::ShaderLibrary& library, int steps, int repeats) {
    Measured out;
    auto model = WaveModel::create(p, backend, &library, ex);
    if (!model) {
        std::printf("  (%s %s: %s)\n", backendName(backend), schemeName(p.scheme),
                    model.error().message.c_str());
        return out;
    }
    model->addDrop(0.4f, 0.5f, 0.05f, 0.3f);
    model->setRain(true, 20.0f, 1234);
    for (int s = 0; s < 3; ++s) {
        (void)model->step();
    }
    long iterations = 0;
    long counted = 0;
    const double ms = bench::medianMs(repeats, [&] {
        for (int s = 0; s < steps; ++s) {
            iterations += model->step().cgIterations;
            ++counted;
        }
        if (backend == Backend::kGpu && gpu::GpuContext::current() != nullptr) {
            gpu::GpuContext::current()->finish();
        }
    });
    out.msPerStep = ms / steps;
    out.meanIterations = counted > 0 ? double(iterations) / double(counted) : 0.0;
    out.ok = true;
    return out;
}

}  // namespace

void runWaterBench(const bench::Options& opts, bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const gpu::ShaderLibrary library;
    struct Size {
        int nx;
        int ny;
    };
    const std::vector<Size> sizes =
        opts.quick ? std::vector<Size>{{256, 256}}
                   : std::vector<Size>{{256, 256}, {512, 512}, {1024, 1024}, {2048, 1024}};
    std::printf(
        "\n== water: Crank-Nicolson steps (warm-started CG to 1e-5, dt = 2x explicit "
        "limit, rain) ==\n");
    std::printf("CPU threads: %d\n", opts.executor->threads());
    std::printf("%-10s %10s %9s %7s %10s %9s %7s\n", "grid", "cpu ms", "cpu st/s", "cpu it",
                "gpu ms", "gpu st/s", "gpu it");
    struct Row {
        std::string size;
        double cpuSps;
        double gpuSps;
    };
    std::vector<Row> rows;
    for (const Size& s : sizes) {
        const std::string size = std::to_string(s.nx) + "x" + std::to_string(s.ny);
        const WaveParams p = benchParams(s.nx, s.ny, Scheme::kCrankNicolson, 2.0f);
        const int steps = s.nx * s.ny >= (1 << 20) ? 5 : 10;
        const Measured cpu = measure(opts.executor, p, Backend::kCpu, library, steps, repeats);
        Measured gpu;
        if (opts.gpu) {
            gpu = measure(opts.executor, p, Backend::kGpu, library, std::max(2, steps / 2),
                          std::min(repeats, 3));
        }
        std::printf("%-10s %10.2f %9.1f %7.1f %10.2f %9.1f %7.1f\n", size.c_str(), cpu.msPerStep,
                    1000.0 / cpu.msPerStep, cpu.meanIterations, gpu.msPerStep,
                    gpu.ok ? 1000.0 / gpu.msPerStep : 0.0, gpu.meanIterations);
        rows.push_back({size, 1000.0 / cpu.msPerStep, gpu.ok ? 1000.0 / gpu.msPerStep : 0.0});
        recorder.add(
            {"water",
             "cn-step",
             size,
             "cpu",
             cpu.msPerStep,
             repeats,
             {},
             {{"steps/s", 1000.0 / cpu.msPerStep}, {"cg-iterations", cpu.meanIterations}}});
        if (gpu.ok) {
            recorder.add(
                {"water",
                 "cn-step",
                 size,
                 "gpu",
                 gpu.msPerStep,
                 std::min(repeats, 3),
                 {{"cpu", cpu.msPerStep}},
                 {{"steps/s", 1000.0 / gpu.msPerStep}, {"cg-iterations", gpu.meanIterations}}});
        }
    }
    std::printf("\nTable 44-1 style, 2D wave equation steps per second:\n%-8s", "");
    for (const Row& r : rows) {
        std::printf(" %10s", r.size.c_str());
    }
    std::printf("\n%-8s", "cpu");
    for (const Row& r : rows) {
        std::printf(" %10.1f", r.cpuSps);
    }
    std::printf("\n%-8s", "gpu");
    for (const Row& r : rows) {
        std::printf(" %10.1f", r.gpuSps);
    }
    std::printf("\n");

    // Warm start (2u^n - u^n-1) against a cold start (0), same surface.
    {
        const int side = opts.quick ? 256 : 1024;
        const std::string size = std::to_string(side) + "x" + std::to_string(side);
        WaveParams p = benchParams(side, side, Scheme::kCrankNicolson, 2.0f);
        const Measured warm =
            measure(opts.executor, p, Backend::kCpu, library, 5, std::min(repeats, 3));
        p.warmStart = false;
        const Measured cold =
            measure(opts.executor, p, Backend::kCpu, library, 5, std::min(repeats, 3));
        std::printf(
            "\nwarm vs cold start at %s: %.1f vs %.1f CG iterations/step, %.2f vs %.2f "
            "ms/step\n",
            size.c_str(), warm.meanIterations, cold.meanIterations, warm.msPerStep, cold.msPerStep);
        recorder.add({"water",
                      "cn-step-warm-start",
                      size,
                      "cpu",
                      warm.msPerStep,
                      std::min(repeats, 3),
                      {{"cold-start", cold.msPerStep}},
                      {{"cg-iterations", warm.meanIterations},
                       {"cg-iterations-cold", cold.meanIterations}}});
    }

    // Bajaj et al., Table 4: ms per explicit step on 512^2 (below the stability limit).
    {
        const int side = opts.quick ? 256 : 512;
        const std::string size = std::to_string(side) + "x" + std::to_string(side);
        const WaveParams p = benchParams(side, side, Scheme::kExplicit, 0.9f);
        const Measured cpu = measure(opts.executor, p, Backend::kCpu, library, 50, repeats);
        Measured gpu;
        if (opts.gpu) {
            gpu = measure(opts.executor, p, Backend::kGpu, library, 20, std::min(repeats, 3));
        }
        std::printf("\nexplicit step at %s (Bajaj Table 4): cpu %.3f ms, gpu %.3f ms\n",
                    size.c_str(), cpu.msPerStep, gpu.msPerStep);
        recorder.add({"water", "explicit-step", size, "cpu", cpu.msPerStep, repeats, {}, {}});
        if (gpu.ok) {
            recorder.add({"water",
                          "explicit-step",
                          size,
                          "gpu",
                          gpu.msPerStep,
                          std::min(repeats, 3),
                          {{"cpu", cpu.msPerStep}},
                          {}});
        }
    }
}

}  // namespace ww::wave
