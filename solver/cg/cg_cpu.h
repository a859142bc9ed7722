// Conjugate gradients on the CPU (Hestenes–Stiefel, as in Krüger & Westermann, GPU Gems 2
// ch. 44, Example 44-1), for SPD A:
//
//   r0 = b - A x0,  rho0 = r0.r0,  p0 = r0
//   k = 0, 1, ...:  q = A p_k,  alpha = rho_k / (p_k.q),  x += alpha p_k,  r -= alpha q,
//                   rho_k+1 = r.r,  stop if sqrt(rho_k+1 / b.b) <= tol,
//                   p_k+1 = r + (rho_k+1 / rho_k) p_k
//
// The fast path moves each vector as few times as possible: one pass p <- r + beta p fused
// with q = A p and p.q (row-pipelined for the stencil), one pass for the x and r updates
// with r.r. The matrix-free stencil recomputes A p in the second pass instead of storing
// it: 32 bytes per unknown and iteration (40 for the stored operators, plus the matrix). The
// reference path (solveReference) is the same algorithm in double with plain loops.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "solver/cg/cg_types.h"
#include "solver/cg/operators.h"

namespace ww::cg {

/// Owns the work vectors (r, p, q) of one problem size: build once, solve many times. The
/// kernels run on the executor (results do not depend on its thread count).
class CpuCgSolver {
  public:
    /// An empty solver that cannot solve: assign one made with an executor first.
    CpuCgSolver() = default;
    explicit CpuCgSolver(std::shared_ptr<const exec::Executor> executor, std::size_t n = 0)
        : m_ex(std::move(executor)) {
        resize(n);
    }
    void resize(std::size_t n);
    std::size_t size() const { return m_r.size(); }

    /// Solves A x = b starting from x (warm start); x holds the solution afterwards.
    CgReport solve(const StencilOperator& a, std::span<const float> b, std::span<float> x,
                   const CgOptions& options);
    CgReport solve(const BandedOperator& a, std::span<const float> b, std::span<float> x,
                   const CgOptions& options);
    CgReport solve(const CsrMatrix& a, std::span<const float> b, std::span<float> x,
                   const CgOptions& options);
    CgReport solve(const DenseOperator& a, std::span<const float> b, std::span<float> x,
                   const CgOptions& options);

  private:
    template <typename Op>
    CgReport run(const Op& a, std::span<const float> b, std::span<float> x,
                 const CgOptions& options);
    std::shared_ptr<const exec::Executor> m_ex;
    std::vector<float> m_r;
    std::vector<float> m_p;
    std::vector<float> m_q;
};

/// One-shot convenience: allocates the work vectors for this call.
template <typename Op>
CgReport solveCpu(std::shared_ptr<const exec::Executor> executor, const Op& a,
                  std::span<const float> b, std::span<float> x, const CgOptions& options = {}) {
    CpuCgSolver solver(std::move(executor), a.size());
    return solver.solve(a, b, x, options);
}

/// Reference path: the same CG in double precision with plain loops over
/// Op::applyReference. x (double) is the warm start and receives the solution.
template <typename Op>
CgReport solveReference(const Op& a, std::span<const double> b, std::span<double> x,
                        const CgOptions& options = {});

/// Linear Jacobi on banded storage (Göddeke): x <- x + D^-1 (b - A x), `sweeps` times,
/// ping-ponging between x and a scratch vector. Returns ||b - A x|| / ||b|| at the end.
double jacobiCpu(const exec::Executor& ex, const BandedOperator& a, std::span<const float> b,
                 std::span<float> x, int sweeps);

}  // namespace ww::cg
