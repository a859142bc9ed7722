// The `water` benchmark suite (see wave_bench.h).
#include "app/bench/wave_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/bench/cg_bench.h"
#include "render/camera.h"
#include "render/draw_data.h"
#include "render/render_target.h"
#include "render/renderer.h"
#include "solver/cg/vector_kernels.h"
#include "solver/gpu/gpu_context.h"
#include "solver/wave/wave_model.h"

namespace ww::wave {

namespace {

// Bytes a CPU CN step moves per unknown besides its CG iterations: the right-hand side pass
// (read u^n, u^n-1; write b and the guess) 16; the CG's start, r = b - A x with r.r and b.b
// (read x, b; write r) 12; its closing true residual (read x, b) 8; less 4 for the first
// iteration, whose direction p = r reads no p.
constexpr double kCnStepSetupBytesPerUnknown = 32.0;

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

// Krüger & Westermann, Table 44-1, last row: the demo's frames per second (GeForce 6800 GT).
struct PaperFps {
    int nx;
    int ny;
    double fps;
};
constexpr PaperFps kTable44_1Fps[] = {{256, 256, 335.0}, {512, 256, 185.0},  {512, 512, 102.0},
                                      {1024, 512, 52.0}, {1024, 1024, 27.0}, {2048, 1024, 12.0}};

// The demo's frame, headless: one CN step on the GPU, then the water surface drawn from the
// solver's own height buffer into a kFrameWidth x kFrameHeight offscreen target with the
// renderer's default quality for this GL, then glFinish (no window, no swap, no pacing).
constexpr int kFrameWidth = 1280;
constexpr int kFrameHeight = 720;

double demoFrameMs(const std::shared_ptr<const exec::Executor>& ex, const WaveParams& p,
                   const gpu::ShaderLibrary& library, int frames, int repeats) {
    auto model = WaveModel::create(p, Backend::kGpu, &library, ex);
    render::Renderer renderer;
    auto target = render::RenderTarget::create(kFrameWidth, kFrameHeight, 0);
    if (!model || !renderer.init() || !target) {
        return 0.0;
    }
    model->addDrop(0.4f, 0.5f, 0.05f, 0.3f);
    render::DrawData data;
    data.water.enabled = true;
    data.water.nx = p.nx;
    data.water.ny = p.ny;
    data.water.cellSizeM = p.cellSize();
    data.water.baseHeightM = 0.3f;
    render::OrbitCamera camera;
    camera.frame({0.0f, 0.3f, 0.0f},
                 0.55f * p.cellSize() * static_cast<float>(std::max(p.nx, p.ny)));
    bool ok = true;
    const double ms = bench::medianMs(repeats, [&] {
        for (int f = 0; f < frames; ++f) {
            (void)model->step();
            data.water.heightBuffer = model->heightBufferHandle();
            renderer.beginFrame();
            ok = ok && static_cast<bool>(renderer.render(
                           data, camera.camera(),
                           {0, 0, kFrameWidth, kFrameHeight, target->framebuffer()}));
        }
        gpu::GpuContext::current()->finish();
    });
    return ok ? ms / frames : 0.0;
}

struct KwColumn {
    std::string size;
    Measured cpu;
    Measured gpu;
    double frameMs = 0.0;
    double paperFps = 0.0;
};

void printTable44_1WaveRows(const std::vector<KwColumn>& cols, float tolerance) {
    std::printf("\nTable 44-1 (Kruger & Westermann), 2D wave equation:\n%-26s", "");
    for (const KwColumn& c : cols) {
        std::printf(" %10s", c.size.c_str());
    }
    // A value of 0 is one not measured (no GPU): "-".
    const auto line = [&](const char* label, auto&& value) {
        std::printf("\n%-26s", label);
        for (const KwColumn& c : cols) {
            const double v = value(c);
            std::printf(" %10s", bench::cell(v, v > 0.0, "%.1f").c_str());
        }
    };
    line("CN steps/s cpu",
         [](const KwColumn& c) { return c.cpu.ok ? 1000.0 / c.cpu.msPerStep : 0.0; });
    line("CN steps/s gpu",
         [](const KwColumn& c) { return c.gpu.ok ? 1000.0 / c.gpu.msPerStep : 0.0; });
    line("demo fps gpu (headless)",
         [](const KwColumn& c) { return c.frameMs > 0.0 ? 1000.0 / c.frameMs : 0.0; });
    line("  paper, demo fps", [](const KwColumn& c) { return c.paperFps; });
    std::printf(
        "\n(CN step: rhs + warm-started CG to relative residual %.0e, dt = 2x the explicit "
        "limit, rain; demo frame: one CN step + the surface drawn at %dx%d offscreen, "
        "glFinish)\n",
        double(tolerance), kFrameWidth, kFrameHeight);
}

void table44_1Wave(const bench::Options& opts, const gpu::ShaderLibrary& library,
                   bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    std::vector<PaperFps> sizes(std::begin(kTable44_1Fps), std::end(kTable44_1Fps));
    if (opts.quick) {
        sizes.resize(1);
    }
    std::printf(
        "\n== water: Crank-Nicolson steps (warm-started CG to 1e-5, dt = 2x explicit "
        "limit, rain) ==\n");
    std::printf("CPU threads: %d\n", opts.executor->threads());
    std::printf(
        "bound = (%.0f + %.0f x cpu it) B/unknown at the triad GB/s over three arrays of 2 x the "
        "grid (the step's six vectors)\n",
        kCnStepSetupBytesPerUnknown, cg::kCgBytesPerUnknown);
    std::printf("%-10s %10s %9s %7s %9s %9s %8s %10s %9s %7s %10s\n", "grid", "cpu ms", "cpu st/s",
                "cpu it", "triad", "bound ms", "x bound", "gpu ms", "gpu st/s", "gpu it",
                "frame ms");
    std::vector<KwColumn> cols;
    float tolerance = 0.0f;
    for (const PaperFps& s : sizes) {
        KwColumn c;
        c.size = std::to_string(s.nx) + "x" + std::to_string(s.ny);
        c.paperFps = s.fps;
        const WaveParams p = benchParams(s.nx, s.ny, Scheme::kCrankNicolson, 2.0f);
        tolerance = p.cg.tolerance;
        const int steps = s.nx * s.ny >= (1 << 20) ? 5 : 10;
        c.cpu = measure(opts.executor, p, Backend::kCpu, library, steps, repeats);
        const auto cells = static_cast<std::size_t>(s.nx) * static_cast<std::size_t>(s.ny);
        const double triad = cg::measureTriadGBps(*opts.executor, 2 * cells, repeats);
        const double boundMs =
            (kCnStepSetupBytesPerUnknown + cg::kCgBytesPerUnknown * c.cpu.meanIterations) *
            static_cast<double>(cells) / (triad * 1e6);
        if (opts.gpu) {
            c.gpu = measure(opts.executor, p, Backend::kGpu, library, std::max(2, steps / 2),
                            std::min(repeats, 3));
            c.frameMs = demoFrameMs(opts.executor, p, library, std::max(2, steps / 2),
                                    std::min(repeats, 3));
        }
        std::printf("%-10s %10.2f %9.1f %7.1f %9.1f %9.2f %8.2f %10s %9s %7s %10s\n",
                    c.size.c_str(), c.cpu.msPerStep, 1000.0 / c.cpu.msPerStep, c.cpu.meanIterations,
                    triad, boundMs, c.cpu.msPerStep / boundMs,
                    bench::cell(c.gpu.msPerStep, c.gpu.ok, "%.2f").c_str(),
                    bench::cell(1000.0 / c.gpu.msPerStep, c.gpu.ok, "%.1f").c_str(),
                    bench::cell(c.gpu.meanIterations, c.gpu.ok, "%.1f").c_str(),
                    bench::cell(c.frameMs, c.frameMs > 0.0, "%.2f").c_str());
        recorder.add({"water",
                      "cn-step",
                      c.size,
                      "cpu",
                      c.cpu.msPerStep,
                      repeats,
                      {{"triad-bound", boundMs}},
                      {{"steps/s", 1000.0 / c.cpu.msPerStep},
                       {"time-over-bound", c.cpu.msPerStep / boundMs},
                       {"triad-GB/s", triad},
                       {"cg-iterations", c.cpu.meanIterations},
                       {"cg-tolerance", p.cg.tolerance}}});
        if (c.gpu.ok) {
            recorder.add({"water",
                          "cn-step",
                          c.size,
                          "gpu",
                          c.gpu.msPerStep,
                          std::min(repeats, 3),
                          {{"cpu", c.cpu.msPerStep}},
                          {{"steps/s", 1000.0 / c.gpu.msPerStep},
                           {"cg-iterations", c.gpu.meanIterations},
                           {"cg-tolerance", p.cg.tolerance}}});
        }
        if (c.frameMs > 0.0) {
            recorder.add({"water",
                          "demo-frame",
                          c.size,
                          "gpu",
                          c.frameMs,
                          std::min(repeats, 3),
                          {},
                          {{"fps", 1000.0 / c.frameMs},
                           {"paper-fps", s.fps},
                           {"width", kFrameWidth},
                           {"height", kFrameHeight}}});
        }
        cols.push_back(c);
    }
    printTable44_1WaveRows(cols, tolerance);
}

// Warm start (2u^n - u^n-1) against a cold start (0), same surface.
void warmStartRow(const bench::Options& opts, const gpu::ShaderLibrary& library,
                  bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
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
    recorder.add(
        {"water",
         "cn-step-warm-start",
         size,
         "cpu",
         warm.msPerStep,
         std::min(repeats, 3),
         {{"cold-start", cold.msPerStep}},
         {{"cg-iterations", warm.meanIterations}, {"cg-iterations-cold", cold.meanIterations}}});
}

// Bajaj et al., Table 4 (GeForce FX 5900 Ultra, Pentium 4 2.66 GHz): ms per explicit step
// on 512^2, averaged over the first 2000 steps. Their GPU columns: unoptimized, optimized.
constexpr double kBajajCpuTotalMs = 17.73;
constexpr double kBajajGpuTotalMs[2] = {8.34, 8.08};
constexpr double kBajajGpuNoTransferMs[2] = {1.28, 1.02};
constexpr int kBajajSteps = 2000;

// Mean ms per explicit step over the first `steps` steps from a Gaussian bump at rest, set as
// the initial state (no disturbance and no rain inside the timed steps). With `readback`,
// every step ends with the heights copied to the CPU (the paper's per-step transfer).
double meanExplicitStepMs(const std::shared_ptr<const exec::Executor>& ex, const WaveParams& p,
                          Backend backend, const gpu::ShaderLibrary& library, int steps,
                          bool readback) {
    auto model = WaveModel::create(p, backend, &library, ex);
    if (!model) {
        std::printf("  (%s explicit: %s)\n", backendName(backend), model.error().message.c_str());
        return 0.0;
    }
    std::vector<float> u(static_cast<std::size_t>(p.nx) * p.ny);
    const float h = p.cellSize();
    const float radius = 0.3f;
    for (int j = 0; j < p.ny; ++j) {
        for (int i = 0; i < p.nx; ++i) {
            const float x = (static_cast<float>(i) - 0.5f * static_cast<float>(p.nx)) * h;
            const float y = (static_cast<float>(j) - 0.5f * static_cast<float>(p.ny)) * h;
            u[static_cast<std::size_t>(j) * p.nx + i] =
                0.05f * std::exp(-(x * x + y * y) / (radius * radius));
        }
    }
    if (!model->setState(u, u)) {
        return 0.0;
    }
    std::vector<float> host;
    Stopwatch sw;
    for (int s = 0; s < steps; ++s) {
        (void)model->step();
        if (readback) {
            host = model->heights();
        }
    }
    if (backend == Backend::kGpu) {
        gpu::GpuContext::current()->finish();
    }
    return sw.elapsedMs() / steps;
}

void bajajTable4(const bench::Options& opts, const gpu::ShaderLibrary& library,
                 bench::Recorder& recorder) {
    const int side = opts.quick ? 256 : 512;
    const int steps = opts.quick ? 50 : kBajajSteps;
    const std::string size = std::to_string(side) + "x" + std::to_string(side);
    std::printf(
        "\nTable 4 (Bajaj et al.), explicit wave step on %s, ms per step, mean over the "
        "first %d steps\n(dt = 0.9x the stability limit, one drop at rest as the initial "
        "state, no rain; the paper's walls: zero Dirichlet at x = 0 and x = max, zero Neumann "
        "at y = 0 and y = max, --boundary mixed)\n",
        size.c_str(), steps);
    std::printf("%-34s %10s %10s %12s %14s\n", "", "cpu", "gpu", "paper cpu", "paper gpu/opt");
    const cg::Boundary bc = cg::Boundary::kMixed;
    WaveParams p = benchParams(side, side, Scheme::kExplicit, 0.9f);
    p.boundary = bc;
    const char* bcName = cg::boundaryName(bc);
    const double cpuMs = meanExplicitStepMs(opts.executor, p, Backend::kCpu, library, steps, false);
    double gpuTotal = 0.0;
    double gpuCompute = 0.0;
    if (opts.gpu) {
        gpuTotal = meanExplicitStepMs(opts.executor, p, Backend::kGpu, library, steps, true);
        gpuCompute = meanExplicitStepMs(opts.executor, p, Backend::kGpu, library, steps, false);
    }
    std::printf("%-34s %10.3f %10.3f %12.2f %7.2f/%.2f\n",
                (std::string("total, ") + bcName + " walls").c_str(), cpuMs, gpuTotal,
                kBajajCpuTotalMs, kBajajGpuTotalMs[0], kBajajGpuTotalMs[1]);
    std::printf("%-34s %10s %10.3f %12s %7.2f/%.2f\n",
                (std::string("no data transfer, ") + bcName + " walls").c_str(), "-", gpuCompute,
                "-", kBajajGpuNoTransferMs[0], kBajajGpuNoTransferMs[1]);
    const std::string name = std::string("explicit-step-") + bcName;
    recorder.add({"water", name, size, "cpu", cpuMs, 1, {}, {{"steps", steps}}});
    if (opts.gpu) {
        recorder.add({"water",
                      name,
                      size,
                      "gpu",
                      gpuTotal,
                      1,
                      {{"cpu", cpuMs}},
                      {{"steps", steps}, {"readback", 1}}});
        recorder.add({"water",
                      name + "-no-transfer",
                      size,
                      "gpu",
                      gpuCompute,
                      1,
                      {{"cpu", cpuMs}},
                      {{"steps", steps}, {"readback", 0}}});
    }
    std::printf(
        "(cpu: the heights are in host memory, so total = compute; gpu total: every step "
        "ends with the heights read back, as in the paper)\n");
}

}  // namespace

void runWaterBench(const bench::Options& opts, bench::Recorder& recorder) {
    const gpu::ShaderLibrary library;
    table44_1Wave(opts, library, recorder);
    warmStartRow(opts, library, recorder);
    bajajTable4(opts, library, recorder);
}

}  // namespace ww::wave
