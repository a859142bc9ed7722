// The `wall` benchmark suite (see wall_bench.h).
#include "app/bench/wall_bench.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/bench/cg_bench.h"
#include "app/bench/wall_peers.h"
#include "solver/core/timer.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_solver.h"
#include "solver/rigid/scenes.h"

namespace ww::rigid {
namespace {

/// Moravanszky's figure for the wall as one dense 400x400 LCP (2003 GPU): 2 s per frame.
constexpr double kPaperMsPerFrame = 2000.0;
/// The paper's matrix: "an initial size of 400x400", the LCP x >= 0, Ax + b >= 0, x^T (Ax + b)
/// = 0 (no friction bounds), solved by x <- max(x + omega D^-1 (Ax + b), 0) with omega = -0.1.
constexpr int kPaperRows = 400;
constexpr double kPaperOmegaInItsSign = -0.1;

enum class Scenario { kRest, kCollapse };

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
        const double cpu0 = bench::processCpuMs();
        const StepStats& st = w.step();
        t.cpuMs.push_back(bench::processCpuMs() - cpu0);
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

/// One frame of the paper's setting, timed as the paper times one: a whole simulation step.
struct PaperFrame {
    double frameMs = 0.0;  ///< collide + assemble (+ posing) + solve + integrate
    double solveMs = 0.0;  ///< the 2n-iteration solve (GPU: upload, dispatches, read-back of x)
    int n = 0;
    int iterations = 0;
    double residual = 0.0;  ///< natural-map residual of the returned x (N s)
};

/// The paper's world: ONE dense matrix, omega 0.1 fixed, 2n iterations, no tolerance, no
/// warm start (each frame solves its matrix from x = 0).
WorldParams paperWorldParams() {
    WorldParams p;
    p.warmStart = false;
    p.restingLoadGuess = false;
    p.mode = LcpMode::kDense;
    p.adaptiveOmega = false;
    p.lcp.omega = lcp::kPaperOmega;
    p.lcp.maxIterations = 0;  // 2n
    p.lcp.tolerance = 0.0f;
    return p;
}

/// `frames` frames of the wall from its start. frictionless: the world runs with friction 0
/// (its friction rows are then pinned at 0) and each frame's LCP is posed again as the paper
/// poses it, the normal rows and columns of the world's dense A and b
/// (paperNormalOnlyProblem), and solved on `backend` from x = 0 in place of the world's own
/// solve: frame = the world's collide + assemble + integrate + posing + that solve. Otherwise
/// the world itself runs on `backend` with friction (three rows per contact) and frame = its
/// whole step.
std::vector<PaperFrame> paperFrames(const std::shared_ptr<const exec::Executor>& ex,
                                    Backend backend, const gpu::ShaderLibrary& shaders,
                                    bool frictionless, int frames) {
    WorldParams params = paperWorldParams();
    if (frictionless) {
        params.friction = 0.0f;
    }
    // The paper's 60 cubes with 2 cm between the columns: 240 normal rows (720 with friction),
    // where touching columns give 816 (2448); the paper's 400 lies between. 2n dense Jacobi
    // iterations on the touching wall's 2448 rows cost ~40x the gapped wall's per frame (tens
    // of minutes on llvmpipe), so the paper's setting keeps the gapped wall.
    WallParams wall;
    wall.columnGapM = 0.02f;
    World w = makeWallWorld(ex, wall, params);
    std::unique_ptr<lcp::LcpSolver> solver;
    if (frictionless) {
        if (backend == Backend::kGpu) {
            auto gpuSolver = lcp::makeGpuLcpSolver(shaders);
            if (!gpuSolver) {
                std::printf("  (gpu: %s)\n", gpuSolver.error().message.c_str());
                return {};
            }
            solver = std::move(gpuSolver).value();
        } else {
            solver = lcp::makeCpuLcpSolver(ex);
        }
    } else if (backend == Backend::kGpu && !w.setBackend(backend, &shaders).ok()) {
        return {};
    }
    std::vector<PaperFrame> out;
    std::vector<float> x;
    for (int f = 0; f < frames; ++f) {
        const StepStats& st = w.step();
        PaperFrame fr;
        if (!frictionless) {
            fr.frameMs = st.totalMs;
            fr.solveMs = st.solveMs;
            fr.n = st.lcpNMax;
            fr.iterations = st.iterationsMax;
            fr.residual = st.residualMax;
            out.push_back(fr);
            continue;
        }
        const Stopwatch pose;
        const lcp::LcpProblem problem = paperNormalOnlyProblem(w.lcpBlocks()[0]);
        const double poseMs = pose.elapsedMs();
        x.assign(static_cast<std::size_t>(problem.n), 0.0f);
        lcp::LcpOptions o = params.lcp;
        o.maxIterations = 0;  // 2n of this problem's n
        const Stopwatch solve;
        const lcp::LcpReport report = solver->solve(problem, x, o);
        fr.solveMs = solve.elapsedMs();
        if (!report.error.empty()) {
            std::printf("  (%s: %s)\n", backendName(backend), report.error.c_str());
            return {};
        }
        fr.frameMs = st.collideMs + st.assembleMs + poseMs + fr.solveMs + st.integrateMs;
        fr.n = problem.n;
        fr.iterations = report.iterations;
        fr.residual = lcp::naturalResidual(problem, x);
        out.push_back(fr);
    }
    return out;
}

/// Moravanszky's section 5 as closely as this wall allows, beside today's setting: the same
/// 60-cube wall at its start, one dense LCP, omega 0.1 (the paper's -0.1 in its sign), 2n
/// iterations from x = 0, each frame timed whole; the paper's 2 s per frame beside it.
void paperWall(const bench::Options& opts, const gpu::ShaderLibrary& shaders,
               bench::Recorder& recorder) {
    std::printf(
        "\nMoravanszky section 5: the 60-cube wall (10x6) at its start as ONE dense LCP, 2n "
        "projected Jacobi iterations from x = 0\n");
    std::printf(
        "omega_paper = %.1f (x <- max(x + omega D^-1 (Ax + b), 0)); ours = %.1f (x <- clamp(x - "
        "omega D^-1 (Ax + b)))\n",
        kPaperOmegaInItsSign, static_cast<double>(lcp::kPaperOmega));
    std::printf(
        "frame = one whole simulation step, as the paper's 2 s/frame: collide + assemble "
        "(+ posing the normal rows) + solve (gpu: upload of A and b, dispatches, read-back of x) "
        "+ integrate; no drawing\n");
    std::printf("%-30s %-4s %6s %7s %6s %9s %9s %9s %9s %10s %10s\n", "problem", "be", "n",
                "paper n", "iters", "residual", "solve ms", "frame ms", "paper ms", "ours/paper",
                "paper/ours");
    struct Setting {
        const char* name;
        const char* label;
        bool frictionless;
    };
    for (const Setting& s : {Setting{"paper-normal-only-2n", "paper's LCP: normal rows only", true},
                             Setting{"paper-dense-2n", "today's LCP: with friction", false}}) {
        for (Backend be : {Backend::kCpu, Backend::kGpu}) {
            if (be == Backend::kGpu && !opts.gpu) {
                continue;
            }
            // llvmpipe is slow: the GPU rows time fewer frames.
            const int frames = opts.quick ? 1 : (be == Backend::kGpu ? 3 : 5);
            const std::vector<PaperFrame> fr =
                paperFrames(opts.executor, be, shaders, s.frictionless, frames);
            if (fr.empty()) {
                continue;
            }
            std::vector<double> frameMs, solveMs;
            int nMax = 0, itMax = 0;
            double resMax = 0.0;
            for (const PaperFrame& f : fr) {
                frameMs.push_back(f.frameMs);
                solveMs.push_back(f.solveMs);
                nMax = std::max(nMax, f.n);
                itMax = std::max(itMax, f.iterations);
                resMax = std::max(resMax, f.residual);
            }
            const double frame = bench::median(frameMs);
            std::printf("%-30s %-4s %6d %7d %6d %9.2e %9.1f %9.1f %9.0f %10.4f %10.3g\n", s.label,
                        backendName(be), nMax, kPaperRows, itMax, resMax, bench::median(solveMs),
                        frame, kPaperMsPerFrame, frame / kPaperMsPerFrame,
                        kPaperMsPerFrame / frame);
            bench::Record r;
            r.suite = "wall";
            r.name = s.name;
            r.size = "10x6";
            r.backend = backendName(be);
            r.medianMs = frame;
            r.repeats = static_cast<int>(fr.size());
            r.baselines.push_back({"moravanszky-2003-gpu", kPaperMsPerFrame});
            r.metrics = {{"lcp_n", nMax},
                         {"paper_n", kPaperRows},
                         {"iterations", itMax},
                         {"residual_max", resMax},
                         {"solve_ms", bench::median(solveMs)},
                         {"frame_max_ms", bench::quantile(frameMs, 1.0)}};
            recorder.add(r);
        }
    }
    std::printf(
        "(median over the first %s frames (gpu: %s); paper n: its \"initial size of 400x400\"; "
        "ours: 4 contact points per brick face, 1 row each without friction, 3 with)\n",
        opts.quick ? "1" : "5", opts.quick ? "1" : "3");
}

}  // namespace

lcp::LcpProblem paperNormalOnlyProblem(const lcp::LcpProblem& full) {
    std::vector<int> rows;
    for (int i = 0; i < full.n; ++i) {
        if (!full.hasFriction() || full.frictionNormal[static_cast<std::size_t>(i)] < 0) {
            rows.push_back(i);
        }
    }
    const int m = static_cast<int>(rows.size());
    lcp::LcpProblem p = lcp::LcpProblem::plain(m);
    const auto n = static_cast<std::size_t>(full.n);
    for (int r = 0; r < m; ++r) {
        const std::size_t fr = static_cast<std::size_t>(rows[static_cast<std::size_t>(r)]);
        for (int c = 0; c < m; ++c) {
            p.a[static_cast<std::size_t>(r) * static_cast<std::size_t>(m) +
                static_cast<std::size_t>(c)] =
                full.a[fr * n + static_cast<std::size_t>(rows[static_cast<std::size_t>(c)])];
        }
        p.b[static_cast<std::size_t>(r)] = full.b[fr];
    }
    return p;
}

// Table: one matrix-free Jacobi pass of a touching wall's island against the memory-bandwidth
// bound. The bytes a pass must move at the least: the operator's arrays and x once
// (RowOperator::productBytes), and the projection's per-row arrays once (b, lo, hi, the step
// scales, x^{t+1} written, x^{t-1} read under Chebyshev) and the contacts' mu; the bound is
// that many bytes at the triad bandwidth of a working set of that size. The solve phase of a
// step is about its pass count times this pass.
void wallPassBound(const bench::Options& opts, bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const std::vector<std::pair<int, int>> walls =
        opts.quick ? std::vector<std::pair<int, int>>{{10, 6}}
                   : std::vector<std::pair<int, int>>{{20, 20}, {40, 25}, {70, 50}};
    constexpr int kIterations = 50;  // the default cap: kIterations + 1 passes a solve
    std::printf(
        "\n== wall: a matrix-free Jacobi pass against the bandwidth bound (touching walls at "
        "rest, their one island; %d threads) ==\n",
        opts.executor->threads());
    std::printf(
        "(bytes: what a pass must move at the least, each array once; bound: those bytes at the "
        "triad GB/s of a working set that size; solve: %d iterations, %d passes)\n",
        kIterations, kIterations + 1);
    std::printf("%-8s %7s %6s %9s %10s %8s %8s %10s %8s %12s\n", "wall", "rows", "bodies",
                "MB/pass", "us/pass", "GB/s", "triad", "bound us", "x bound", "solve ms");
    auto solver = lcp::makeCpuLcpSolver(opts.executor);
    for (const auto& [cols, rows] : walls) {
        WallParams wp;
        wp.cols = cols;
        wp.rows = rows;
        wp.columnGapM = 0.0f;  // touching: one island
        World w = makeWallWorld(opts.executor, wp, WorldParams{});
        for (int s = 0; s < 3; ++s) {
            w.step();
        }
        // The largest matrix-free block, with the step's impulses as its guess.
        int best = -1;
        for (int k = 0; k < static_cast<int>(w.lcpBlocks().size()); ++k) {
            const lcp::LcpProblem& b = w.lcpBlocks()[static_cast<std::size_t>(k)];
            if (b.matrixFree() &&
                (best < 0 || b.n > w.lcpBlocks()[static_cast<std::size_t>(best)].n)) {
                best = k;
            }
        }
        const std::string size = std::to_string(cols) + "x" + std::to_string(rows);
        if (best < 0) {
            std::printf("%-8s (no matrix-free block)\n", size.c_str());
            continue;
        }
        const lcp::LcpProblem& p = w.lcpBlocks()[static_cast<std::size_t>(best)];
        std::vector<float> guess(static_cast<std::size_t>(p.n));
        const std::span<const int> ids = w.blockContacts(best);
        for (std::size_t c = 0; c < ids.size(); ++c) {
            for (std::size_t r = 0; r < 3; ++r) {
                guess[3 * c + r] = w.contacts()[static_cast<std::size_t>(ids[c])].impulse[r];
            }
        }
        lcp::LcpOptions o = w.params().lcp;
        o.omega = w.lastStats().omega;
        o.tolerance = 0.0f;  // every pass runs
        o.maxIterations = kIterations;
        std::vector<float> x(guess.size());
        const auto n = static_cast<double>(p.n);
        const double perRow = 5.0 + (o.chebyshevRho > 0.0f ? 1.0 : 0.0);
        const double bytes =
            static_cast<double>(p.op.productBytes()) + sizeof(float) * (perRow * n + n / 3.0);
        const double solveMs = bench::warmMedianMs(repeats, [&] {
            x = guess;
            (void)solver->solve(p, x, o);
        });
        const double passUs = 1000.0 * solveMs / (kIterations + 1);
        const double triad = cg::measureTriadGBps(
            *opts.executor, std::max<std::size_t>(1024, static_cast<std::size_t>(bytes / 12.0)),
            repeats);
        const double boundUs = bytes / (triad * 1e3);
        const double gbps = bytes / (passUs * 1e3);
        std::printf("%-8s %7d %6d %9.2f %10.1f %8.1f %8.1f %10.1f %8.2f %12.2f\n", size.c_str(),
                    p.n, p.op.bodies(), bytes / 1e6, passUs, gbps, triad, boundUs, passUs / boundUs,
                    solveMs);
        bench::Record r;
        r.suite = "wall";
        r.name = "jacobi-pass";
        r.size = size;
        r.backend = "cpu";
        r.medianMs = passUs / 1000.0;
        r.repeats = repeats;
        r.baselines = {{"bandwidth-bound", boundUs / 1000.0}};
        r.metrics = {{"rows", n},
                     {"bytes-per-pass", bytes},
                     {"GB/s", gbps},
                     {"triad-GB/s", triad},
                     {"time-over-bound", passUs / boundUs},
                     {"solve-ms", solveMs}};
        recorder.add(r);
    }
}

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

    paperWall(opts, shaders, recorder);
    wallPassBound(opts, recorder);
    bench::runWallPeers(opts, recorder);
}

}  // namespace ww::rigid
