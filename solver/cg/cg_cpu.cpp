// CPU conjugate gradients: fast float path and double reference path (see cg_cpu.h).
#include "solver/cg/cg_cpu.h"

#include <cassert>
#include <cmath>
#include <utility>

#include "solver/cg/vector_kernels.h"
#include "solver/core/timer.h"

namespace ww::cg {

void CpuCgSolver::resize(std::size_t n) {
    m_r.assign(n, 0.0f);
    m_p.assign(n, 0.0f);
    m_q.assign(n, 0.0f);
}

namespace {

float relative(double rho, double bb) {
    return static_cast<float>(bb > 0.0 ? std::sqrt(rho / bb) : std::sqrt(rho));
}

// Counts an iteration, records its residual and decides convergence (both paths).
void finishIteration(CgReport& report, float residual, const CgOptions& options) {
    ++report.iterations;
    report.residual = residual;
    if (options.recordHistory) {
        report.history.push_back(residual);
    }
    if (residual <= options.tolerance) {
        report.status = CgStatus::kConverged;
    }
}

}  // namespace

template <typename Op>
CgReport CpuCgSolver::run(const Op& a, std::span<const float> b, std::span<float> x,
                          const CgOptions& options) {
    Stopwatch clock;
    const std::size_t n = a.size();
    assert(b.size() == n && x.size() == n);
    if (m_r.size() != n) {
        resize(n);
    }
    assert(m_ex != nullptr);
    const exec::Executor& ex = *m_ex;
    CgReport report;
    float* r = m_r.data();
    float* p = m_p.data();
    float* q = m_q.data();
    const ResidualSums start = a.residual(ex, b.data(), x.data(), r);
    const double bb = start.bb;
    double rho = start.rr;
    report.residual = relative(rho, bb);
    if (options.recordHistory) {
        report.history.reserve(static_cast<std::size_t>(options.maxIterations) + 1);
        report.history.push_back(report.residual);
    }
    report.status = CgStatus::kIterationLimit;
    if (report.residual <= options.tolerance) {
        report.status = CgStatus::kConverged;
    }
    // beta = 0 makes the first direction update p = r without reading p (directionApplyDot).
    float beta = 0.0f;
    while (report.status == CgStatus::kIterationLimit &&
           report.iterations < options.maxIterations) {
        const double pq = a.directionApplyDot(ex, r, p, beta, q);
        if (!(pq > 0.0) || !std::isfinite(pq)) {
            report.status = CgStatus::kBreakdown;
            break;
        }
        const float alpha = static_cast<float>(rho / pq);
        const double rhoNext = a.updateSolution(ex, x.data(), r, p, q, alpha);
        finishIteration(report, relative(rhoNext, bb), options);
        beta = static_cast<float>(rhoNext / rho);
        rho = rhoNext;
    }
    // The true residual b - A x from x once more (r is left as CG's).
    settleTrueResidual(report, relative(a.residualNorm(ex, b.data(), x.data(), q), bb), options);
    report.solveMs = clock.elapsedMs();
    return report;
}

CgReport CpuCgSolver::solve(const StencilOperator& a, std::span<const float> b, std::span<float> x,
                            const CgOptions& options) {
    return run(a, b, x, options);
}
CgReport CpuCgSolver::solve(const BandedOperator& a, std::span<const float> b, std::span<float> x,
                            const CgOptions& options) {
    return run(a, b, x, options);
}
CgReport CpuCgSolver::solve(const CsrMatrix& a, std::span<const float> b, std::span<float> x,
                            const CgOptions& options) {
    return run(a, b, x, options);
}
CgReport CpuCgSolver::solve(const DenseOperator& a, std::span<const float> b, std::span<float> x,
                            const CgOptions& options) {
    return run(a, b, x, options);
}

template <typename Op>
CgReport solveReference(const Op& a, std::span<const double> b, std::span<double> x,
                        const CgOptions& options) {
    Stopwatch clock;
    const std::size_t n = a.size();
    std::vector<double> r(n), p(n), q(n);
    auto dotd = [n](const std::vector<double>& u, const std::vector<double>& v) {
        double s = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            s += u[i] * v[i];
        }
        return s;
    };
    double bb = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        bb += b[i] * b[i];
    }
    a.applyReference(x, r);
    for (std::size_t i = 0; i < n; ++i) {
        r[i] = b[i] - r[i];
    }
    p = r;
    double rho = dotd(r, r);
    CgReport report;
    report.residual = relative(rho, bb);
    report.status =
        report.residual <= options.tolerance ? CgStatus::kConverged : CgStatus::kIterationLimit;
    if (options.recordHistory) {
        report.history.push_back(report.residual);
    }
    while (report.status == CgStatus::kIterationLimit &&
           report.iterations < options.maxIterations) {
        a.applyReference(p, q);
        const double pq = dotd(p, q);
        if (!(pq > 0.0) || !std::isfinite(pq)) {
            report.status = CgStatus::kBreakdown;
            break;
        }
        const double alpha = rho / pq;
        for (std::size_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const double rhoNext = dotd(r, r);
        finishIteration(report, relative(rhoNext, bb), options);
        const double beta = rhoNext / rho;
        for (std::size_t i = 0; i < n; ++i) {
            p[i] = r[i] + beta * p[i];
        }
        rho = rhoNext;
    }
    a.applyReference(x, q);
    for (std::size_t i = 0; i < n; ++i) {
        q[i] = b[i] - q[i];
    }
    settleTrueResidual(report, relative(dotd(q, q), bb), options);
    report.solveMs = clock.elapsedMs();
    return report;
}

template CgReport solveReference(const StencilOperator&, std::span<const double>, std::span<double>,
                                 const CgOptions&);
template CgReport solveReference(const BandedOperator&, std::span<const double>, std::span<double>,
                                 const CgOptions&);
template CgReport solveReference(const CsrMatrix&, std::span<const double>, std::span<double>,
                                 const CgOptions&);
template CgReport solveReference(const DenseOperator&, std::span<const double>, std::span<double>,
                                 const CgOptions&);

double jacobiCpu(const exec::Executor& ex, const BandedOperator& a, std::span<const float> b,
                 std::span<float> x, int sweeps) {
    const std::size_t n = a.size();
    const std::vector<float> invDiag = a.inverseDiagonal();
    std::vector<float> other(n);
    float* in = x.data();
    float* out = other.data();
    for (int s = 0; s < sweeps; ++s) {
        a.jacobiSweep(ex, b.data(), invDiag.data(), in, out);
        std::swap(in, out);
    }
    if (in != x.data()) {
        std::copy(in, in + n, x.data());
    }
    std::vector<float> r(n);
    (void)a.applyDot(ex, x.data(), r.data());
    const double rr = detail::residualFrom(ex, b.data(), r.data(), n);
    const double bb = detail::dot(ex, b.data(), b.data(), n);
    return bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

}  // namespace ww::cg
