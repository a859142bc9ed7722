// `wavewall lcp`: solves a dense bounded LCP read from Matrix Market files (docs/cli.md).
// Find lo <= x <= hi complementary to w = A x + b; friction rows get the bounds
// ±mu * max(x[normal], 0) from the current iterate, each row its own interval (the box cone:
// ODE's findex and Bullet's MLCP convention) unless --friction-cone disc pairs the two rows
// that name one normal into ||(x_i, x_j)|| <= mu * max(x[normal], 0).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"
#include "app/cli/solve_outputs.h"
#include "app/cli/thread_option.h"
#include "solver/core/timer.h"
#include "solver/io/matrix_market.h"
#include "solver/lcp/lcp_omega.h"
#include "solver/lcp/lcp_solver.h"

namespace ww::app {

namespace {

struct LcpValues {
    std::string matrix, rhs, lo, hi, friction, guess;
    std::string frictionCone = "box";  ///< box (the file convention) or disc
    std::string solver = "jacobi";
    std::string omega = "default";  ///< a number, "auto" (lcp_omega.h) or the method's default
    float chebyshevRho = 0.0f;
    std::string iterations = "2n";
    float tolerance = 0.0f;
    int checkEvery = lcp::LcpOptions{}.checkEvery;
    SolveOutputs io;  ///< --backend, --shader-dir, --solution, --json
};

// Bound files write ±infinity as any |v| >= 1e30.
float toBound(double v) {
    if (v >= 1e30) {
        return lcp::kInfinity;
    }
    if (v <= -1e30) {
        return -lcp::kInfinity;
    }
    return static_cast<float>(v);
}

Result<lcp::LcpProblem> readProblemUnguarded(const LcpValues& v) {
    Result<io::SparseTriplets> a = io::readMatrixMarket(v.matrix);
    if (!a) {
        return a.error();
    }
    if (a->rows != a->cols) {
        return inputError(v.matrix + ": A is " + std::to_string(a->rows) + "x" +
                          std::to_string(a->cols) + "; an LCP matrix must be square");
    }
    const int n = a->rows;
    lcp::LcpProblem p = lcp::LcpProblem::plain(n);
    const std::vector<double> dense = a->toDense();
    for (std::size_t k = 0; k < dense.size(); ++k) {
        p.a[k] = static_cast<float>(dense[k]);
    }
    Result<std::vector<double>> b = io::readMatrixMarketVector(v.rhs, n);
    if (!b) {
        return b.error();
    }
    for (int i = 0; i < n; ++i) {
        p.b[i] = static_cast<float>((*b)[i]);
    }
    if (!v.lo.empty()) {
        Result<std::vector<double>> lo = io::readMatrixMarketVector(v.lo, n);
        if (!lo) {
            return lo.error();
        }
        for (int i = 0; i < n; ++i) {
            p.lo[i] = toBound((*lo)[i]);
        }
    }
    if (!v.hi.empty()) {
        Result<std::vector<double>> hi = io::readMatrixMarketVector(v.hi, n);
        if (!hi) {
            return hi.error();
        }
        for (int i = 0; i < n; ++i) {
            p.hi[i] = toBound((*hi)[i]);
        }
    }
    p.cone = v.frictionCone == "disc" ? lcp::FrictionCone::kDisc : lcp::FrictionCone::kBox;
    if (!v.friction.empty()) {
        Result<io::SparseTriplets> f = io::readMatrixMarket(v.friction);
        if (!f) {
            return f.error();
        }
        if (f->rows != n || f->cols != 2) {
            return inputError(v.friction + ": friction must be an " + std::to_string(n) +
                              "x2 array (normal row index or -1, mu), got " +
                              std::to_string(f->rows) + "x" + std::to_string(f->cols));
        }
        const std::vector<double> fd = f->toDense();
        p.frictionNormal.assign(n, -1);
        p.mu.assign(n, 0.0f);
        for (int i = 0; i < n; ++i) {
            const double idx = fd[2 * i];
            if (idx != std::floor(idx) || idx < -1 || idx >= n) {
                return inputError(v.friction + ": row " + std::to_string(i + 1) +
                                  ": normal index " + std::to_string(idx) +
                                  " must be -1 or a 0-based row in [0, " + std::to_string(n - 1) +
                                  "]");
            }
            p.frictionNormal[i] = static_cast<int>(idx);
            p.mu[i] = static_cast<float>(fd[2 * i + 1]);
        }
    }
    if (const std::string why = p.validate(); !why.empty()) {
        return inputError(v.matrix + ": the LCP is not well posed: " + why);
    }
    return p;
}

// The reader bounds what it allocates by the file's size, but the dense problem holds n*n
// floats however few entries the file has.
Result<lcp::LcpProblem> readProblem(const LcpValues& v) {
    try {
        return readProblemUnguarded(v);
    } catch (const std::bad_alloc&) {
        return inputError(v.matrix +
                          ": not enough memory for the dense LCP of this matrix (n*n floats); "
                          "use a smaller matrix or raise the memory limit (ulimit -v)");
    }
}

// Non-empty when omega is outside the range in which the method converges for this A: Jacobi
// needs omega lambda_max(D^-1 A) < 2, and lambda_max is at least the Rayleigh quotient of a few
// power iterates (lcp_omega.h), so omega * rayleigh >= 2 proves the unprojected iteration
// diverges along its top eigenvector; Gauss-Seidel needs 0 < omega < 2 on SPD A. The bounds
// can keep such an iteration finite (it then cycles instead of diverging) and can even remove
// the offending mode, so this is a warning, and the exit code depends on whether the solve
// met a tolerance. `given`: omega is a number from the user (not auto or the default).
std::string outsideConvergentRange(const lcp::LcpProblem& p, const lcp::LcpOptions& o, bool given) {
    if (!given || p.n == 0) {
        return {};
    }
    char buf[400];
    if (o.method == lcp::LcpMethod::kGaussSeidel) {
        if (o.omega < 2.0f) {
            return {};
        }
        std::snprintf(buf, sizeof buf,
                      "--omega %g: projected Gauss-Seidel converges for 0 < omega < 2 (SPD A); "
                      "over-relaxation beyond that cycles or diverges",
                      static_cast<double>(o.omega));
        return buf;
    }
    const lcp::OmegaEstimate e = lcp::autoOmega(p, o.method);
    const double lambda = e.symmetric ? e.rayleigh : 0.0;  // a proven lower bound only if symmetric
    if (!(lambda > 0.0) || static_cast<double>(o.omega) * lambda < 2.0) {
        return {};
    }
    std::snprintf(buf, sizeof buf,
                  "--omega %g is outside projected Jacobi's convergent range for this matrix: "
                  "omega * lambda_max(D^-1 A) >= %g * %.4g = %.3g >= 2 (lambda_max from below: "
                  "Rayleigh quotient of %d power iterates), so the iteration cycles or diverges; "
                  "--omega auto would use %.4g",
                  static_cast<double>(o.omega), static_cast<double>(o.omega), lambda,
                  static_cast<double>(o.omega) * lambda, e.iterations,
                  static_cast<double>(e.omega));
    return buf;
}

int runLcp(const LcpValues& v) {
    Result<std::shared_ptr<const exec::Executor>> executor = executorFor(v.io.threads);
    if (!executor) {
        return reportError(executor.error());
    }
    if (Status s = v.io.checkWritable(); !s) {
        return reportError(s.error());
    }
    lcp::LcpOptions o;
    o.method = v.solver == "jacobi" ? lcp::LcpMethod::kJacobi : lcp::LcpMethod::kGaussSeidel;
    if (v.omega != "default" && v.omega != "auto") {
        char* end = nullptr;
        const float omega = std::strtof(v.omega.c_str(), &end);
        if (v.omega.empty() || *end != '\0' || !(omega > 0.0f) || !std::isfinite(omega)) {
            return reportError(inputError(
                "--omega '" + v.omega +
                "' must be a positive number (x <- clamp(x - omega*D^-1(Ax+b), lo, hi)), auto, "
                "or default"));
        }
        o.omega = omega;
    }
    if (!(v.chebyshevRho >= 0.0f && v.chebyshevRho < 1.0f)) {
        return reportError(
            inputError("--chebyshev-rho must be in [0, 1) (0 turns the acceleration off)"));
    }
    o.chebyshevRho = v.chebyshevRho;
    if (v.iterations != "2n") {
        char* end = nullptr;
        const long n = std::strtol(v.iterations.c_str(), &end, 10);
        if (v.iterations.empty() || *end != '\0' || n < 1 || n > 100000000) {
            return reportError(
                inputError("--iterations '" + v.iterations + "' must be a positive integer or 2n"));
        }
        o.maxIterations = static_cast<int>(n);
    }
    if (!(v.tolerance >= 0.0f)) {
        return reportError(inputError("--tolerance must be >= 0"));
    }
    o.tolerance = v.tolerance;
    if (v.checkEvery < 1) {
        return reportError(inputError("--check-every must be >= 1"));
    }
    o.checkEvery = v.checkEvery;

    Result<lcp::LcpProblem> problem = readProblem(v);
    if (!problem) {
        return reportError(problem.error());
    }
    const int n = problem->n;
    lcp::OmegaEstimate estimate;
    if (v.omega == "auto") {
        estimate = lcp::autoOmega(*problem, o.method);
        o.omega = estimate.omega;
        if (o.method == lcp::LcpMethod::kJacobi) {
            std::printf(
                "lcp: omega auto = %.4g (0.85 * 2 / lambda, lambda %.4g = min(1.1 * "
                "Rayleigh %.4g, Gershgorin %.4g)%s)\n",
                o.omega, estimate.lambda, estimate.rayleigh, estimate.gershgorin,
                estimate.symmetric ? "" : "; A is not symmetric: Gershgorin alone");
        } else {
            std::printf(
                "lcp: omega auto = %g (Gauss-Seidel converges for 0 < omega < 2 on SPD A; "
                "its default)\n",
                o.omega);
        }
    } else if (v.omega == "default") {
        o.omega = lcp::defaultOmega(o.method);
    }
    const std::string outside =
        outsideConvergentRange(*problem, o, v.omega != "auto" && v.omega != "default");
    if (!outside.empty()) {
        std::fprintf(stderr, "wavewall: warning: %s\n", outside.c_str());
    }
    std::vector<float> x(n, 0.0f);
    if (!v.guess.empty()) {
        Result<std::vector<double>> g = io::readMatrixMarketVector(v.guess, n);
        if (!g) {
            return reportError(g.error());
        }
        for (int i = 0; i < n; ++i) {
            x[i] = static_cast<float>((*g)[i]);
        }
    }

    GpuSession gpu;
    Result<Backend> backend = selectBackend(v.io.backend, v.io.shaderDir, gpu);
    if (!backend) {
        return reportError(backend.error());
    }
    if (*backend == Backend::kGpu && o.method == lcp::LcpMethod::kGaussSeidel) {
        return reportError(inputError(
            "--solver gauss-seidel runs on the CPU only (it is sequential by nature); use "
            "--backend cpu or --solver jacobi"));
    }
    std::unique_ptr<lcp::LcpSolver> solver;
    if (*backend == Backend::kGpu) {
        auto s = lcp::makeGpuLcpSolver(gpu.shaders);
        if (!s) {
            return reportError(s.error());
        }
        solver = std::move(s).value();
    } else {
        solver = lcp::makeCpuLcpSolver(*executor);
    }
    const lcp::LcpReport r = solver->solve(*problem, x, o);
    if (!r.error.empty()) {
        return reportError(inputError(v.matrix + ": " + r.error));
    }
    const double residual = lcp::naturalResidual(*problem, x);
    const bool converged = r.status == lcp::LcpStatus::kConverged;
    std::size_t nnz = 0;
    for (float a : problem->a) {
        nnz += a != 0.0f ? 1u : 0u;
    }
    const std::string renderer =
        gpu.available() ? gpu::GpuContext::current()->info().renderer : "none";
    std::printf(
        "lcp: n %d, nnz %zu, %s (omega %.4g, cap %s%s%s) on %s: %d iterations, residual %.3e, "
        "%s, solve %.3f ms, upload %.3f ms\n",
        n, nnz, v.solver.c_str(), o.omega, v.iterations.c_str(),
        problem->hasFriction() ? ", friction cone " : "",
        problem->hasFriction() ? v.frictionCone.c_str() : "", solver->backendName(), r.iterations,
        residual, lcp::toString(r.status), r.solveMs, r.uploadMs);
    nlohmann::json report = {
        {"n", n},
        {"nnz", nnz},
        {"backend", solver->backendName()},
        {"threads", (*executor)->threads()},
        {"solver", v.solver},
        {"friction_cone", v.frictionCone},
        {"omega", o.omega},
        {"omega_choice",
         v.omega == "auto" || v.omega == "default" ? v.omega : std::string("given")},
        {"iterations", r.iterations},
        {"residual", residual},
        {"converged", converged},
        {"status", lcp::toString(r.status)},
        {"solve_ms", r.solveMs},
        {"upload_ms", r.uploadMs},
        {"dispatches", r.dispatches},
        {"readbacks", r.readbacks},
        {"renderer", renderer}};
    if (v.omega == "auto") {
        report["omega_auto"] = {{"lambda", estimate.lambda},
                                {"rayleigh", estimate.rayleigh},
                                {"gershgorin", estimate.gershgorin},
                                {"symmetric", estimate.symmetric},
                                {"power_iterations", estimate.iterations}};
    }
    if (Status s = v.io.write(x, report); !s) {
        return reportError(s.error());
    }
    if (r.status == lcp::LcpStatus::kDiverged) {
        std::fprintf(stderr, "wavewall: the solve diverged (omega %g too large for this matrix?)\n",
                     o.omega);
        return kExitCheckFailed;
    }
    if (!outside.empty() && !converged) {
        std::fprintf(stderr,
                     "wavewall: residual %.3e after %d iterations at an omega outside the "
                     "convergent range: the result is not a solution (set --tolerance to check "
                     "one, or use --omega auto)\n",
                     residual, r.iterations);
        return kExitCheckFailed;
    }
    if (o.tolerance > 0.0f && !converged) {
        std::fprintf(stderr,
                     "wavewall: residual %.3e did not reach --tolerance %g in %d iterations\n",
                     residual, o.tolerance, r.iterations);
        return kExitCheckFailed;
    }
    return kExitOk;
}

}  // namespace

CommandAction registerLcpCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "lcp",
        "Solve a dense bounded LCP lo <= x <= hi complementary to w = Ax + b from Matrix "
        "Market files");
    auto v = std::make_shared<LcpValues>();
    cmd->add_option("--matrix", v->matrix, "A (n x n), Matrix Market")->required();
    cmd->add_option("--rhs", v->rhs, "b (n x 1)")->required();
    cmd->add_option("--lo", v->lo, "Lower bounds (n x 1; default 0; <= -1e30 is -infinity)");
    cmd->add_option("--hi", v->hi, "Upper bounds (n x 1; default +infinity; >= 1e30 is +infinity)");
    cmd->add_option("--friction", v->friction,
                    "n x 2: per row the 0-based normal row it depends on (or -1) and mu");
    cmd->add_option("--friction-cone", v->frictionCone,
                    "How --friction rows are bounded: box (each row |x_i| <= mu x[normal], the "
                    "convention of ODE's findex and Bullet's MLCP) or disc (the two rows naming "
                    "one normal: ||(x_i, x_j)|| <= mu x[normal], the wall scenes' cone)")
        ->check(CLI::IsMember({"box", "disc"}))
        ->capture_default_str();
    cmd->add_option("--guess", v->guess, "Warm start x0 (n x 1)");
    cmd->add_option("--solver", v->solver, "Method")
        ->check(CLI::IsMember({"jacobi", "gauss-seidel"}))
        ->capture_default_str();
    cmd->add_option("--omega", v->omega,
                    "Relaxation: x <- clamp(x - omega*D^-1(Ax+b), lo, hi): a number; auto (Jacobi: "
                    "0.85 * 2 / an estimate of lambda_max(D^-1 A), docs/lcp.md); default (Jacobi " +
                        std::to_string(lcp::kPaperOmega).substr(0, 3) +
                        ", the paper's; "
                        "Gauss-Seidel " +
                        std::to_string(lcp::kGaussSeidelOmega).substr(0, 3) + ")")
        ->capture_default_str();
    cmd->add_option("--chebyshev-rho", v->chebyshevRho,
                    "Jacobi: Chebyshev acceleration with this spectral radius estimate of the "
                    "plain iteration, in [0, 1); 0 = off")
        ->capture_default_str();
    cmd->add_option("--iterations", v->iterations, "Iteration cap (alone: a fixed count): N or 2n")
        ->capture_default_str();
    cmd->add_option("--tolerance", v->tolerance,
                    "Stop when ||x - clamp(x - (Ax+b), lo, hi)||_inf <= T (absolute)")
        ->capture_default_str();
    cmd->add_option("--check-every", v->checkEvery, "Residual check period (iterations)")
        ->capture_default_str();
    v->io.addOptions(*cmd);
    return [v]() { return runLcp(*v); };
}

}  // namespace ww::app
