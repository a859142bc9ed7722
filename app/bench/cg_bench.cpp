// The `cg` benchmark suite (see cg_bench.h).
#include "app/bench/cg_bench.h"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/bench/jacobi_rgba.h"
#include "app/bench/poisson3d.h"
#include "app/bench/vector_ops.h"
#include "solver/cg/cg_cpu.h"
#include "solver/cg/cg_gpu.h"
#include "solver/cg/cg_solver.h"
#include "solver/cg/vector_kernels.h"
#include "solver/gpu/gpu_context.h"

namespace ww::cg {

namespace {

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

// Krüger & Westermann's six grid sizes (Table 44-1).
std::vector<GridSize> tableSizes(bool quick) {
    if (quick) {
        return {{256, 256}};
    }
    return {{256, 256}, {512, 256}, {512, 512}, {1024, 512}, {1024, 1024}, {2048, 1024}};
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
    double sumMs = 0.0;
    double dotMs = 0.0;
    double vvMs = 0.0;
    double gpuSumMs = 0.0;
    double gpuDotMs = 0.0;
    double gpuVvMs = 0.0;
    double sumDiff = 0.0;  ///< |gpu - cpu| / sum |a_i| (or |a_i b_i|), 0 without the GPU
    double dotDiff = 0.0;
};

// Krüger & Westermann, Table 44-1 (GeForce 6800 GT), in our size order.
struct PaperColumn {
    GridSize size;
    double reduceMs;
    double vectorVectorMs;
    double demoFps;
};
constexpr PaperColumn kTable44_1[] = {
    {{256, 256}, 0.14, 0.02, 335.0},  {{512, 256}, 0.16, 0.04, 185.0},
    {{512, 512}, 0.17, 0.08, 102.0},  {{1024, 512}, 0.28, 0.15, 52.0},
    {{1024, 1024}, 0.49, 0.31, 27.0}, {{2048, 1024}, 1.11, 0.89, 12.0},
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
    const std::unique_ptr<CgSolver> solver = makeCpuCgSolver(opts.executor);
    CgOptions o;
    o.tolerance = 0.0f;
    o.maxIterations = kTimedIterations;
    int iterations = kTimedIterations;
    const double cpuMs = bench::medianMs(repeats,
                                         [&] {
                                             std::fill(x.begin(), x.end(), 0.0f);
                                             auto r = solver->solve(op, b, x, o);
                                             iterations = r ? std::max(1, r->iterations) : 1;
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
    // Eigen gets the same number of threads as our kernels (its OpenMP regions suffer the
    // same fork-join stalls on an overloaded machine).
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
        auto gsolver = makeGpuCgSolver(library);
        auto gb = gpu::Buffer::fromSpan(std::span<const float>(b), "bench b");
        auto gx = gpu::Buffer::create(n * sizeof(float), nullptr, "bench x");
        if (gsolver && gb && gx) {
            CgOptions go = o;
            go.checkEvery = kTimedIterations;
            int gIts = kTimedIterations;
            gpuMs = bench::medianMs(std::min(repeats, 3),
                                    [&] {
                                        gx->clear();
                                        auto r =
                                            gsolver.value()->solve(gop, gb.value(), gx.value(), go);
                                        syncGpu();
                                        gIts = r ? std::max(1, r->iterations) : 1;
                                    }) /
                    gIts;
        }
    }
    std::printf("%-10s %10.3f %11.3f %8.1f %8.1f %8.1f %9.3f %8.2f %10s\n", g.name().c_str(), cpuMs,
                eigenMs, eigenMs / cpuMs, gbps, triad, boundMs, cpuMs / boundMs,
                bench::cell(gpuMs, gpuMs > 0.0, "%.3f").c_str());
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

// One column of Table 44-1: the sum of a's elements (the chapter's vector reduce), the dot
// product a . b and the vector-vector operation b <- a + beta b, on the CPU and the GPU over
// the same a and b. The GPU's scalar results stay on the GPU (timed to glFinish, as the
// chapter's stay in a 1x1 texture); after timing they are read once and compared with the CPU.
VectorRow vectorOpsRow(const GridSize& g, const bench::Options& opts,
                       const gpu::ShaderLibrary& library, bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const std::size_t n = g.n();
    const std::vector<float> a = pseudoRandom(n, 7u);
    const std::vector<float> b0 = pseudoRandom(n, 8u);
    std::vector<float> b = b0;
    const int reps = std::max(1, static_cast<int>((std::size_t{1} << 24) / n));
    volatile double sink = 0.0;
    VectorRow row{g.name()};
    row.sumMs = bench::medianMs(repeats,
                                [&] {
                                    for (int k = 0; k < reps; ++k) {
                                        sink = sink + bench::vectorSum(*opts.executor, a);
                                    }
                                }) /
                reps;
    row.dotMs = bench::medianMs(repeats,
                                [&] {
                                    for (int k = 0; k < reps; ++k) {
                                        sink = sink + bench::vectorDot(*opts.executor, a, b);
                                    }
                                }) /
                reps;
    row.vvMs = bench::medianMs(repeats,
                               [&] {
                                   for (int k = 0; k < reps; ++k) {
                                       bench::vectorAxpby(*opts.executor, a, b, 0.5f);
                                   }
                               }) /
               reps;
    recorder.add({"cg", "vector-reduce-sum", g.name(), "cpu", row.sumMs, repeats, {}, {}});
    recorder.add({"cg", "vector-dot", g.name(), "cpu", row.dotMs, repeats, {}, {}});
    recorder.add({"cg", "vector-vector-op", g.name(), "cpu", row.vvMs, repeats, {}, {}});
    if (!opts.gpu) {
        return row;
    }
    auto ops = bench::GpuVectorOps::create(library, a, b0);
    if (!ops) {
        std::printf("  (gpu vector ops at %s: %s)\n", g.name().c_str(),
                    ops.error().message.c_str());
        return row;
    }
    const int gReps = std::max(1, reps / 8);
    const int gRepeats = std::min(repeats, 3);
    const auto gpuTime = [&](auto&& op) {
        return bench::medianMs(gRepeats,
                               [&] {
                                   for (int k = 0; k < gReps; ++k) {
                                       op();
                                   }
                                   syncGpu();
                               }) /
               gReps;
    };
    row.gpuSumMs = gpuTime([&] { ops->sum(); });
    double absSum = 0.0;
    double absDot = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        absSum += std::abs(double(a[i]));
        absDot += std::abs(double(a[i]) * double(b0[i]));
    }
    row.sumDiff =
        std::abs(double(ops->readScalar()) - bench::vectorSum(*opts.executor, a)) / absSum;
    row.gpuDotMs = gpuTime([&] { ops->dot(); });
    row.dotDiff =
        std::abs(double(ops->readScalar()) - bench::vectorDot(*opts.executor, a, b0)) / absDot;
    row.gpuVvMs = gpuTime([&] { ops->axpby(0.5f); });
    recorder.add({"cg",
                  "vector-reduce-sum",
                  g.name(),
                  "gpu",
                  row.gpuSumMs,
                  gRepeats,
                  {{"cpu", row.sumMs}},
                  {{"rel-diff-vs-cpu", row.sumDiff}}});
    recorder.add({"cg",
                  "vector-dot",
                  g.name(),
                  "gpu",
                  row.gpuDotMs,
                  gRepeats,
                  {{"cpu", row.dotMs}},
                  {{"rel-diff-vs-cpu", row.dotDiff}}});
    recorder.add({"cg",
                  "vector-vector-op",
                  g.name(),
                  "gpu",
                  row.gpuVvMs,
                  gRepeats,
                  {{"cpu", row.vvMs}},
                  {}});
    return row;
}

void printVectorOpsTable(const std::vector<VectorRow>& rows, bool gpu) {
    std::printf(
        "\nTable 44-1 (Kruger & Westermann), ms per operation; paper: GeForce 6800 GT, its "
        "row is GPU\n%-26s",
        "");
    for (const auto& r : rows) {
        std::printf(" %10s", r.size.c_str());
    }
    const auto line = [&](const char* label, auto&& value) {
        std::printf("\n%-26s", label);
        for (const auto& r : rows) {
            std::printf(" %10.3f", value(r));
        }
    };
    const auto paper = [&](const char* label, double PaperColumn::*field) {
        std::printf("\n%-26s", label);
        for (const auto& r : rows) {
            const PaperColumn* col = nullptr;
            for (const PaperColumn& c : kTable44_1) {
                col = c.size.name() == r.size ? &c : col;
            }
            if (col != nullptr) {
                std::printf(" %10.2f", col->*field);
            } else {
                std::printf(" %10s", "-");
            }
        }
    };
    line("vector reduce (sum) cpu", [](const VectorRow& r) { return r.sumMs; });
    if (gpu) {
        line("vector reduce (sum) gpu", [](const VectorRow& r) { return r.gpuSumMs; });
    }
    paper("  paper, vector reduce", &PaperColumn::reduceMs);
    line("dot product cpu", [](const VectorRow& r) { return r.dotMs; });
    if (gpu) {
        line("dot product gpu", [](const VectorRow& r) { return r.gpuDotMs; });
    }
    line("vector-vector op cpu", [](const VectorRow& r) { return r.vvMs; });
    if (gpu) {
        line("vector-vector op gpu", [](const VectorRow& r) { return r.gpuVvMs; });
    }
    paper("  paper, vector-vector op", &PaperColumn::vectorVectorMs);
    std::printf(
        "\n(vector-vector op: b <- a + 0.5 b; reductions: one pass, result left on the "
        "device; wave equation row and demo fps: `bench --suite water`)\n");
    if (gpu) {
        double sumDiff = 0.0;
        double dotDiff = 0.0;
        for (const auto& r : rows) {
            sumDiff = std::max(sumDiff, r.sumDiff);
            dotDiff = std::max(dotDiff, r.dotDiff);
        }
        std::printf("gpu vs cpu results, max |difference| / sum of |terms|: sum %.1e, dot %.1e\n",
                    sumDiff, dotDiff);
    }
}

// Göddeke's results table (MFLOP/s of the nine-banded Jacobi; problem size N = all unknowns:
// RED one system of N, RGBA four systems of N / 4 at once), GeForce FX 5900 Ultra and 6800.
struct GoddekeRow {
    std::size_t n;
    double fx5900Rgba;
    double fx5900Red;  ///< 0: not in the paper
    double gf6800Rgba;
    double gf6800Red;
};
constexpr GoddekeRow kGoddeke[] = {
    {4096, 807, 451, 283, 474},       {16384, 1595, 594, 669, 1233},
    {65536, 1925, 639, 979, 1894},    {262144, 1504, 643, 1083, 2238},
    {1048576, 1363, 632, 1002, 2358}, {4194304, 1280, 0, 984, 2240},
};

struct JacobiCell {
    double ms = 0.0;  ///< per sweep, 0 when not measured
    double mflops = 0.0;
    std::string missing;  ///< why a GPU cell is empty
};

// `sweeps` sweeps of f(): MFLOP/s counting 20 flops per unknown and sweep (Göddeke).
template <typename F>
JacobiCell timeSweeps(std::size_t n, int sweeps, int repeats, F&& f) {
    JacobiCell c;
    const double ms = bench::medianMs(repeats, f);
    c.ms = ms / sweeps;
    c.mflops = 20.0 * double(n) * sweeps / (ms * 1e3);
    return c;
}

// Four nine-banded Q1 systems of side `side` (different alpha and right-hand sides) in the RGBA
// layout.
bench::RgbaBandedSystems rgbaSystems(int side) {
    constexpr float kAlphas[4] = {1.0f, 0.5f, 2.0f, 0.25f};
    std::array<cg::BandedOperator, 4> ops = {BandedOperator::nineBandedQ1(side, side, kAlphas[0]),
                                             BandedOperator::nineBandedQ1(side, side, kAlphas[1]),
                                             BandedOperator::nineBandedQ1(side, side, kAlphas[2]),
                                             BandedOperator::nineBandedQ1(side, side, kAlphas[3])};
    const std::size_t n = ops[0].size();
    std::array<std::vector<float>, 4> rhs = {pseudoRandom(n, 3u), pseudoRandom(n, 4u),
                                             pseudoRandom(n, 5u), pseudoRandom(n, 6u)};
    return std::move(bench::RgbaBandedSystems::interleave(ops, rhs)).value();
}

void jacobi9Table(const bench::Options& opts, const gpu::ShaderLibrary& library,
                  bench::Recorder& recorder) {
    const int repeats = std::max(1, opts.repeats);
    const int gpuRepeats = std::min(repeats, 3);
    std::printf(
        "\nnine-banded Jacobi (Goddeke), MFLOP/s = 20 N sweeps / time; N = all unknowns "
        "(RED: one system of N, RGBA: four systems of N/4 at once)\n");
    std::printf("%-9s %8s %8s %8s %8s | %-23s | %-17s\n", "", "cpu", "cpu", "gpu", "gpu",
                "paper FX 5900 Ultra", "paper 6800");
    std::printf("%-9s %8s %8s %8s %8s | %11s %11s | %8s %8s\n", "N", "RED", "RGBA", "RED", "RGBA",
                "RGBA", "RED", "RGBA", "RED");
    std::vector<std::string> notes;
    for (const GoddekeRow& paper : kGoddeke) {
        if (opts.quick && paper.n > 65536) {
            break;
        }
        const int side = static_cast<int>(std::lround(std::sqrt(double(paper.n))));
        const std::size_t n = paper.n;
        const int sweeps = std::clamp(static_cast<int>(4e7 / static_cast<double>(n)), 4, 4000);
        const int gpuSweeps = std::clamp(static_cast<int>(4e6 / static_cast<double>(n)), 4, 200);

        // RED: one system of N unknowns.
        const BandedOperator op = BandedOperator::nineBandedQ1(side, side, 1.0f);
        const std::vector<float> b = pseudoRandom(n, 3u);
        std::vector<float> x(n, 0.0f), other(n);
        const std::vector<float> inv = op.inverseDiagonal();
        const JacobiCell cpuRed = timeSweeps(n, sweeps, repeats, [&] {
            for (int s = 0; s < sweeps; ++s) {
                op.jacobiSweep(*opts.executor, b.data(), inv.data(),
                               s % 2 ? other.data() : x.data(), s % 2 ? x.data() : other.data());
            }
        });
        // RGBA: four systems of N / 4 unknowns.
        const bench::RgbaBandedSystems rgba = rgbaSystems(side / 2);
        std::vector<float> xr(4 * rgba.n, 0.0f), otherRgba(4 * rgba.n);
        const JacobiCell cpuRgba = timeSweeps(n, sweeps, repeats, [&] {
            for (int s = 0; s < sweeps; ++s) {
                rgba.jacobiSweep(*opts.executor, s % 2 ? otherRgba.data() : xr.data(),
                                 s % 2 ? xr.data() : otherRgba.data());
            }
        });
        JacobiCell gpuRed, gpuRgba;
        if (opts.gpu) {
            if (auto jac = GpuJacobi::create(library, op, b, x)) {
                gpuRed = timeSweeps(n, gpuSweeps, gpuRepeats, [&] {
                    (void)jac->run(gpuSweeps);
                    syncGpu();
                });
            } else {
                gpuRed.missing = jac.error().message;
            }
            if (auto jac = bench::GpuRgbaJacobi::create(library, rgba, xr)) {
                gpuRgba = timeSweeps(n, gpuSweeps, gpuRepeats, [&] {
                    (void)jac->run(gpuSweeps);
                    syncGpu();
                });
            } else {
                gpuRgba.missing = jac.error().message;
            }
        }
        const auto cell = [](const JacobiCell& c) {
            char buf[16];
            std::snprintf(buf, sizeof buf, c.ms > 0.0 ? "%.0f" : "-", c.mflops);
            return std::string(buf);
        };
        const std::string paperRed5900 =
            paper.fx5900Red > 0.0 ? std::to_string(int(paper.fx5900Red)) : std::string("-");
        std::printf("%-9zu %8s %8s %8s %8s | %11.0f %11s | %8.0f %8.0f\n", n, cell(cpuRed).c_str(),
                    cell(cpuRgba).c_str(), cell(gpuRed).c_str(), cell(gpuRgba).c_str(),
                    paper.fx5900Rgba, paperRed5900.c_str(), paper.gf6800Rgba, paper.gf6800Red);
        for (const auto& [what, c] : {std::pair<const char*, const JacobiCell&>{"RED", gpuRed},
                                      std::pair<const char*, const JacobiCell&>{"RGBA", gpuRgba}}) {
            if (!c.missing.empty()) {
                notes.push_back("gpu " + std::string(what) + " at N = " + std::to_string(n) + ": " +
                                c.missing);
            }
        }
        const std::string size = std::to_string(n);
        const auto record = [&](const char* name, const char* backend, const JacobiCell& c,
                                int reps, double paperA, double paperB) {
            if (c.ms > 0.0) {
                recorder.add({"cg",
                              name,
                              size,
                              backend,
                              c.ms,
                              reps,
                              {},
                              {{"MFLOP/s", c.mflops},
                               {"paper-fx5900-MFLOP/s", paperA},
                               {"paper-6800-MFLOP/s", paperB}}});
            }
        };
        record("jacobi9-sweep-red", "cpu", cpuRed, repeats, paper.fx5900Red, paper.gf6800Red);
        record("jacobi9-sweep-rgba", "cpu", cpuRgba, repeats, paper.fx5900Rgba, paper.gf6800Rgba);
        record("jacobi9-sweep-red", "gpu", gpuRed, gpuRepeats, paper.fx5900Red, paper.gf6800Red);
        record("jacobi9-sweep-rgba", "gpu", gpuRgba, gpuRepeats, paper.fx5900Rgba,
               paper.gf6800Rgba);
    }
    if (opts.gpu) {
        const gpu::GpuContext* ctx = gpu::GpuContext::current();
        std::printf(
            "(GPU: one buffer per band for RGBA; RED keeps its bands in one buffer; "
            "GL_MAX_SHADER_STORAGE_BLOCK_SIZE = %lld MiB)\n",
            ctx != nullptr ? static_cast<long long>(ctx->info().maxSsboBytes >> 20) : 0LL);
    }
    for (const std::string& note : notes) {
        std::printf("  %s\n", note.c_str());
    }
}

// Bajaj et al., Table 3 (GS: Pentium 4 2.66 GHz; EBJ: GeForce FX 5900 Ultra): ms and
// iterations to solve the 40 x 80 x 80 pressure Poisson equation to each tolerance. EBJ
// (optimized) also gives the time without CPU<->GPU transfers.
struct BajajTable3 {
    double tolerance;
    double gsMs;
    int gsIter;
    double ebjMs;
    int ebjIter;
    double ebjOptMs;
    double ebjOptComputeMs;
    int ebjOptIter;
};
constexpr BajajTable3 kBajajTable3[] = {{1e-3, 101.6, 16, 62.8, 20, 49.1, 9.8, 19},
                                        {1e-4, 364.8, 61, 142.4, 84, 111.6, 68.3, 77},
                                        {1e-5, 1178.6, 200, 419.1, 291, 315.9, 272.6, 253}};

void poissonTable(const bench::Options& opts, const gpu::ShaderLibrary& library,
                  bench::Recorder& recorder) {
    const int nx = opts.quick ? 10 : 40;
    const int ny = opts.quick ? 20 : 80;
    const int nz = ny;
    const std::string size =
        std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
    const BandedOperator a = bench::poisson3d(nx, ny, nz);
    const std::size_t n = a.size();
    const std::vector<float> b = pseudoRandom(n, 21u);
    std::vector<double> tolerances;
    for (const BajajTable3& t : kBajajTable3) {
        tolerances.push_back(t.tolerance);
    }
    constexpr int kCheckEvery = 10;
    constexpr int kMaxSweeps = 8000;
    const auto residual = [&](const std::vector<float>& x) {
        return bench::relativeResidual(a, b, x);
    };

    std::vector<float> x(n, 0.0f);
    const std::vector<bench::Crossing> gs =
        bench::sweepToTolerances([&] { bench::gaussSeidelSweep(a, b, x); },
                                 [&] { return residual(x); }, tolerances, kCheckEvery, kMaxSweeps);
    std::fill(x.begin(), x.end(), 0.0f);
    std::vector<float> other(n, 0.0f);
    const std::vector<float> inv = a.inverseDiagonal();
    const std::vector<bench::Crossing> jac = bench::sweepToTolerances(
        [&] {
            a.jacobiSweep(*opts.executor, b.data(), inv.data(), x.data(), other.data());
            std::swap(x, other);
        },
        [&] { return residual(x); }, tolerances, kCheckEvery, kMaxSweeps);

    struct CgCell {
        double ms = 0.0;
        double computeMs = 0.0;
        int iterations = 0;
    };
    std::vector<CgCell> cpuCg, gpuCg;
    const std::unique_ptr<CgSolver> cpuSolver = makeCpuCgSolver(opts.executor);
    std::optional<GpuOperator> gop;
    std::unique_ptr<GpuCgBackend> gsolver;
    if (opts.gpu) {
        if (auto up = GpuOperator::upload(a)) {
            gop = std::move(up).value();
            if (auto s = makeGpuCgSolver(library); s && s.value()->prepare(*gop)) {
                gsolver = std::move(s).value();
            }
        }
    }
    for (double t : tolerances) {
        CgOptions o;
        o.tolerance = static_cast<float>(t);
        o.maxIterations = 5000;
        CgCell c;
        c.ms = bench::medianMs(std::min(opts.repeats, 3), [&] {
            std::fill(x.begin(), x.end(), 0.0f);
            auto r = cpuSolver->solve(a, b, x, o);
            c.iterations = r ? r->iterations : 0;
        });
        cpuCg.push_back(c);
        CgCell g;
        auto gb = gpu::Buffer::fromSpan(std::span<const float>(b), "poisson b");
        auto gx = gpu::Buffer::create(n * sizeof(float), nullptr, "poisson x");
        if (gsolver && gb && gx) {
            // With transfers: b and x up, the solve, x down (the matrix stays on the GPU).
            g.ms = bench::medianMs(std::min(opts.repeats, 3), [&] {
                std::fill(x.begin(), x.end(), 0.0f);
                gb->upload(std::span<const float>(b));
                gx->upload(std::span<const float>(x));
                auto r = gsolver->solve(*gop, gb.value(), gx.value(), o);
                gx->download(x.data(), x.size() * sizeof(float));
                g.iterations = r ? r->iterations : 0;
            });
            {
                g.computeMs = bench::medianMs(std::min(opts.repeats, 3), [&] {
                    gx->clear();
                    (void)gsolver->solve(*gop, gb.value(), gx.value(), o);
                    syncGpu();
                });
            }
        }
        gpuCg.push_back(g);
    }

    std::printf(
        "\nTable 3 (Bajaj et al.), Poisson on %s (%zu unknowns; zero Dirichlet on the x "
        "planes, zero Neumann on y and z),\nms and iterations to ||b - Ax|| / ||b|| <= "
        "tolerance from x0 = 0 (GS, Jacobi: residual checked every %d sweeps, at most %d; - = not "
        "reached)\n",
        size.c_str(), n, kCheckEvery, kMaxSweeps);
    std::printf("%-30s %17s %17s %17s\n", "tolerance", "1e-3", "1e-4", "1e-5");
    const auto row = [&](const char* label, auto&& cell) {
        std::printf("%-30s", label);
        for (std::size_t k = 0; k < tolerances.size(); ++k) {
            std::printf(" %17s", cell(k).c_str());
        }
        std::printf("\n");
    };
    const auto fmt = [](double ms, int iters) {
        if (iters <= 0) {
            return std::string("-");
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f ms %5d it", ms, iters);
        return std::string(buf);
    };
    row("Gauss-Seidel cpu", [&](std::size_t k) { return fmt(gs[k].ms, gs[k].iterations); });
    row("Jacobi cpu", [&](std::size_t k) { return fmt(jac[k].ms, jac[k].iterations); });
    row("CG cpu", [&](std::size_t k) { return fmt(cpuCg[k].ms, cpuCg[k].iterations); });
    if (opts.gpu) {
        row("CG gpu, with transfers",
            [&](std::size_t k) { return fmt(gpuCg[k].ms, gpuCg[k].iterations); });
        row("CG gpu, no transfers",
            [&](std::size_t k) { return fmt(gpuCg[k].computeMs, gpuCg[k].iterations); });
    }
    row("  paper GS cpu",
        [&](std::size_t k) { return fmt(kBajajTable3[k].gsMs, kBajajTable3[k].gsIter); });
    row("  paper EBJ gpu",
        [&](std::size_t k) { return fmt(kBajajTable3[k].ebjMs, kBajajTable3[k].ebjIter); });
    row("  paper EBJ gpu optimized",
        [&](std::size_t k) { return fmt(kBajajTable3[k].ebjOptMs, kBajajTable3[k].ebjOptIter); });
    row("  ... no transfers", [&](std::size_t k) {
        return fmt(kBajajTable3[k].ebjOptComputeMs, kBajajTable3[k].ebjOptIter);
    });
    std::printf(
        "(no enhanced block Jacobi here: point Jacobi on the GPU would need the CPU row's "
        "sweep counts, cold-started; the paper's solves were inside a fluid simulation)\n");
    for (std::size_t k = 0; k < tolerances.size(); ++k) {
        const std::string tol = "tol-" + std::to_string(k + 3);
        const auto add = [&](const char* name, const char* backend, double ms, int iters) {
            if (iters > 0) {
                recorder.add({"cg",
                              std::string("poisson3d-") + name + "-" + tol,
                              size,
                              backend,
                              ms,
                              1,
                              {},
                              {{"iterations", iters}, {"tolerance", tolerances[k]}}});
            }
        };
        add("gauss-seidel", "cpu", gs[k].ms, gs[k].iterations);
        add("jacobi", "cpu", jac[k].ms, jac[k].iterations);
        add("cg", "cpu", cpuCg[k].ms, cpuCg[k].iterations);
        if (opts.gpu) {
            add("cg", "gpu", gpuCg[k].ms, gpuCg[k].iterations);
            add("cg-no-transfer", "gpu", gpuCg[k].computeMs, gpuCg[k].iterations);
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
        auto gsolver = makeGpuCgSolver(library);
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
                    auto r = gsolver.value()->solve(gop, gb.value(), gx.value(), o);
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
    for (const GridSize& g : sizes(opts.quick)) {
        cgIterationRow(g, opts, dramTriad, library, recorder);
    }
    std::vector<VectorRow> vectorRows;
    for (const GridSize& g : tableSizes(opts.quick)) {
        vectorRows.push_back(vectorOpsRow(g, opts, library, recorder));
    }
    printVectorOpsTable(vectorRows, opts.gpu);
    jacobi9Table(opts, library, recorder);
    poissonTable(opts, library, recorder);
    readbackPeriodTable(opts, library, recorder);
}

}  // namespace ww::cg
