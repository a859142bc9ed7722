// Solves a small random bounded LCP and a small random SPD system with wavewall's CPU solvers,
// through the installed CMake package (find_package(wavewall)), and checks both answers in
// double precision. Exits 0 when both residuals are small, 1 otherwise.
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "solver/cg/cg_solver.h"
#include "solver/exec/executor.h"
#include "solver/lcp/lcp_solver.h"

namespace {

// A random symmetric positive definite n x n matrix (row-major): M M^T / n + I, whose
// eigenvalues lie in [1, 1 + ||M||^2 / n].
std::vector<float> randomSpd(int n, std::mt19937& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> m(static_cast<std::size_t>(n) * n);
    for (double& v : m) {
        v = normal(rng);
    }
    std::vector<float> a(m.size());
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = i == j ? 1.0 : 0.0;
            for (int k = 0; k < n; ++k) {
                s += m[i * n + k] * m[j * n + k] / n;
            }
            a[i * n + j] = static_cast<float>(s);
        }
    }
    return a;
}

}  // namespace

int main() {
    const unsigned seed = std::random_device{}();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto executor = std::make_shared<const ww::exec::Executor>(2);
    bool ok = true;

    // A bounded LCP: find lo <= x <= hi complementary to w = A x + b.
    const int n = 48;
    ww::lcp::LcpProblem lcp = ww::lcp::LcpProblem::plain(n);
    lcp.a = randomSpd(n, rng);
    for (int i = 0; i < n; ++i) {
        lcp.b[i] = 2.0f * uniform(rng);
        lcp.lo[i] = -0.5f + 0.4f * uniform(rng);  // in [-0.9, -0.1]
        lcp.hi[i] = 0.5f + 0.4f * uniform(rng);   // in [0.1, 0.9]: many rows end at a bound
    }
    if (const std::string why = lcp.validate(); !why.empty()) {
        std::fprintf(stderr, "the LCP is malformed: %s\n", why.c_str());
        return 1;
    }
    ww::lcp::LcpOptions lcpOptions;
    lcpOptions.method = ww::lcp::LcpMethod::kGaussSeidel;
    lcpOptions.omega = ww::lcp::defaultOmega(lcpOptions.method);
    lcpOptions.maxIterations = 1000;
    lcpOptions.tolerance = 1e-5f;
    std::vector<float> x(n, 0.0f);
    const ww::lcp::LcpReport lcpReport =
        ww::lcp::makeCpuLcpSolver(executor)->solve(lcp, x, lcpOptions);
    // The natural-map residual ||x - clamp(x - (Ax + b), lo, hi)||_inf, evaluated in double:
    // 0 at the solution. 1e-4: float iterates of an O(1) problem stopped at 1e-5.
    const double lcpResidual = ww::lcp::naturalResidual(lcp, x);
    int atBound = 0;
    for (int i = 0; i < n; ++i) {
        atBound += x[i] == lcp.lo[i] || x[i] == lcp.hi[i];
    }
    std::printf(
        "lcp: n = %d, %s after %d Gauss-Seidel sweeps, %d rows at a bound, "
        "natural-map residual %.3g\n",
        n, ww::lcp::toString(lcpReport.status), lcpReport.iterations, atBound, lcpResidual);
    if (!(lcpResidual < 1e-4) || lcpReport.status != ww::lcp::LcpStatus::kConverged) {
        std::fprintf(stderr, "lcp: residual too large or not converged (seed %u)\n", seed);
        ok = false;
    }

    // A symmetric positive definite system A y = c by conjugate gradients.
    const int m = 64;
    std::vector<float> a = randomSpd(m, rng);
    std::vector<float> c(m), y(m, 0.0f);
    for (float& v : c) {
        v = uniform(rng);
    }
    ww::Result<ww::cg::DenseOperator> op = ww::cg::DenseOperator::create(m, a);
    if (!op) {
        std::fprintf(stderr, "cg: %s\n", op.error().message.c_str());
        return 1;
    }
    ww::cg::CgOptions cgOptions;
    cgOptions.tolerance = 1e-6f;
    ww::Result<ww::cg::CgReport> cgReport =
        ww::cg::makeCpuCgSolver(executor)->solve(*op, c, y, cgOptions);
    if (!cgReport) {
        std::fprintf(stderr, "cg: %s\n", cgReport.error().message.c_str());
        return 1;
    }
    // ||c - A y|| / ||c|| in double. 1e-4: the solve stops at 1e-6 on its float residual.
    double rr = 0.0, cc = 0.0;
    for (int i = 0; i < m; ++i) {
        double r = c[i];
        for (int j = 0; j < m; ++j) {
            r -= static_cast<double>(a[i * m + j]) * y[j];
        }
        rr += r * r;
        cc += static_cast<double>(c[i]) * c[i];
    }
    const double cgResidual = std::sqrt(rr / cc);
    std::printf("cg: n = %d, %s after %d iterations, relative residual %.3g\n", m,
                ww::cg::statusName(cgReport->status), cgReport->iterations, cgResidual);
    if (!(cgResidual < 1e-4) || !cgReport->converged()) {
        std::fprintf(stderr, "cg: residual too large or not converged (seed %u)\n", seed);
        ok = false;
    }
    return ok ? 0 : 1;
}
