// `wavewall cg`: solves A x = b for a sparse SPD A read from Matrix Market files with
// conjugate gradients (CSR storage, CPU or GPU) and reports ||b - Ax|| / ||b|| (docs/cli.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"
#include "app/cli/solve_outputs.h"
#include "app/cli/thread_option.h"
#include "solver/cg/cg_solver.h"
#include "solver/io/matrix_market.h"

namespace ww::app {

namespace {

struct CgValues {
    std::string matrix, rhs, guess;
    float tolerance = cg::CgOptions{}.tolerance;
    int maxIterations = cg::CgOptions{}.maxIterations;
    int checkEvery = cg::CgOptions{}.checkEvery;
    SolveOutputs io;  ///< --backend, --shader-dir, --solution, --json
};

// ||b - A x|| / ||b|| in double, from the matrix as read (not CG's recursive estimate).
double trueResidual(const io::SparseTriplets& a, const std::vector<double>& b,
                    const std::vector<float>& x) {
    std::vector<double> r(b);
    for (std::size_t k = 0; k < a.nnz(); ++k) {
        r[a.row[k]] -= a.value[k] * x[a.col[k]];
    }
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        rr += r[i] * r[i];
        bb += b[i] * b[i];
    }
    return bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

// A in CSR. The reader bounds what it allocates by the file's size; the copy may still not fit
// beside it. The array format lists every entry, zeros too: those are not kept (a dumped wall
// block is ~6 % nonzero, and CG's product would otherwise run over all n^2), as a coordinate
// file would not list them.
Result<cg::CsrMatrix> toCsr(const std::string& path, const io::SparseTriplets& a) {
    try {
        std::vector<int> rows, cols;
        std::vector<float> values;
        const std::size_t kept =
            a.wasDense ? static_cast<std::size_t>(std::count_if(a.value.begin(), a.value.end(),
                                                                [](double v) { return v != 0.0; }))
                       : a.nnz();
        rows.reserve(kept);
        cols.reserve(kept);
        values.reserve(kept);
        for (std::size_t k = 0; k < a.nnz(); ++k) {
            if (!a.wasDense || a.value[k] != 0.0) {
                rows.push_back(a.row[k]);
                cols.push_back(a.col[k]);
                values.push_back(static_cast<float>(a.value[k]));
            }
        }
        Result<cg::CsrMatrix> csr = cg::CsrMatrix::fromTriplets(a.rows, rows, cols, values);
        if (!csr) {
            return inputError(path + ": " + csr.error().message);
        }
        return csr;
    } catch (const std::bad_alloc&) {
        return inputError(path +
                          ": not enough memory for the CSR copy of this matrix; use a "
                          "smaller matrix or raise the memory limit (ulimit -v)");
    }
}

int runCg(const CgValues& v) {
    Result<std::shared_ptr<const exec::Executor>> executor = executorFor(v.io.threads);
    if (!executor) {
        return reportError(executor.error());
    }
    if (Status s = v.io.checkWritable(); !s) {
        return reportError(s.error());
    }
    if (!(v.tolerance > 0.0f) || v.tolerance >= 1.0f) {
        return reportError(inputError("--tolerance must be in (0, 1) (relative residual)"));
    }
    if (v.maxIterations < 1 || v.checkEvery < 1) {
        return reportError(inputError("--max-iterations and --check-every must be >= 1"));
    }
    Result<io::SparseTriplets> a = io::readMatrixMarket(v.matrix);
    if (!a) {
        return reportError(a.error());
    }
    if (a->rows != a->cols) {
        return reportError(inputError(v.matrix + ": A is " + std::to_string(a->rows) + "x" +
                                      std::to_string(a->cols) + "; CG needs a square SPD matrix"));
    }
    const int n = a->rows;
    Result<cg::CsrMatrix> csr = toCsr(v.matrix, *a);
    if (!csr) {
        return reportError(csr.error());
    }
    if (!csr->isSymmetric()) {
        return reportError(inputError(v.matrix + ": A is not symmetric; conjugate gradients "
                                                 "needs a symmetric positive definite matrix"));
    }
    Result<std::vector<double>> b = io::readMatrixMarketVector(v.rhs, n);
    if (!b) {
        return reportError(b.error());
    }
    const std::vector<float> bf(b->begin(), b->end());
    std::vector<float> x(n, 0.0f);
    if (!v.guess.empty()) {
        Result<std::vector<double>> g = io::readMatrixMarketVector(v.guess, n);
        if (!g) {
            return reportError(g.error());
        }
        x.assign(g->begin(), g->end());
    }
    cg::CgOptions o;
    o.tolerance = v.tolerance;
    o.maxIterations = v.maxIterations;
    o.checkEvery = v.checkEvery;

    GpuSession gpu;
    Result<Backend> backend = selectBackend(v.io.backend, v.io.shaderDir, gpu);
    if (!backend) {
        return reportError(backend.error());
    }
    std::unique_ptr<cg::CgSolver> solver;
    if (*backend == Backend::kGpu) {
        auto made = cg::makeGpuCgSolver(gpu.shaders);
        if (!made) {
            return reportError(made.error());
        }
        solver = std::move(made).value();
    } else {
        solver = cg::makeCpuCgSolver(*executor);
    }
    Result<cg::CgReport> solved = solver->solve(*csr, bf, x, o);
    if (!solved) {
        return reportError(solved.error());
    }
    const cg::CgReport& r = solved.value();
    const double uploadMs = r.uploadMs;
    const double residual = trueResidual(*a, *b, x);
    const bool converged = r.status == cg::CgStatus::kConverged;
    const std::string renderer =
        gpu.available() ? gpu::GpuContext::current()->info().renderer : "none";
    std::printf(
        "cg: n %d, nnz %zu, CSR on %s: %d iterations, residual %.3e (||b-Ax||/||b||), "
        "%s, solve %.3f ms, upload %.3f ms\n",
        n, csr->nonZeros(), backendName(*backend), r.iterations, residual, cg::statusName(r.status),
        r.solveMs, uploadMs);
    const nlohmann::json report = {{"n", n},
                                   {"nnz", csr->nonZeros()},
                                   {"backend", backendName(*backend)},
                                   {"threads", (*executor)->threads()},
                                   {"iterations", r.iterations},
                                   {"residual", residual},
                                   {"cg_residual", r.residual},
                                   {"true_residual", r.trueResidual},
                                   {"converged", converged},
                                   {"status", cg::statusName(r.status)},
                                   {"solve_ms", r.solveMs},
                                   {"upload_ms", uploadMs},
                                   {"renderer", renderer}};
    if (Status s = v.io.write(x, report); !s) {
        return reportError(s.error());
    }
    if (!converged) {
        std::fprintf(stderr, "wavewall: CG %s after %d iterations (residual %.3e, tolerance %g)\n",
                     cg::statusName(r.status), r.iterations, residual, o.tolerance);
        return kExitCheckFailed;
    }
    return kExitOk;
}

}  // namespace

CommandAction registerCgCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "cg", "Solve A x = b (sparse SPD A, Matrix Market) with conjugate gradients");
    auto v = std::make_shared<CgValues>();
    cmd->add_option("--matrix", v->matrix, "A (n x n, symmetric positive definite)")->required();
    cmd->add_option("--rhs", v->rhs, "b (n x 1)")->required();
    cmd->add_option("--guess", v->guess, "Warm start x0 (n x 1)");
    cmd->add_option("--tolerance", v->tolerance, "Relative residual ||b-Ax||/||b|| to stop at")
        ->capture_default_str();
    cmd->add_option("--max-iterations", v->maxIterations, "Iteration cap")->capture_default_str();
    cmd->add_option("--check-every", v->checkEvery,
                    "GPU: read the residual back every K iterations")
        ->capture_default_str();
    v->io.addOptions(*cmd);
    return [v]() { return runCg(*v); };
}

}  // namespace ww::app
