// The `wall` benchmark suite (see wall_bench.h).
#include "app/bench/wall_bench.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/bench/wall_peers.h"
#include "solver/gpu/shader_library.h"
#include "solver/rigid/scenes.h"

namespace ww::rigid {
namespace {

/// Moravanszky's figure for the wall as one dense 400x400 LCP (2003 GPU): 2 s per frame.
constexpr double kPaperMsPerFrame = 2000.0;

enum class Scenario { kRest, kCollapse };

/// CPU time of the whole process (all threads, ms): on a machine shared with other jobs the
/// wall-clock time of a step includes waiting for a core; the CPU time it consumed does not,
/// and on an idle 2-core machine the step takes at most that long.
double processCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

struct Trajectory {
    std::vector<double> cpuMs;
    std::vector<double> stepMs, collideMs, assembleMs, solveMs, integrateMs;
    int nMax = 0, contactsMax = 0, islandsMax = 0;
    double iterationsMean = 0.0;
};

/// Settles the wall (rest) or settles and shoots (collapse), then times `steps` steps.
Trajectory run(const std::shared_ptr<const exec::Executor>& ex, Scenario scenario,
               const WorldParams& params, Backend backend, const gpu::ShaderLibrary* shaders,
               int settle, int steps) {
    World w = makeWallWorld(ex, WallParams{}, params);
    Trajectory t;
    if (backend == Backend::kGpu && !w.setBackend(backend, shaders).ok()) {
        return t;
    }
    for (int s = 0; s < settle; ++s) {
        w.step();
    }
    if (scenario == Scenario::kCollapse) {
        shootSphere(w, ShotParams{});
    }
    double itSum = 0.0;
    for (int s = 0; s < steps; ++s) {
        const double cpu0 = processCpuMs();
        const StepStats& st = w.step();
        t.cpuMs.push_back(processCpuMs() - cpu0);
        t.stepMs.push_back(st.totalMs);
        t.collideMs.push_back(st.collideMs);
        t.assembleMs.push_back(st.assembleMs);
        t.solveMs.push_back(st.solveMs);
        t.integrateMs.push_back(st.integrateMs);
        t.nMax = std::max(t.nMax, st.lcpNMax);
        t.contactsMax = std::max(t.contactsMax, st.contacts);
        t.islandsMax = std::max(t.islandsMax, st.islands);
        itSum += st.iterationsMean;
    }
    t.iterationsMean = steps > 0 ? itSum / steps : 0.0;
    return t;
}

bench::Record toRecord(const std::string& name, const std::string& backend, const Trajectory& t) {
    bench::Record r;
    r.suite = "wall";
    r.name = name;
    r.size = "10x6";
    r.backend = backend;
    r.medianMs = bench::median(t.stepMs);
    r.repeats = static_cast<int>(t.stepMs.size());
    r.metrics = {{"p95_ms", bench::quantile(t.stepMs, 0.95)},
                 {"cpu_time_p50_ms", bench::quantile(t.cpuMs, 0.5)},
                 {"cpu_time_p95_ms", bench::quantile(t.cpuMs, 0.95)},
                 {"max_ms", bench::quantile(t.stepMs, 1.0)},
                 {"collide_ms", bench::quantile(t.collideMs, 0.5)},
                 {"assemble_ms", bench::quantile(t.assembleMs, 0.5)},
                 {"solve_ms", bench::quantile(t.solveMs, 0.5)},
                 {"integrate_ms", bench::quantile(t.integrateMs, 0.5)},
                 {"lcp_n_max", t.nMax},
                 {"contacts_max", t.contactsMax},
                 {"islands_max", t.islandsMax},
                 {"iterations_mean", t.iterationsMean}};
    return r;
}

void printRow(const bench::Record& r) {
    const auto m = [&](const char* key) {
        for (const auto& [k, v] : r.metrics) {
            if (k == key) {
                return v;
            }
        }
        return 0.0;
    };
    std::printf("%-30s %-4s %6.0f %5.0f %4.0f %6.1f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n",
                r.name.c_str(), r.backend.c_str(), m("lcp_n_max"), m("contacts_max"),
                m("islands_max"), m("iterations_mean"), m("collide_ms"), m("assemble_ms"),
                m("solve_ms"), m("integrate_ms"), r.medianMs, m("p95_ms"), m("cpu_time_p95_ms"));
}

}  // namespace

void runWallBench(const bench::Options& opts, bench::Recorder& recorder) {
    const int settle = opts.quick ? 10 : 60;
    const int steps = opts.quick ? 20 : 180;
    const gpu::ShaderLibrary shaders;
    std::printf("\n== wall: 60-cube wall (10x6), dt 1/60 s, per-step ms (p50 per phase) ==\n");
    std::printf("%-30s %-4s %6s %5s %4s %6s %8s %8s %8s %8s %8s %8s %8s\n", "scenario", "be",
                "n max", "cont", "isl", "iters", "collide", "assemble", "solve", "integr",
                "step p50", "step p95", "cpu p95");
    std::printf(
        "(cpu p95: process CPU time per step, all threads: what a step costs without "
        "other jobs on the cores)\n");

    struct Variant {
        Scenario scenario;
        LcpMode mode;
        lcp::LcpMethod method;
    };
    std::vector<Variant> variants;
    for (Scenario sc : {Scenario::kRest, Scenario::kCollapse}) {
        for (LcpMode mode : {LcpMode::kIslands, LcpMode::kDense}) {
            variants.push_back({sc, mode, lcp::LcpMethod::kJacobi});
        }
        variants.push_back({sc, LcpMode::kIslands, lcp::LcpMethod::kGaussSeidel});
    }
    for (const Variant& v : variants) {
        WorldParams p;
        p.mode = v.mode;
        p.lcp.method = v.method;
        if (v.method == lcp::LcpMethod::kGaussSeidel) {
            p.lcp.omega = 1.0f;
        }
        const std::string name =
            std::string(v.scenario == Scenario::kRest ? "rest" : "collapse") + "-" +
            toString(v.mode) +
            (v.method == lcp::LcpMethod::kGaussSeidel ? "-gauss-seidel" : "-jacobi");
        bench::Record cpu = toRecord(
            name, "cpu", run(opts.executor, v.scenario, p, Backend::kCpu, nullptr, settle, steps));
        printRow(cpu);
        if (opts.gpu && v.method == lcp::LcpMethod::kJacobi) {
            // llvmpipe is slow: the GPU rows use fewer steps.
            const Trajectory gt = run(opts.executor, v.scenario, p, Backend::kGpu, &shaders, settle,
                                      std::max(10, steps / 6));
            if (!gt.stepMs.empty()) {
                bench::Record gpu = toRecord(name, "gpu", gt);
                gpu.baselines.push_back({"cpu", cpu.medianMs});
                printRow(gpu);
                recorder.add(gpu);
            }
        }
        recorder.add(cpu);
    }

    // The paper's setting: the wall as ONE dense matrix, omega 0.1, 2n iterations, no warm
    // start (the paper's frame solves its 400x400 matrix from scratch).
    WorldParams paper;
    paper.warmStart = false;
    paper.mode = LcpMode::kDense;
    paper.adaptiveOmega = false;
    paper.lcp.omega = lcp::kPaperOmega;
    paper.lcp.maxIterations = 0;  // 2n
    paper.lcp.tolerance = 0.0f;
    const int paperSteps = opts.quick ? 1 : std::max(1, std::min(opts.repeats, 5));
    for (Backend be : {Backend::kCpu, Backend::kGpu}) {
        if (be == Backend::kGpu && !opts.gpu) {
            continue;
        }
        const Trajectory t = run(opts.executor, Scenario::kRest, paper, be, &shaders, 1,
                                 be == Backend::kGpu ? 1 : paperSteps);
        if (t.stepMs.empty()) {
            continue;
        }
        bench::Record r = toRecord("paper-dense-2n", backendName(be), t);
        r.baselines.push_back({"moravanszky-2003-gpu", kPaperMsPerFrame});
        printRow(r);
        std::printf(
            "  paper setting (%s): %.1f ms per step = %.4f x the paper's 2 s/frame "
            "(n = %d, %d iterations)\n",
            backendName(be), r.medianMs, r.medianMs / kPaperMsPerFrame, t.nMax, 2 * t.nMax);
        recorder.add(r);
    }

    bench::runWallPeers(opts, recorder);
}

}  // namespace ww::rigid
