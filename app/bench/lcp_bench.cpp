// The ops and lcp benchmark suites (see lcp_bench.h). The library baselines run the very same
// projected-Jacobi loop as the CPU solver with only the matrix-vector product swapped:
//   w = A x (library),  r = max |x - clamp(x - w - b)|,  x' = clamp(x - omega (w + b) / A_ii)
// so the ratio isolates the matvec. "stream" is the time to read A once from where it lives
// (a 16-lane sum over A, on 1 and 2 threads, warm) — the bandwidth bound of one iteration.
#include "app/bench/lcp_bench.h"

#include <cblas.h>
#include <dlfcn.h>

#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <thread>

#include "app/bench/simple_c.h"
#include "solver/gpu/gpu_context.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_solver.h"
#include "solver/linalg/dense.h"
#include "solver/linalg/gpu_dense.h"

namespace ww::lcp {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// OpenBLAS is only a baseline of these benchmarks, so it is opened at run time instead of being
// linked: a linked OpenBLAS starts its thread pool when wavewall starts, and its worker spins on
// the second core for about 0.2 s then (and after every threaded call), which slowed every
// wavewall command's first solves and, here, our own two-core measurements.
struct OpenBlas {
    decltype(&cblas_sgemv) sgemv = nullptr;
    decltype(&cblas_sgemm) sgemm = nullptr;
    decltype(&openblas_set_num_threads) setThreads = nullptr;
};

void settleLibraryThreads();

// Null, with the reason printed once, when libopenblas.so.0 cannot be opened.
const OpenBlas* openBlas() {
    static const std::optional<OpenBlas> blas = []() -> std::optional<OpenBlas> {
        void* lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        OpenBlas b;
        if (lib != nullptr) {
            b.sgemv = reinterpret_cast<decltype(b.sgemv)>(dlsym(lib, "cblas_sgemv"));
            b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(lib, "cblas_sgemm"));
            b.setThreads =
                reinterpret_cast<decltype(b.setThreads)>(dlsym(lib, "openblas_set_num_threads"));
        }
        if (b.sgemv == nullptr || b.sgemm == nullptr || b.setThreads == nullptr) {
            const char* why = dlerror();
            std::printf(
                "  (OpenBLAS baseline unavailable: %s; install libopenblas0 to measure it)\n",
                why != nullptr ? why : "libopenblas.so.0 lacks cblas_sgemv/sgemm");
            return std::nullopt;
        }
        settleLibraryThreads();  // its pool starts spinning when the library loads
        return b;
    }();
    return blas ? &*blas : nullptr;
}

void gpuFinish() {
    if (auto* ctx = gpu::GpuContext::current()) {
        ctx->finish();
    }
}

// Diagonally dominant SPD-like matrix with unit diagonal scale: every Jacobi variant
// converges, so timings are of real, finite arithmetic.
LcpProblem benchProblem(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto p = LcpProblem::plain(n);
    const auto un = static_cast<std::size_t>(n);
    for (std::size_t i = 0; i < un; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            const float v = u(rng) / static_cast<float>(n);
            p.a[i * un + j] = v;
            p.a[j * un + i] = v;
        }
        p.a[i * un + i] = 2.0f;
        p.b[i] = u(rng);
    }
    return p;
}

// OpenBLAS's worker threads keep spinning for about 0.1 s after a call (and after start-up);
// on two cores they would take the second core from whatever is measured next. Each of our
// CPU measurements therefore starts after they have gone to sleep.
void settleLibraryThreads() {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
}

// Milliseconds per call of an operation, from samples of k back-to-back calls that last about
// 2 ms (k = 1 for calls longer than that). Timed alone, one call of a 50-us operation measured
// its start-up more than the operation: A coming back from wherever the previous row's
// operation left it, and for the two-core contenders a second core waking up (our split
// chooser also spends a size's first jobs trying both modes).
template <typename F>
double msPerCall(int repeats, F&& f) {
    const double once = bench::medianMs(1, f);
    const int k = std::clamp(static_cast<int>(std::ceil(2.0 / std::max(once, 1e-6))), 1, 1000);
    return bench::medianMs(repeats,
                           [&] {
                               for (int i = 0; i < k; ++i) {
                                   f();
                               }
                           }) /
           k;
}

// The projected Jacobi loop with a pluggable matvec; returns ms for `iterations` passes.
template <typename MatVec>
double libraryJacobiMs(const LcpProblem& p, int iterations, float omega, MatVec&& matVec,
                       int repeats) {
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<float> x(n, 0.0f), next(n), w(n), invD(n);
    for (std::size_t i = 0; i < n; ++i) {
        invD[i] = omega / p.a[i * n + i];
    }
    float sink = 0.0f;
    const double ms = bench::warmMedianMs(repeats, [&] {
        std::fill(x.begin(), x.end(), 0.0f);
        for (int t = 0; t < iterations; ++t) {
            matVec(x.data(), w.data());
            float r = 0.0f;
            for (std::size_t i = 0; i < n; ++i) {
                const float wi = w[i] + p.b[i];
                r = std::max(r, std::abs(x[i] - std::clamp(x[i] - wi, p.lo[i], p.hi[i])));
                next[i] = std::clamp(x[i] - invD[i] * wi, p.lo[i], p.hi[i]);
            }
            sink += r;
            x.swap(next);
        }
    });
    if (!std::isfinite(sink)) {
        std::printf("  (library loop diverged)\n");
    }
    return ms;
}

// Milliseconds to read n*n floats once (warm), on the executor's threads.
double streamMs(const exec::Executor& ex, const std::vector<float>& a, int repeats) {
    const auto total = static_cast<std::ptrdiff_t>(a.size());
    const int reps = std::max(1, static_cast<int>(4'000'000 / std::max<std::ptrdiff_t>(total, 1)));
    constexpr std::ptrdiff_t kChunk = 16 * 1024;
    auto sum = [&](std::ptrdiff_t c) {
        float lanes[16] = {};
        const std::ptrdiff_t e = std::min(total, (c + 1) * kChunk);
        std::ptrdiff_t i = c * kChunk;
        for (; i + 16 <= e; i += 16) {
            for (int l = 0; l < 16; ++l) {
                lanes[l] += a[static_cast<std::size_t>(i + l)];
            }
        }
        float s = 0.0f;
        for (float v : lanes) {
            s += v;
        }
        return s;
    };
    float sink = 0.0f;
    const double ms = bench::warmMedianMs(repeats, [&] {
        for (int r = 0; r < reps; ++r) {
            sink += ex.reduce(
                exec::chunkCount(total, kChunk), 0.0f, sum,
                [](float acc, float v) { return acc + v; }, total);
        }
    });
    if (sink == 12345.0f) {
        std::printf(" ");
    }
    return ms / reps;
}

// Microseconds of one empty pass of the dense Jacobi loop's shape: as many chunks as the pass
// has (kMatVecChunkRows rows each), the same reduce, the same affinity hint and work, but no
// rows: what the executor's hand-off to the other threads and back costs per iteration.
double handOffUs(const exec::Executor& ex, int n, int calls) {
    exec::LoopAffinity affinity;
    const std::ptrdiff_t chunks = exec::chunkCount(n, linalg::kMatVecChunkRows);
    const auto work = static_cast<std::ptrdiff_t>(n) * n;
    float sink = 0.0f;
    const double ms = bench::warmMedianMs(1, [&] {
        for (int k = 0; k < calls; ++k) {
            sink += ex.reduce(
                chunks, 0.0f, [&](std::ptrdiff_t c) { return static_cast<float>(c); },
                [](float acc, float v) { return std::max(acc, v); }, work, &affinity);
        }
    });
    if (sink == 12345.0f) {
        std::printf(" ");
    }
    return 1000.0 * ms / calls;
}

bench::Record record(const char* suite, std::string name, std::string size, std::string backend,
                     double ms, int repeats) {
    bench::Record r;
    r.suite = suite;
    r.name = std::move(name);
    r.size = std::move(size);
    r.backend = std::move(backend);
    r.medianMs = ms;
    r.repeats = repeats;
    return r;
}

std::string sizeName(int r, int c) {
    return std::to_string(r) + "x" + std::to_string(c);
}

// One Figure 3 row: GPU with the result read back (the paper's timing), GPU to completion
// without readback, our CPU code, simple C, Eigen, OpenBLAS; "-" where not measured.
void printRow(const char* name, double gpuReadback, double gpu, double cpu, double simpleC,
              double eigen, double blas) {
    auto cell = [](double v) {
        if (v <= 0.0) {
            std::printf(" %10s", "-");
        } else {
            std::printf(" %10.3f", v);
        }
    };
    std::printf("  %-22s", name);
    for (double v : {gpuReadback, gpu, cpu, simpleC, eigen, blas}) {
        cell(v);
    }
    std::printf("\n");
}

}  // namespace

void runOpsBench(const bench::Options& opts, bench::Recorder& recorder) {
    const int n = opts.quick ? 256 : 1000;
    const int reps = std::max(1, opts.repeats);
    const std::string size = sizeName(n, n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    linalg::Matrix a(n, n), b(n, n), c(n, n);
    for (auto* m : {&a, &b}) {
        for (auto& v : m->data) {
            v = u(rng);
        }
    }
    linalg::Vector x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    for (auto& v : x) {
        v = u(rng);
    }
    Eigen::Map<RowMatrix> ea(a.data.data(), n, n), eb(b.data.data(), n, n);
    RowMatrix ec(n, n);
    Eigen::Map<Eigen::VectorXf> ex(x.data(), n), ey(y.data(), n);

    std::optional<linalg::GpuOps> ops;
    linalg::GpuMatrix ga, gb, gc;
    linalg::GpuVector gx, gy;
    gpu::ShaderLibrary shaders;
    if (opts.gpu) {
        auto o = linalg::GpuOps::create(shaders);
        if (o) {
            ops = std::move(o).value();
            ga = linalg::GpuMatrix::fromHost(a).value();
            gb = linalg::GpuMatrix::fromHost(b).value();
            gc = linalg::GpuMatrix::create(n, n).value();
            gx = linalg::GpuVector::fromHost(x).value();
            gy = linalg::GpuVector::create(n).value();
        } else {
            std::printf("ops bench: GPU kernels unavailable: %s\n", o.error().message.c_str());
        }
    }
    const exec::Executor& cpuEx = *opts.executor;
    const OpenBlas* blas = openBlas();
    if (blas != nullptr) {
        blas->setThreads(cpuEx.threads());
    }
    const int cgIterations = 50;
    const int jacobiIterations = opts.quick ? 50 : 100;
    std::printf(
        "\nFigure 3 (Moravanszky 2003) at %s: milliseconds per operation, median of %d; "
        "CG %d iterations, projected Jacobi %d iterations\n",
        size.c_str(), reps, cgIterations, jacobiIterations);
    std::printf(
        "(paper: a bar chart without printed values; its GPU times end when the result is "
        "read back, the first column here)\n");
    std::printf("  %-22s %10s %10s %10s %10s %10s %10s\n", "operation", "GPU+read", "GPU", "CPU",
                "simple C", "Eigen", "OpenBLAS");

    struct Row {
        const char* name;
        std::function<void()> gpu, cpu, eigen, blas;
        double bytes;
        std::function<void()> simpleC;
        std::function<void()> readBack;  ///< downloads the GPU result to system memory
    };
    const double mat = 4.0 * n * n;
    std::vector<Row> rows;
    rows.push_back({"copy", [&] { (void)ops->copy(ga.storage(), gc.storage()); },
                    [&] { linalg::copy(a.data, c.data); }, [&] { ec = ea; }, nullptr, 2 * mat,
                    [&] { bench::simple::copy(a.data.data(), c.data.data(), n * n); },
                    [&] { (void)gc.download(); }});
    rows.push_back({"add", [&] { (void)ops->add(ga.storage(), gb.storage(), gc.storage()); },
                    [&] { linalg::add(a.data, b.data, c.data); }, [&] { ec = ea + eb; }, nullptr,
                    3 * mat,
                    [&] { bench::simple::add(a.data.data(), b.data.data(), c.data.data(), n * n); },
                    [&] { (void)gc.download(); }});
    rows.push_back({"multiply A x", [&] { (void)ops->matVec(ga, gx, gy); },
                    [&] { linalg::matVec(cpuEx, a, x, y); }, [&] { ey.noalias() = ea * ex; },
                    [&] {
                        blas->sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0f, a.data.data(), n,
                                    x.data(), 1, 0.0f, y.data(), 1);
                    },
                    mat, [&] { bench::simple::matVec(a.data.data(), x.data(), y.data(), n); },
                    [&] { (void)gy.download(); }});
    rows.push_back({"transposed A^T x", [&] { (void)ops->matTVec(ga, gx, gy); },
                    [&] { linalg::matTVec(cpuEx, a, x, y); },
                    [&] { ey.noalias() = ea.transpose() * ex; },
                    [&] {
                        blas->sgemv(CblasRowMajor, CblasTrans, n, n, 1.0f, a.data.data(), n,
                                    x.data(), 1, 0.0f, y.data(), 1);
                    },
                    mat, [&] { bench::simple::matTVec(a.data.data(), x.data(), y.data(), n); },
                    [&] { (void)gy.download(); }});
    rows.push_back({"multiply A B", [&] { (void)ops->matMat(ga, gb, gc); },
                    [&] { linalg::matMat(cpuEx, a, b, c); }, [&] { ec.noalias() = ea * eb; },
                    [&] {
                        blas->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                                    a.data.data(), n, b.data.data(), n, 0.0f, c.data.data(), n);
                    },
                    3 * mat,
                    [&] { bench::simple::matMat(a.data.data(), b.data.data(), c.data.data(), n); },
                    [&] { (void)gc.download(); }});
    rows.push_back(
        {"transposed A^T B", [&] { (void)ops->matTMat(ga, gb, gc); },
         [&] { linalg::matTMat(cpuEx, a, b, c); }, [&] { ec.noalias() = ea.transpose() * eb; },
         [&] {
             blas->sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, n, n, 1.0f, a.data.data(), n,
                         b.data.data(), n, 0.0f, c.data.data(), n);
         },
         3 * mat, [&] { bench::simple::matTMat(a.data.data(), b.data.data(), c.data.data(), n); },
         [&] { (void)gc.download(); }});

    for (const auto& row : rows) {
        // OpenBLAS's threads spin on the second core for ~0.1 s after the previous row's call.
        settleLibraryThreads();
        const double cpuMs = msPerCall(reps, row.cpu);
        const double simpleMs = msPerCall(std::min(reps, 3), row.simpleC);
        const double eigenMs = msPerCall(reps, row.eigen);
        const double blasMs = row.blas && blas ? msPerCall(reps, row.blas) : 0.0;
        // GPU: to completion (glFinish), and to the result read back to system memory (the
        // paper's end point).
        const double gpuMs = ops ? msPerCall(reps,
                                             [&] {
                                                 row.gpu();
                                                 gpuFinish();
                                             })
                                 : 0.0;
        const double gpuReadMs = ops ? msPerCall(reps,
                                                 [&] {
                                                     row.gpu();
                                                     row.readBack();
                                                 })
                                     : 0.0;
        printRow(row.name, gpuReadMs, gpuMs, cpuMs, simpleMs, eigenMs, blasMs);
        auto r = record("ops", row.name, size, "cpu", cpuMs, reps);
        r.baselines.push_back({"eigen", eigenMs});
        r.baselines.push_back({"simple-c", simpleMs});
        if (row.blas) {
            r.baselines.push_back({"openblas-2t", blasMs});
        }
        if (ops) {
            r.baselines.push_back({"gpu", gpuMs});
            r.baselines.push_back({"gpu-readback", gpuReadMs});
        }
        r.metrics.push_back({"GB/s", row.bytes / (cpuMs * 1e6)});
        recorder.add(r);
        if (ops) {
            auto g = record("ops", row.name, size, "gpu", gpuReadMs, reps);
            g.baselines.push_back({"cpu", cpuMs});
            g.baselines.push_back({"gpu-no-readback", gpuMs});
            g.metrics.push_back({"GB/s", row.bytes / (gpuMs * 1e6)});
            recorder.add(g);
        }
    }

    // Conjugate gradients and projected Jacobi, fixed iteration counts so all columns do
    // the same arithmetic. Same rule for both GPU rows: A is resident before the clock starts
    // (its upload is not timed), x is read back at the end.
    const auto p = benchProblem(n, 3u);
    {
        linalg::Matrix spd(n, n);
        spd.data = p.a;
        linalg::Vector bb(p.b.begin(), p.b.end());
        linalg::Vector cx(static_cast<std::size_t>(n)), r(cx.size()), d(cx.size()), q(cx.size());
        auto cpuCg = [&] {
            std::fill(cx.begin(), cx.end(), 0.0f);
            linalg::copy(bb, r);
            linalg::copy(r, d);
            float rr = linalg::norm2(r);
            for (int k = 0; k < cgIterations && rr > 0.0f; ++k) {
                linalg::matVec(cpuEx, spd, d, q);
                const float alpha = rr / linalg::dot(d, q);
                linalg::mad(d, alpha, cx);
                linalg::mad(q, -alpha, r);
                const float rrNew = linalg::norm2(r);
                linalg::madTo(r, d, rrNew / rr, d);
                rr = rrNew;
            }
        };
        Eigen::Map<RowMatrix> es(spd.data.data(), n, n);
        Eigen::Map<Eigen::VectorXf> eb2(bb.data(), n);
        Eigen::ConjugateGradient<RowMatrix, Eigen::Lower | Eigen::Upper,
                                 Eigen::IdentityPreconditioner>
            eigenCg;
        RowMatrix esCopy = es;
        eigenCg.compute(esCopy);
        eigenCg.setMaxIterations(cgIterations);
        eigenCg.setTolerance(0.0f);
        Eigen::VectorXf exSol(n);
        const double cpuMs = bench::medianMs(reps, cpuCg);
        const double eigenMs = bench::medianMs(reps, [&] { exSol = eigenCg.solve(eb2); });
        double gpuMs = 0.0;
        double gpuReadMs = 0.0;
        if (ops) {
            // The paper's GPU CG: operation-set kernels, the scalars read back each iteration
            // (its normSquared readback), so this row shows that lockstep cost.
            auto gs = linalg::GpuMatrix::fromHost(spd).value();
            auto gbv = linalg::GpuVector::fromHost(bb).value();
            auto gxv = linalg::GpuVector::create(n).value(),
                 grv = linalg::GpuVector::create(n).value(),
                 gdv = linalg::GpuVector::create(n).value(),
                 gqv = linalg::GpuVector::create(n).value(),
                 gsc = linalg::GpuVector::create(1).value();
            const auto gpuCg = [&](bool readBack) {
                (void)ops->scale(gbv, 0.0f, gxv);
                (void)ops->copy(gbv, grv);
                (void)ops->copy(grv, gdv);
                (void)ops->norm2(grv, gsc);
                float rr = gsc.download()[0];
                for (int k = 0; k < cgIterations && rr > 0.0f; ++k) {
                    (void)ops->matVec(gs, gdv, gqv);
                    (void)ops->dot(gdv, gqv, gsc);
                    const float alpha = rr / gsc.download()[0];
                    (void)ops->mad(gdv, alpha, gxv);
                    (void)ops->mad(gqv, -alpha, grv);
                    (void)ops->norm2(grv, gsc);
                    const float rrNew = gsc.download()[0];
                    (void)ops->madTo(grv, gdv, rrNew / rr, gdv);
                    rr = rrNew;
                }
                if (readBack) {
                    (void)gxv.download();
                } else {
                    gpuFinish();
                }
            };
            gpuMs = bench::medianMs(reps, [&] { gpuCg(false); });
            gpuReadMs = bench::medianMs(reps, [&] { gpuCg(true); });
        }
        std::vector<float> simpleX(static_cast<std::size_t>(n));
        const double simpleMs = bench::medianMs(std::min(reps, 3), [&] {
            bench::simple::conjugateGradients(spd.data.data(), bb.data(), simpleX.data(), n,
                                              cgIterations);
        });
        char name[64];
        std::snprintf(name, sizeof name, "CG (%d iterations)", cgIterations);
        printRow(name, gpuReadMs, gpuMs, cpuMs, simpleMs, eigenMs, 0.0);
        auto rec = record("ops", "cg", size, "cpu", cpuMs, reps);
        rec.baselines.push_back({"eigen", eigenMs});
        rec.baselines.push_back({"simple-c", simpleMs});
        if (ops) {
            rec.baselines.push_back({"gpu", gpuMs});
            rec.baselines.push_back({"gpu-readback", gpuReadMs});
        }
        rec.metrics.push_back({"iterations", cgIterations});
        recorder.add(rec);
    }
    {
        const int iterations = jacobiIterations;
        LcpOptions o;
        o.omega = 0.5f;
        o.maxIterations = iterations;
        auto cpu = makeCpuLcpSolver(opts.executor);
        std::vector<float> xs(static_cast<std::size_t>(n));
        settleLibraryThreads();
        const double cpuMs = bench::medianMs(reps, [&] {
            std::fill(xs.begin(), xs.end(), 0.0f);
            (void)cpu->solve(p, xs, o);
        });
        const auto un = static_cast<std::size_t>(n);
        Eigen::Map<const RowMatrix> ep(p.a.data(), n, n);
        const double eigenMs = libraryJacobiMs(
            p, iterations + 1, o.omega,
            [&](const float* xi, float* wo) {
                Eigen::Map<Eigen::VectorXf>(wo, n).noalias() =
                    ep * Eigen::Map<const Eigen::VectorXf>(xi, n);
            },
            reps);
        const double blasMs = blas == nullptr
                                  ? 0.0
                                  : libraryJacobiMs(
                                        p, iterations + 1, o.omega,
                                        [&](const float* xi, float* wo) {
                                            blas->sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0f,
                                                        p.a.data(), n, xi, 1, 0.0f, wo, 1);
                                        },
                                        reps);
        // GPU: the solver uploads A on every call; its report separates that (uploadMs) from
        // the iterations and the read back of x (solveMs), which is what this row times.
        // Its time to the dispatches' completion (gpuMs, glFinish) is the no-readback column.
        double gpuReadMs = 0.0, gpuNoReadMs = 0.0;
        if (opts.gpu) {
            auto gpuSolver = makeGpuLcpSolver(shaders);
            if (gpuSolver) {
                o.gpuSingleDispatch = false;  // many workgroups: the whole device
                std::vector<double> solveMs, deviceMs;
                for (int r = 0; r <= reps; ++r) {
                    std::fill(xs.begin(), xs.end(), 0.0f);
                    const LcpReport rep = (*gpuSolver)->solve(p, xs, o);
                    if (r > 0) {
                        solveMs.push_back(rep.solveMs);
                        deviceMs.push_back(rep.gpuMs);
                    }
                }
                gpuReadMs = bench::median(std::move(solveMs));
                gpuNoReadMs = bench::median(std::move(deviceMs));
            }
        }
        std::vector<float> simpleX(static_cast<std::size_t>(n));
        const double simpleMs = bench::medianMs(std::min(reps, 3), [&] {
            bench::simple::projectedJacobi(p.a.data(), p.b.data(), p.lo.data(), p.hi.data(),
                                           o.omega, simpleX.data(), n, iterations + 1);
        });
        (void)un;
        char name[64];
        std::snprintf(name, sizeof name, "proj. Jacobi (%d it.)", iterations);
        printRow(name, gpuReadMs, gpuNoReadMs, cpuMs, simpleMs, eigenMs, blasMs);
        auto rec = record("ops", "projected-jacobi", size, "cpu", cpuMs, reps);
        rec.baselines.push_back({"eigen", eigenMs});
        rec.baselines.push_back({"openblas-" + std::to_string(cpuEx.threads()) + "t", blasMs});
        rec.baselines.push_back({"simple-c", simpleMs});
        if (opts.gpu) {
            rec.baselines.push_back({"gpu", gpuNoReadMs});
            rec.baselines.push_back({"gpu-readback", gpuReadMs});
        }
        rec.metrics.push_back({"iterations", iterations});
        recorder.add(rec);
    }
    std::printf(
        "  (GPU: %s; GPU rows of CG and projected Jacobi: A resident, upload not timed; "
        "projected Jacobi's GPU column: to its dispatches' completion (glFinish); "
        "CPU: this library, SIMD + %d threads; simple C: scalar loops, not vectorized, one "
        "thread; OpenBLAS: %d threads)\n",
        opts.gpu && gpu::GpuContext::current() ? gpu::GpuContext::current()->info().renderer.c_str()
                                               : "not measured",
        cpuEx.threads(), cpuEx.threads());
}

namespace {

// One row of the per-iteration table: CPU, the library loops and the time to stream A in
// interleaved rounds, the GPU on its own.
void jacobiIterationRow(const exec::Executor& ex, int n, int reps, LcpSolver& cpu,
                        LcpSolver* gpuSolver, bench::Recorder& recorder) {
    const auto p = benchProblem(n, 11u + static_cast<unsigned>(n));
    const std::string size = sizeName(n, n);
    // The paper's 2n iterations, so that a solve's start-up (first touch of x, the helper
    // thread waking, a vCPU coming back from idle: ~10 slow jobs here) is a small part of
    // it. (With 100-125 iterations the start-up decided many rounds at n = 400.)
    const int iterations = 2 * n;
    LcpOptions o;
    o.omega = 0.5f;
    o.maxIterations = iterations;
    std::vector<float> x(static_cast<std::size_t>(n));
    // iterations + 1 passes: the last one measures the final residual.
    const double passes = iterations + 1;
    // The contenders run in interleaved rounds (each once per round, the median over
    // rounds kept), so a change in machine load over the seconds of a run (a shared
    // virtual machine here) hits them alike instead of whichever ran during it. Each
    // single measurement first warms up for 20 ms (bench::warmMedianMs).
    Eigen::Map<const RowMatrix> ep(p.a.data(), n, n);
    const OpenBlas* blas = openBlas();
    auto libraryUs = [&](auto&& matVec) {
        return 1000.0 * libraryJacobiMs(p, iterations + 1, o.omega, matVec, 1) / passes;
    };
    auto blasUs = [&](int threads) {
        if (blas == nullptr) {
            return 0.0;  // not measured (as the GPU columns without a GPU)
        }
        blas->setThreads(threads);
        return libraryUs([&](const float* xi, float* wo) {
            blas->sgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0f, p.a.data(), n, xi, 1, 0.0f, wo, 1);
        });
    };
    // kBlas2 and kStream2: at the executor's thread count.
    enum { kCpu, kEigen, kStream1, kStream2, kBlas1, kBlas2, kHandOff, kContenders };
    const exec::Executor one(1);
    std::vector<double> samples[kContenders];
    for (int round = 0; round < reps; ++round) {
        // OpenBLAS's workers spin for ~0.1 s after its two-thread loop of the last round.
        settleLibraryThreads();
        samples[kCpu].push_back(1000.0 *
                                bench::warmMedianMs(1,
                                                    [&] {
                                                        std::fill(x.begin(), x.end(), 0.0f);
                                                        (void)cpu.solve(p, x, o);
                                                    }) /
                                passes);
        samples[kEigen].push_back(libraryUs([&](const float* xi, float* wo) {
            Eigen::Map<Eigen::VectorXf>(wo, n).noalias() =
                ep * Eigen::Map<const Eigen::VectorXf>(xi, n);
        }));
        samples[kStream1].push_back(1000.0 * streamMs(one, p.a, 1));
        samples[kStream2].push_back(1000.0 * streamMs(ex, p.a, 1));
        samples[kBlas1].push_back(blasUs(1));
        samples[kBlas2].push_back(blasUs(ex.threads()));
        samples[kHandOff].push_back(handOffUs(ex, n, iterations + 1));
    }
    const double cpuUs = bench::median(samples[kCpu]);
    const double eigenUs = bench::median(samples[kEigen]);
    const double blas1Us = bench::median(samples[kBlas1]);
    const double blas2Us = bench::median(samples[kBlas2]);
    const double stream1Us = bench::median(samples[kStream1]);
    const double stream2Us = bench::median(samples[kStream2]);
    const double handOff = bench::median(samples[kHandOff]);
    double gpuUs = 0.0;
    if (gpuSolver) {
        std::vector<double> perIteration;
        LcpOptions og = o;
        og.gpuSingleDispatch = false;
        og.maxIterations = std::min(iterations, 200);
        (void)bench::medianMs(reps, [&] {
            std::fill(x.begin(), x.end(), 0.0f);
            const auto rep = gpuSolver->solve(p, x, og);
            perIteration.push_back(1000.0 * rep.solveMs / (og.maxIterations + 1));
        });
        gpuUs = bench::median(perIteration);
    }
    double bestLib = eigenUs;
    for (double us : {blas1Us, blas2Us}) {
        if (us > 0.0) {
            bestLib = std::min(bestLib, us);
        }
    }
    const double bestStream = std::min(stream1Us, stream2Us);
    const double gbps = 4.0 * n * n / (cpuUs * 1e3);
    std::printf("  %6d %9.1f %9.1f %9s %9s %9.1f %9.1f %9s %9.2f %7.2f %7.2f %7.1f\n", n, cpuUs,
                eigenUs, bench::cell(blas1Us, blas1Us > 0.0, "%.1f").c_str(),
                bench::cell(blas2Us, blas2Us > 0.0, "%.1f").c_str(), stream1Us, stream2Us,
                bench::cell(gpuUs, gpuSolver != nullptr, "%.1f").c_str(), handOff, cpuUs / bestLib,
                cpuUs / bestStream, gbps);
    auto r = record("lcp", "jacobi-iteration", size, "cpu", cpuUs / 1000.0, reps);
    r.baselines = {{"eigen", eigenUs / 1000.0},
                   {"openblas-1t", blas1Us / 1000.0},
                   {"openblas-" + std::to_string(ex.threads()) + "t", blas2Us / 1000.0},
                   {"stream-1t", stream1Us / 1000.0},
                   {"stream-" + std::to_string(ex.threads()) + "t", stream2Us / 1000.0}};
    if (gpuSolver) {
        r.baselines.push_back({"gpu", gpuUs / 1000.0});
    }
    r.metrics = {{"GB/s", gbps},
                 {"ratio-vs-best-library", cpuUs / bestLib},
                 {"ratio-vs-stream", cpuUs / bestStream},
                 {"hand-off-us", handOff}};
    recorder.add(r);
    if (gpuSolver) {
        auto g = record("lcp", "jacobi-iteration", size, "gpu", gpuUs / 1000.0, reps);
        g.baselines = {{"cpu", cpuUs / 1000.0}};
        g.metrics = {{"GB/s", 4.0 * n * n / (gpuUs * 1e3)}};
        recorder.add(g);
    }
}

// Table: microseconds per projected Jacobi iteration, CPU against Eigen, OpenBLAS and the time
// to read A once.
void jacobiIterationTable(const exec::Executor& ex, const std::vector<int>& sizes, int reps,
                          LcpSolver& cpu, LcpSolver* gpuSolver, bench::Recorder& recorder) {
    std::printf(
        "\nProjected Jacobi, microseconds per iteration (median of %d); ratio = CPU / "
        "best library loop, stream = CPU / time to read A once; hand-off = the executor's "
        "empty pass (same chunks, no rows)\n",
        reps);
    const std::string nt = std::to_string(ex.threads()) + "t";
    std::printf("  %6s %9s %9s %9s %9s %9s %9s %9s %9s %7s %7s %7s\n", "n", "CPU", "Eigen",
                "BLAS-1t", ("BLAS-" + nt).c_str(), "stream1t", ("stream" + nt).c_str(), "GPU",
                "hand-off", "ratio", "stream", "GB/s");
    for (int n : sizes) {
        jacobiIterationRow(ex, n, reps, cpu, gpuSolver, recorder);
    }
}

// Table: full solves with the paper's 2n iterations, Jacobi and Gauss-Seidel on the CPU, the
// GPU in one dispatch and in one dispatch per iteration.
void fullSolveTable(const std::vector<int>& sizes, int reps, LcpSolver& cpu, LcpSolver* gpuSolver,
                    bench::Recorder& recorder) {
    std::printf("\nFull solves, 2n iterations (the paper's count), milliseconds (median of %d)\n",
                reps);
    std::printf("  %6s %10s %10s %10s %10s %12s\n", "n", "CPU-Jacobi", "CPU-GS", "GPU-1disp",
                "GPU-n-disp", "residual");
    for (int n : sizes) {
        const auto p = benchProblem(n, 11u + static_cast<unsigned>(n));
        const std::string size = sizeName(n, n);
        LcpOptions o;
        o.omega = 0.5f;
        std::vector<float> x(static_cast<std::size_t>(n));
        LcpReport last;
        settleLibraryThreads();
        const double jac = bench::medianMs(reps, [&] {
            std::fill(x.begin(), x.end(), 0.0f);
            last = cpu.solve(p, x, o);
        });
        const float residual = last.residual;
        LcpOptions gs = o;
        gs.method = LcpMethod::kGaussSeidel;
        gs.omega = 1.0f;
        const double gsMs = bench::medianMs(reps, [&] {
            std::fill(x.begin(), x.end(), 0.0f);
            (void)cpu.solve(p, x, gs);
        });
        double gpu1 = 0.0, gpuN = 0.0;
        if (gpuSolver) {
            gpu1 = bench::medianMs(reps, [&] {
                std::fill(x.begin(), x.end(), 0.0f);
                (void)gpuSolver->solve(p, x, o);
            });
            LcpOptions on = o;
            on.gpuSingleDispatch = false;
            gpuN = bench::medianMs(std::min(reps, 3), [&] {
                std::fill(x.begin(), x.end(), 0.0f);
                (void)gpuSolver->solve(p, x, on);
            });
        }
        const bool gpu = gpuSolver != nullptr;
        std::printf("  %6d %10.2f %10.2f %10s %10s %12.2e\n", n, jac, gsMs,
                    bench::cell(gpu1, gpu, "%.2f").c_str(), bench::cell(gpuN, gpu, "%.2f").c_str(),
                    residual);
        auto r = record("lcp", "jacobi-solve-2n", size, "cpu", jac, reps);
        r.baselines = {{"cpu-gauss-seidel", gsMs}};
        if (gpuSolver) {
            r.baselines.push_back({"gpu-single-dispatch", gpu1});
            r.baselines.push_back({"gpu-dispatch-per-iteration", gpuN});
        }
        r.metrics = {{"residual", residual}};
        recorder.add(r);
    }
}

// Islands: a wall's contact graph split into independent blocks of different sizes, solved
// as one batch (CPU, GPU in one dispatch) and one by one on the GPU.
void islandsBatchTable(int islands, int reps, LcpSolver& cpu, LcpSolver* gpuSolver,
                       bench::Recorder& recorder) {
    std::vector<LcpProblem> blocks;
    std::size_t total = 0;
    for (int k = 0; k < islands; ++k) {
        blocks.push_back(benchProblem(6 + (k * 37) % 90, 100u + static_cast<unsigned>(k)));
        total += static_cast<std::size_t>(blocks.back().n);
    }
    LcpOptions o;
    o.omega = 0.5f;
    std::vector<float> xb(total);
    const double cpuBatch = bench::medianMs(reps, [&] {
        std::fill(xb.begin(), xb.end(), 0.0f);
        (void)cpu.solveBatch(blocks, xb, o);
    });
    double gpuBatch = 0.0, gpuOneByOne = 0.0;
    if (gpuSolver) {
        gpuBatch = bench::medianMs(reps, [&] {
            std::fill(xb.begin(), xb.end(), 0.0f);
            (void)gpuSolver->solveBatch(blocks, xb, o);
        });
        gpuOneByOne = bench::medianMs(reps, [&] {
            std::size_t off = 0;
            for (const auto& b : blocks) {
                std::span<float> xk(xb.data() + off, static_cast<std::size_t>(b.n));
                std::fill(xk.begin(), xk.end(), 0.0f);
                (void)gpuSolver->solve(b, xk, o);
                off += static_cast<std::size_t>(b.n);
            }
        });
    }
    std::printf("\nBatched islands: %d blocks, %zu rows in all, 2n iterations each, ms\n", islands,
                total);
    std::printf("  CPU batch %.2f   GPU batch (1 dispatch) %s   GPU one solve per island %s\n",
                cpuBatch, bench::cell(gpuBatch, gpuSolver != nullptr, "%.2f").c_str(),
                bench::cell(gpuOneByOne, gpuSolver != nullptr, "%.2f").c_str());
    const std::string size = std::to_string(islands) + " islands/" + std::to_string(total);
    auto r = record("lcp", "islands-batch", size, "cpu", cpuBatch, reps);
    if (gpuSolver) {
        r.baselines = {{"gpu-batch", gpuBatch}, {"gpu-one-by-one", gpuOneByOne}};
        auto g = record("lcp", "islands-batch", size, "gpu", gpuBatch, reps);
        g.baselines = {{"cpu", cpuBatch}, {"gpu-one-by-one", gpuOneByOne}};
        recorder.add(g);
    }
    recorder.add(r);
}

}  // namespace

void runLcpBench(const bench::Options& opts, bench::Recorder& recorder) {
    const int reps = std::max(1, opts.repeats);
    gpu::ShaderLibrary shaders;
    std::unique_ptr<LcpSolver> gpuSolver;
    if (opts.gpu) {
        auto s = makeGpuLcpSolver(shaders);
        if (s) {
            gpuSolver = std::move(s).value();
        } else {
            std::printf("lcp bench: GPU solver unavailable: %s\n", s.error().message.c_str());
        }
    }
    auto cpu = makeCpuLcpSolver(opts.executor);
    const std::vector<int> sizes =
        opts.quick ? std::vector<int>{100, 200} : std::vector<int>{400, 1000};
    jacobiIterationTable(*opts.executor, sizes, reps, *cpu, gpuSolver.get(), recorder);
    fullSolveTable(sizes, reps, *cpu, gpuSolver.get(), recorder);
    islandsBatchTable(opts.quick ? 16 : 64, reps, *cpu, gpuSolver.get(), recorder);
}

}  // namespace ww::lcp
