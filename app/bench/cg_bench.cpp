// The `cg` benchmark suite (see cg_bench.h).
#include "app/bench/cg_bench.h"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "solver/cg/cg_cpu.h"
#include "solver/cg/cg_gpu.h"
#include "solver/cg/vector_kernels.h"
#include "solver/gpu/gpu_context.h"

namespace ww::cg {

namespace {

// Bytes the fused matrix-free CPU CG moves per unknown and iteration: direction pass (read
// r, p; write p) 12 + update pass (read x, p, r; write x, r; A p recomputed) 20.
constexpr double kCgBytesPerUnknown = 32.0;
constexpr int kTimedIterations = 30;

struct GridSize {
    int nx;
    int ny;
    std::string name() const { return std::to_string(nx) + "x" + std::to_string(ny); }
    std::size_t n() const { return static_cast<std::size_t>(nx) * ny; }
};

std::vector<GridSize> sizes(bool quick) {
    if (quick) {
        return {{256, 256}};
    }
    return {{256, 256}, {512, 512}, {1024, 1024}, {2048, 1024}};
}

std::vector<float> pseudoRandom(std::size_t n, std::uint32_t seed) {
    std::vector<float> v(n);
    std::uint32_t s = seed;
    for (float& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) * 0x1.0p-24f - 0.5f;
    }
    return v;
}

void syncGpu() {
    if (gpu::GpuContext* ctx = gpu::GpuContext::current()) {
        ctx->finish();
    }
}

// The CN system at c dt / h = 2: alpha = (c dt / h)^2 / 4 = 1, reflecting walls.
StencilOperator cnSystem(const GridSize& g) {
    return {g.nx, g.ny, 1.0f, Boundary::kNeumann};
}

struct VectorRow {
    std::string size;
    double reduceMs;
    double vvMs;
    double gpuReduceMs = 0.0;
    double gpuVvMs = 0.0;
};

// One row of the CG-iteration table: our CPU CG against Eigen's on the same SparseMatrix and
// the triad bound for the grid's working set; the GPU CG.
void cgIterationRow(const GridSize& g, const bench::Options& opts, double dramTriad,
                    const gpu::ShaderLibrary& library, bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const StencilOperator op = cnSystem(g);
    const std::size_t n = g.n();
    const std::vector<float> b = pseudoRandom(n, 7u);
    std::vector<float> x(n, 0.0f);
    CpuCgSolver solver(opts.executor, n);
    CgOptions o;
    o.tolerance = 0.0f;
    o.maxIterations = kTimedIterations;
    int iterations = kTimedIterations;
    const double cpuMs = bench::medianMs(repeats,
                                         [&] {
                                             std::fill(x.begin(), x.end(), 0.0f);
                                             iterations =
                                                 std::max(1, solver.solve(op, b, x, o).iterations);
                                         }) /
                         iterations;

    // Eigen: the same matrix as a SparseMatrix, same start, same iteration count.
    const std::vector<Triplet> t = op.triplets();
    std::vector<Eigen::Triplet<float>> et;
    et.reserve(t.size());
    for (const Triplet& e : t) {
        et.emplace_back(e.row, e.col, e.value);
    }
    Eigen::SparseMatrix<float> a(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    a.setFromTriplets(et.begin(), et.end());
    // Eigen gets the same number of threads as our kernels.
    Eigen::setNbThreads(opts.executor->threads());
    Eigen::ConjugateGradient<Eigen::SparseMatrix<float>, Eigen::Lower | Eigen::Upper> eigenCg;
    eigenCg.compute(a);
    const int eigenIterations = opts.quick ? 10 : (n > (1u << 20) ? 5 : 10);
    eigenCg.setMaxIterations(eigenIterations);
    eigenCg.setTolerance(1e-30f);
    const Eigen::Map<const Eigen::VectorXf> eb(b.data(), static_cast<Eigen::Index>(n));
    Eigen::VectorXf ex = Eigen::VectorXf::Zero(static_cast<Eigen::Index>(n));
    double eigenIts = eigenIterations;
    const double eigenMs =
        bench::medianMs(std::min(repeats, 3),
                        [&] {
                            ex.setZero();
                            ex = eigenCg.solveWithGuess(eb, ex);
                            eigenIts = std::max<double>(1.0, double(eigenCg.iterations()));
                        }) /
        eigenIts;

    // The bound for this working set: a triad over arrays as long as the grid (at 1024^2
    // the CG's four vectors, 16 MB, still fit in this CPU's L3; at 2048x1024 they do not).
    const double triad = measureTriadGBps(*opts.executor, n, repeats);
    const double gbps = kCgBytesPerUnknown * static_cast<double>(n) / (cpuMs * 1e6);
    const double boundMs = kCgBytesPerUnknown * static_cast<double>(n) / (triad * 1e6);

    double gpuMs = 0.0;
    if (opts.gpu) {
        const GpuOperator gop = GpuOperator::fromStencil(op);
        auto gsolver = GpuCgSolver::create(library, gop);
        auto gb = gpu::Buffer::fromSpan(std::span<const float>(b), "bench b");
        auto gx = gpu::Buffer::create(n * sizeof(float), nullptr, "bench x");
        if (gsolver && gb && gx) {
            CgOptions go = o;
            go.checkEvery = kTimedIterations;
            int gIts = kTimedIterations;
            gpuMs = bench::medianMs(std::min(repeats, 3),
                                    [&] {
                                        gx->clear();
                                        auto r = gsolver->solve(gop, gb.value(), gx.value(), go);
                                        syncGpu();
                                        gIts = r ? std::max(1, r->iterations) : 1;
                                    }) /
                    gIts;
        }
    }
    std::printf("%-10s %10.3f %11.3f %8.1f %8.1f %8.1f %9.3f %8.2f %10.3f\n", g.name().c_str(),
                cpuMs, eigenMs, eigenMs / cpuMs, gbps, triad, boundMs, cpuMs / boundMs, gpuMs);
    bench::Record rec{"cg",
                      "cg-iteration",
                      g.name(),
                      "cpu",
                      cpuMs,
                      repeats,
                      {{"eigen", eigenMs}, {"triad-bound", boundMs}},
                      {{"GB/s", gbps},
                       {"speedup-vs-eigen", eigenMs / cpuMs},
                       {"time-over-bound", cpuMs / boundMs},
                       {"triad-GB/s", triad},
                       {"dram-triad-GB/s", dramTriad},
                       {"threads", opts.executor->threads()}}};
    recorder.add(rec);
    if (opts.gpu && gpuMs > 0.0) {
        recorder.add({"cg",
                      "cg-iteration",
                      g.name(),
                      "gpu",
                      gpuMs,
                      std::min(repeats, 3),
                      {{"cpu", cpuMs}, {"eigen", eigenMs}},
                      {{"dispatches/iteration", GpuCgSolver::kDispatchesPerIteration}}});
    }
}

// One column of the Table 44-1 style table: a reduce (dot) and a vector-vector op
// (p = r + beta p) on the CPU and, with the programs, the GPU.
VectorRow vectorOpsRow(const GridSize& g, const bench::Options& opts,
                       Result<gpu::Program>& dotProgram, Result<gpu::Program>& vvProgram,
                       bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const std::size_t n = g.n();
    const std::vector<float> b = pseudoRandom(n, 7u);
    std::vector<float> p(n, 0.5f);
    const int reps = std::max(1, static_cast<int>((std::size_t{1} << 24) / n));
    volatile double sink = 0.0;
    const double reduceMs =
        bench::medianMs(repeats,
                        [&] {
                            for (int k = 0; k < reps; ++k) {
                                sink = sink + detail::dot(*opts.executor, b.data(), p.data(), n);
                            }
                        }) /
        reps;
    const double vvMs =
        bench::medianMs(repeats,
                        [&] {
                            for (int k = 0; k < reps; ++k) {
                                detail::direction(*opts.executor, b.data(), p.data(), 0.5f, n);
                            }
                        }) /
        reps;
    VectorRow row{g.name(), reduceMs, vvMs};
    if (opts.gpu && dotProgram && vvProgram) {
        const GpuCgScalars zero{};
        auto scalars = gpu::Buffer::create(sizeof zero, &zero, "bench scalars");
        const std::uint32_t groups = gpu::groupsFor(n, 1024);
        auto partials = gpu::Buffer::create(2 * groups * sizeof(float), nullptr, "bench partials");
        auto ga = gpu::Buffer::fromSpan(std::span<const float>(b), "bench a");
        auto gp = gpu::Buffer::fromSpan(std::span<const float>(p), "bench p");
        if (scalars && partials && ga && gp) {
            scalars->bind(0);
            partials->bind(1);
            ga->bind(2);
            ga->bind(3);
            gp->bind(4);
            const int gReps = std::max(1, reps / 8);
            dotProgram->use();
            dotProgram->set("uN", static_cast<unsigned>(n));
            row.gpuReduceMs =
                bench::medianMs(std::min(repeats, 3),
                                [&] {
                                    for (int k = 0; k < gReps; ++k) {
                                        (void)gpu::dispatch(dotProgram.value(), groups);
                                        gpu::barrier();
                                    }
                                    syncGpu();
                                }) /
                gReps;
            vvProgram->use();
            vvProgram->set("uN", static_cast<unsigned>(n));
            vvProgram->set("uBeta", 0.5f);
            row.gpuVvMs = bench::medianMs(std::min(repeats, 3),
                                          [&] {
                                              for (int k = 0; k < gReps; ++k) {
                                                  (void)gpu::dispatch(vvProgram.value(),
                                                                      gpu::groupsFor(n, 256));
                                                  gpu::barrier();
                                              }
                                              syncGpu();
                                          }) /
                          gReps;
            recorder.add({"cg",
                          "vector-reduce",
                          g.name(),
                          "gpu",
                          row.gpuReduceMs,
                          std::min(repeats, 3),
                          {{"cpu", reduceMs}},
                          {}});
            recorder.add({"cg",
                          "vector-vector-op",
                          g.name(),
                          "gpu",
                          row.gpuVvMs,
                          std::min(repeats, 3),
                          {{"cpu", vvMs}},
                          {}});
        }
    }
    recorder.add({"cg", "vector-reduce", g.name(), "cpu", reduceMs, repeats, {}, {}});
    recorder.add({"cg", "vector-vector-op", g.name(), "cpu", vvMs, repeats, {}, {}});
    return row;
}

void printVectorOpsTable(const std::vector<VectorRow>& vectorRows) {
    std::printf("\nTable 44-1 style (ms):\n%-22s", "");
    for (const auto& r : vectorRows) {
        std::printf(" %10s", r.size.c_str());
    }
    std::printf("\n%-22s", "vector reduce cpu");
    for (const auto& r : vectorRows) {
        std::printf(" %10.3f", r.reduceMs);
    }
    std::printf("\n%-22s", "vector reduce gpu");
    for (const auto& r : vectorRows) {
        std::printf(" %10.3f", r.gpuReduceMs);
    }
    std::printf("\n%-22s", "vector-vector op cpu");
    for (const auto& r : vectorRows) {
        std::printf(" %10.3f", r.vvMs);
    }
    std::printf("\n%-22s", "vector-vector op gpu");
    for (const auto& r : vectorRows) {
        std::printf(" %10.3f", r.gpuVvMs);
    }
    std::printf("\n(wave steps per second: `bench --suite water`)\n");
}

// Göddeke's table: nine-banded Jacobi, 20 flops per unknown and sweep.
void jacobi9Table(const bench::Options& opts, const gpu::ShaderLibrary& library,
                  bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    std::printf("\nnine-banded Jacobi (Goddeke), MFLOP/s = 20 N sweeps / time:\n");
    std::printf("%-10s %12s %12s\n", "N", "cpu MFLOP/s", "gpu MFLOP/s");
    const std::vector<int> sides =
        opts.quick ? std::vector<int>{64, 256} : std::vector<int>{64, 128, 256, 512, 1024, 2048};
    for (int side : sides) {
        const BandedOperator op = BandedOperator::nineBandedQ1(side, side, 1.0f);
        const std::size_t n = op.size();
        const std::vector<float> b = pseudoRandom(n, 3u);
        std::vector<float> x(n, 0.0f), other(n);
        const std::vector<float> inv = op.inverseDiagonal();
        const int sweeps = std::clamp(static_cast<int>(4e7 / static_cast<double>(n)), 4, 4000);
        const double cpuMs = bench::medianMs(repeats, [&] {
            for (int s = 0; s < sweeps; ++s) {
                op.jacobiSweep(*opts.executor, b.data(), inv.data(),
                               s % 2 ? other.data() : x.data(), s % 2 ? x.data() : other.data());
            }
        });
        const double cpuMflops = 20.0 * double(n) * sweeps / (cpuMs * 1e3);
        double gpuMflops = 0.0;
        double gpuMs = 0.0;
        const int gpuSweeps = std::clamp(static_cast<int>(4e6 / static_cast<double>(n)), 4, 200);
        if (opts.gpu) {
            auto jac = GpuJacobi::create(library, op, b, x);
            if (jac) {
                gpuMs = bench::medianMs(std::min(repeats, 3), [&] {
                    (void)jac->run(gpuSweeps);
                    syncGpu();
                });
                gpuMflops = 20.0 * double(n) * gpuSweeps / (gpuMs * 1e3);
            }
        }
        std::printf("%-10zu %12.0f %12.0f\n", n, cpuMflops, gpuMflops);
        const std::string size = std::to_string(side) + "x" + std::to_string(side);
        recorder.add({"cg",
                      "jacobi9-sweep",
                      size,
                      "cpu",
                      cpuMs / sweeps,
                      repeats,
                      {},
                      {{"MFLOP/s", cpuMflops}}});
        if (opts.gpu && gpuMs > 0.0) {
            recorder.add({"cg",
                          "jacobi9-sweep",
                          size,
                          "gpu",
                          gpuMs / gpuSweeps,
                          std::min(repeats, 3),
                          {{"cpu", cpuMs / sweeps}},
                          {{"MFLOP/s", gpuMflops}}});
        }
    }
}

// The readback period: a full solve to 1e-5 with status read every k iterations.
void readbackPeriodTable(const bench::Options& opts, const gpu::ShaderLibrary& library,
                         bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    if (opts.gpu) {
        const GridSize g = opts.quick ? GridSize{128, 128} : GridSize{256, 256};
        const StencilOperator op = cnSystem(g);
        const GpuOperator gop = GpuOperator::fromStencil(op);
        auto gsolver = GpuCgSolver::create(library, gop);
        const std::vector<float> b = pseudoRandom(g.n(), 11u);
        auto gb = gpu::Buffer::fromSpan(std::span<const float>(b), "bench b");
        auto gx = gpu::Buffer::create(g.n() * sizeof(float), nullptr, "bench x");
        if (gsolver && gb && gx) {
            std::printf("\nGPU readback period at %s (solve to 1e-5):\n%-6s %10s %6s\n",
                        g.name().c_str(), "k", "solve ms", "iters");
            for (int k : {1, 2, 4, 8, 16, 32, 1000}) {
                CgOptions o;
                o.checkEvery = k;
                int its = 0;
                const double ms = bench::medianMs(std::min(repeats, 3), [&] {
                    gx->clear();
                    auto r = gsolver->solve(gop, gb.value(), gx.value(), o);
                    its = r ? r->iterations : 0;
                });
                std::printf("%-6d %10.3f %6d\n", k, ms, its);
                recorder.add({"cg",
                              "cg-solve-check-every-" + std::to_string(k),
                              g.name(),
                              "gpu",
                              ms,
                              std::min(repeats, 3),
                              {},
                              {{"iterations", its}}});
            }
        }
    }
}

}  // namespace

double measureTriadGBps(const exec::Executor& ex, std::size_t floats, int repeats) {
    std::vector<float> a(floats, 0.0f), b(floats, 1.0f), c(floats, 2.0f);
    const long n = static_cast<long>(floats);
    float* pa = a.data();
    const float* pb = b.data();
    const float* pc = c.data();
    const int passes = std::max(1, static_cast<int>((std::size_t{1} << 24) / floats));
    const double ms = bench::medianMs(repeats, [&] {
        for (int k = 0; k < passes; ++k) {
            constexpr long kChunk = 16384;
            ex.parallelFor((n + kChunk - 1) / kChunk,
                           [&](std::ptrdiff_t chunk) {
                               const long e = std::min(n, (chunk + 1) * kChunk);
#pragma omp simd
                               for (long i = chunk * kChunk; i < e; ++i) {
                                   pa[i] = pb[i] + 0.5f * pc[i];
                               }
                           },
                           n);
        }
    });
    return 12.0 * static_cast<double>(floats) * passes / (ms * 1e6);
}

void runCgBench(const bench::Options& opts, bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const double dramTriad = measureTriadGBps(*opts.executor, std::size_t{1} << 24, repeats);
    std::printf("\n== cg: conjugate gradients on the CN system (alpha = 1, c dt/h = 2) ==\n");
    std::printf("triad bandwidth, 3 x 64 MB arrays (DRAM): %.1f GB/s\n", dramTriad);
    std::printf("CPU threads: %d\n", opts.executor->threads());
    std::printf("bound = 32 B/unknown (fused CG) at the triad GB/s of arrays of the grid's size\n");
    std::printf("%-10s %10s %11s %8s %8s %8s %9s %8s %10s\n", "grid", "cpu ms/it", "eigen ms/it",
                "speedup", "GB/s", "triad", "bound ms", "x bound", "gpu ms/it");

    const gpu::ShaderLibrary library;
    const Error noGpu{ErrorKind::kGpuUnavailable, "no GPU"};
    Result<gpu::Program> dotProgram =
        opts.gpu ? library.build(gpu::ProgramSpec::computeStage(
                       "cg_dot.comp", {{"LOCAL_SIZE", "256"}, {"ELEMS", "4"}}))
                 : Result<gpu::Program>(noGpu);
    Result<gpu::Program> vvProgram =
        opts.gpu ? library.build(gpu::ProgramSpec::computeStage("cg_direction_only.comp"))
                 : Result<gpu::Program>(noGpu);
    std::vector<VectorRow> vectorRows;
    for (const GridSize& g : sizes(opts.quick)) {
        cgIterationRow(g, opts, dramTriad, library, recorder);
        vectorRows.push_back(vectorOpsRow(g, opts, dotProgram, vvProgram, recorder));
    }
    printVectorOpsTable(vectorRows);
    jacobi9Table(opts, library, recorder);
    readbackPeriodTable(opts, library, recorder);
}

}  // namespace ww::cg
