// Dense bounded linear complementarity problems (LCP) and the one solver API with two
// backends (CPU, GPU).
//
// Problem: find x with lo <= x <= hi such that, with w = A x + b, for every row i
//   x_i = lo_i  =>  w_i >= 0,     x_i = hi_i  =>  w_i <= 0,     lo_i < x_i < hi_i  =>  w_i = 0.
// lo = 0, hi = +inf is the plain LCP  x >= 0, w >= 0, x^T w = 0  of Moravanszky, "Dense
// Matrix Algebra on the GPU" (ShaderX2, 2003), section 5. A friction row f of a contact
// with normal row k has the x-dependent bounds  -mu_f * max(x_k, 0) <= x_f <= mu_f * max(x_k, 0).
// Friction cone (LcpProblem::cone): with the disc cone (the default) the two friction rows
// (f, g) that name the same normal row k form a pair constrained jointly to the disc
//   || (x_f, x_g) || <= mu * max(x_k, 0),
// and the box cone keeps the independent intervals above (a four-sided pyramid whose corners
// let a diagonal slip feel sqrt(2) mu x_k). A friction row alone on its normal keeps its interval.
// Every projection below is then the Euclidean projection onto that set: for a pair,
// Proj(v) = v * min(1, r / ||v||), r = mu max(x_k, 0).
//
// Projected Jacobi (the paper's method, D = diag(A)):
//   x^{t+1} = clamp(x^t - omega * D^-1 (A x^t + b), lo(x^t), hi(x^t)).
// A disc pair steps both rows with the one scale omega / max(A_ff, A_gg) and projects them
// jointly: with different scales per row the fixed point of Proj(x - D^-1 w) would not be a
// solution (D^-1 w would have to oppose x, where the cone needs w itself to).
// The paper writes x + omega' D^-1 (A x + b) with omega' = -0.1; here omega = -omega' = 0.1.
// Projected Gauss-Seidel (CPU) applies the same update row by row using the newest values; a
// disc pair is updated as one 2-row block at its first row (both rows from the same x, then
// projected with the newest x_k).
// Residual: the natural map  ||x - Proj(x - (A x + b))||_inf (clamp(., lo(x), hi(x)) per row, the
// disc per pair), zero exactly at a solution. See docs/lcp.md.
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "solver/core/result.h"
#include "solver/exec/executor.h"
#include "solver/lcp/row_operator.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::lcp {

inline constexpr float kInfinity = std::numeric_limits<float>::infinity();
/// The relaxation the paper uses (its omega = -0.1 in x + omega D^-1 (Ax + b)): Jacobi's
/// default.
inline constexpr float kPaperOmega = 0.1f;
/// Gauss-Seidel's default: plain (unrelaxed) projected Gauss-Seidel. At 0.1 it needs ~10x
/// the sweeps (docs/lcp.md).
inline constexpr float kGaussSeidelOmega = 1.0f;

/// How friction rows that share a normal row are bounded (see the header comment).
enum class FrictionCone {
    kDisc,  ///< the two rows naming one normal: ||(x_f, x_g)|| <= mu max(x_k, 0) (isotropic)
    kBox,   ///< each row alone: |x_f| <= mu max(x_k, 0) (a pyramid aligned with the rows)
};

/// Bounded LCP: find lo <= x <= hi complementary to w = A x + b. A is dense (a, n*n
/// row-major) or matrix-free (a empty, op: A = J W J^T + cfm I through per-body sums, O(n)
/// per product; row_operator.h). Every solver runs the same iteration on both forms.
struct LcpProblem {
    int n = 0;
    std::vector<float> a;             ///< n*n, row-major; empty when matrixFree()
    RowOperator op;                   ///< the matrix-free A (empty for a dense problem)
    std::vector<float> b, lo, hi;     ///< n each (lo may be -kInfinity, hi +kInfinity)
    std::vector<int> frictionNormal;  ///< empty, or n: -1, or index of the normal row this
                                      ///< friction row depends on (bounds ±mu*max(x[normal],0))
    std::vector<float> mu;            ///< n entries when frictionNormal is non-empty
    /// The rigid world's contacts use the disc; an LCP file's friction rows mean the box (ODE's
    /// findex, Bullet's MLCP), which `wavewall lcp` sets unless asked for the disc.
    FrictionCone cone = FrictionCone::kDisc;
    static LcpProblem plain(int n);  ///< sized, lo = 0, hi = +inf, no friction

    bool hasFriction() const { return !frictionNormal.empty(); }
    bool matrixFree() const { return !op.empty(); }
    /// A_ii of either form.
    float diagonal(int i) const {
        return matrixFree() ? op.diagonal(i)
                            : a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) +
                                static_cast<std::size_t>(i)];
    }
    /// Multiply-adds of one product A x: n^2 dense, RowOperator::macs() matrix-free.
    double productMacs() const {
        return matrixFree() ? op.macs() : static_cast<double>(n) * static_cast<double>(n);
    }
    /// Empty string when the arrays are consistent (sizes, lo <= hi, positive diagonal,
    /// friction indices in range and not themselves friction rows; with the disc cone at most
    /// two friction rows per normal, a pair with one mu); otherwise the reason (the first bad
    /// row's). With an executor a matrix-free problem's rows are checked on its threads.
    std::string validate(const exec::Executor* ex = nullptr) const;
};

enum class LcpMethod { kJacobi, kGaussSeidel };
/// Each method's default relaxation: kPaperOmega for Jacobi, kGaussSeidelOmega for
/// Gauss-Seidel. Set it with the method: the two ranges differ by an order of magnitude.
inline float defaultOmega(LcpMethod m) {
    return m == LcpMethod::kJacobi ? kPaperOmega : kGaussSeidelOmega;
}
enum class LcpStatus { kConverged, kIterationLimit, kDiverged };
const char* toString(LcpMethod m);
const char* toString(LcpStatus s);

struct LcpOptions {
    LcpMethod method = LcpMethod::kJacobi;
    /// x <- clamp(x - omega * D^-1 (A x + b), lo, hi). Jacobi converges for SPD A when
    /// 0 < omega < 2 / lambda_max(D^-1 A) (autoOmega in lcp_omega.h estimates it); the
    /// default is the paper's conservative value. Gauss-Seidel converges for 0 < omega < 2
    /// (SPD A): choosing it, set omega = defaultOmega(kGaussSeidel) (1).
    float omega = kPaperOmega;
    int maxIterations = 0;   ///< 0 means "2n" (the paper's choice)
    float tolerance = 0.0f;  ///< natural-map residual inf-norm; 0 = run the fixed count
    /// Residual check period when tolerance > 0: every checkEvery-th iterate is tested for
    /// convergence and divergence and kept as the last good one. Accelerated Jacobi
    /// (chebyshevRho > 0) also stops at any iterate that meets the tolerance (testsIterate).
    int checkEvery = 8;
    bool recordHistory = false;  ///< residual per iteration (computing it may cost extra)
    /// Divergence: a non-finite iterate, or a checked residual above this factor times the
    /// smallest residual seen so far (and above the tolerance).
    float divergenceGrowth = 1.0e4f;
    /// Jacobi only: Chebyshev semi-iterative acceleration (0 = off). With x^ the plain
    /// projected step from x^t, x^{t+1} = clamp(w (x^ - x^{t-1}) + x^{t-1}, lo(x^t), hi(x^t)),
    /// w = W[t - s]: W[k] = 1 for k < chebyshevDelay, then 2 / (2 - rho^2), then
    /// 4 / (4 - rho^2 W[k-1]) (chebyshevWeights in lcp_common.h). s restarts the schedule:
    /// s = t whenever r(x^{t-1}) > 1.01 r(x^{t-2}) (a rising residual: the projection broke the
    /// linear model the weights assume), else it stays. rho estimates the spectral radius of the
    /// plain iteration; near 1 it accelerates the slow modes most (a tall stack's).
    float chebyshevRho = 0.0f;
    int chebyshevDelay = 5;
    /// CPU matrix-free Jacobi only: where the rows are contacts (a normal and its disc pair of
    /// tangents, three rows each, in order), update each contact's three rows together in the
    /// row pass. false runs the rows, then the pairs, as for any other layout: the same bits,
    /// more memory traffic (for tests and measurements).
    bool contactPasses = true;
    /// GPU only: solve problems of n <= 1024 in a single dispatch (one workgroup iterates with
    /// barriers). false forces one dispatch per iteration over many workgroups, which wins
    /// when one workgroup cannot keep the device busy.
    bool gpuSingleDispatch = true;
};

struct LcpReport {
    int iterations = 0;
    float residual = 0;  ///< natural-map residual of the returned x
    LcpStatus status = LcpStatus::kIterationLimit;
    /// When recordHistory: history[t] is the residual of the t-th iterate, t = 0 (the guess)
    /// .. iterations, so it has iterations + 1 entries.
    std::vector<float> history;
    double solveMs = 0, uploadMs = 0;
    /// GPU dense path: solveMs up to the completion of the dispatches (glFinish), without the
    /// readbacks after it (nor the uploads); 0 on the CPU and the matrix-free path.
    double gpuMs = 0;
    int dispatches = 0;  ///< GPU compute dispatches this solve issued (0 on the CPU)
    int readbacks = 0;   ///< GPU-to-host transfers this solve issued (0 on the CPU)
    /// Non-empty when the problem or x was rejected before solving (x is then untouched and
    /// status is kDiverged): the reason, e.g. a size mismatch or a non-positive diagonal.
    std::string error;
};

class LcpSolver {  // one API, two backends
  public:
    virtual ~LcpSolver() = default;
    virtual const char* backendName() const = 0;  // "cpu" | "gpu"
    /// Empty when this backend can run `o`, otherwise why not (the GPU backend runs
    /// projected Jacobi only). solve() rejects such options with this reason.
    virtual std::string unsupported(const LcpOptions& o) const = 0;
    /// x: warm-start guess in (size n), solution out. Never returns NaN silently: divergence
    /// is reported in status, and x is then left at the last finite iterate (or the guess).
    virtual LcpReport solve(const LcpProblem& p, std::span<float> x, const LcpOptions& o) = 0;
    /// Independent blocks (islands) solved together (GPU: the small dense blocks in one
    /// dispatch, the matrix-free blocks two dispatches per iteration for all of them);
    /// x holds the blocks' unknowns concatenated in order. One report per block.
    virtual std::vector<LcpReport> solveBatch(std::span<const LcpProblem> blocks,
                                              std::span<float> x, const LcpOptions& o) = 0;
};

/// The CPU backend; its Jacobi passes and batches run on `executor` (results do not depend on
/// its thread count).
std::unique_ptr<LcpSolver> makeCpuLcpSolver(std::shared_ptr<const exec::Executor> executor);

/// Work (multiply-adds of one product A x: LcpProblem::productMacs) from which the CPU backend
/// splits one block's rows over the executor's threads instead of solving it on one thread
/// beside other blocks.
inline constexpr std::ptrdiff_t kSplitBlockWork = exec::kMinParallelWork;
bool isSplitBlock(const LcpProblem& p);
/// Needs a current GpuContext; fails with a reason (never crashes).
/// `executor` (optional) packs the matrix-free batches on the host on its threads.
Result<std::unique_ptr<LcpSolver>> makeGpuLcpSolver(
    const gpu::ShaderLibrary& shaders, std::shared_ptr<const exec::Executor> executor = nullptr);

/// Natural-map residual ||x - Proj(x - (Ax+b))||_inf (friction bounds from x; disc pairs
/// projected jointly), in double.
double naturalResidual(const LcpProblem& p, std::span<const float> x);

}  // namespace ww::lcp
