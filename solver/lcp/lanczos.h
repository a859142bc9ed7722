// lambda_max(D^-1 A) of a matrix-free LCP matrix (row_operator.h) by Lanczos steps, through the
// operator's own product kernels.
//
// A = J W J^T + cfm I. The nonzero eigenvalues of D^-1 J W J^T (rows) are those of
// B = W J^T D^-1 J (bodies: 6 per body, a few times fewer than rows), and B is self-adjoint in
// the mass inner product <v, v'>_M = v^T M v' (M = W^-1: <v, B v'>_M = (J v)^T D^-1 (J v')). So
// the steps run in body space: each is one product (applyRows on the body vector, the rows
// scaled by 1 / A_ii, then gatherBodies) and a few passes over the bodies, not the rows:
//   q_1 = v / |v|_M,  alpha_k = <q_k, B q_k>_M,  beta_k q_k+1 = B q_k - alpha_k q_k -
//   beta_k-1 q_k-1.
// The tridiagonal T_k (alpha, beta) has Ritz values that approach lambda_max(B) from below.
// With cfm > 0 (its cfm I has no body-space form) or without the masses (RowOperator::bodyMass)
// the steps run in row space instead: D^-1 A is self-adjoint in <x, y>_D = x^T D y, each step
// one product and two passes over the rows, from a hash start by row, with no Ritz vector.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/lcp/row_operator.h"

namespace ww::lcp {

/// Scratch of lanczosLambdaMax (reused between calls so that a step does not allocate).
struct LanczosScratch {
    std::vector<float> zeros, invDiag, y;  ///< per row: 0 (applyRows's x), 1 / A_ii, D^-1 J q
    std::vector<float> qf, u;              ///< per body slot: the vector multiplied, B times it
    std::vector<float> impulses;        ///< per contact in contact form (RowOperator::impulsesOf)
    std::vector<double> q, prev, next;  ///< per body slot: q_k, q_k-1, beta_k q_k+1
    std::vector<float> rowQ, rowNext, rowPrev, rowDiag, rowAq;  ///< the row-space steps'
    std::vector<float> basis;         ///< q_1 .. q_k (with LanczosOptions::ritzVector)
    std::vector<double> alpha, beta;  ///< the Lanczos tridiagonal
    std::vector<double> chunkSums;    ///< two a body chunk: the body-space steps' partial sums
    /// With LanczosOptions::ritzVector: the Ritz vector of the returned value (kBodyFloats per
    /// body slot, unit M norm), the start of the next estimate on a similar operator.
    std::vector<float> ritz;
};

struct LanczosOptions {
    int maxSteps = 12;
    /// Stop once a step after the first minSteps raised the Ritz value by at most stopRise of
    /// it (0 = always run maxSteps): from a good start (a Ritz vector of the last estimate) the
    /// value settles in a few steps.
    int minSteps = 12;
    double stopRise = 0.0;
    /// A start vector (kBodyFloats per body slot), or empty for the hash start alone. Given, the
    /// start is it (scaled to unit M norm) plus startMix times the hash start (also of unit M
    /// norm): the hash part keeps every direction in the Krylov space, so that a mode the
    /// given vector misses can still rise. A given vector of zero norm means the hash start.
    std::span<const float> start;
    double startMix = 0.2;
    /// Compute the Ritz vector of the returned value into LanczosScratch::ritz.
    bool ritzVector = false;
};

struct LanczosResult {
    float lambda = 0.0f;  ///< the estimate (see lanczosLambdaMax)
    int steps = 0;        ///< Lanczos steps taken (products with A)
};

/// The largest Ritz value of o.maxSteps Lanczos steps (fewer with o.stopRise) on D^-1 A,
/// A = op's matrix: never above lambda_max(D^-1 A) up to float rounding. 0 for an empty
/// operator. In row space (cfm > 0, or no masses) o's start, stopRise and ritzVector do not
/// apply: maxSteps steps from the hash start, and s.ritz is left empty. With an executor the
/// passes run on its threads in fixed chunks (rows for the product's first half, bodies for the
/// rest) and the sums are combined in chunk order, so the result does not depend on the thread
/// count; in body space the whole estimate is one Executor::runStages (one hand-off to the
/// threads instead of four loops a step).
LanczosResult lanczosLambdaMax(const RowOperator& op, const LanczosOptions& o, LanczosScratch& s,
                               const exec::Executor* ex = nullptr);
/// The same from the hash start with `iterations` steps (the start vector: a hash of each
/// component's index, in [0.5, 1.5]).
float lanczosLambdaMax(const RowOperator& op, int iterations, LanczosScratch& s,
                       const exec::Executor* ex = nullptr);

/// A unit eigenvector of the symmetric tridiagonal matrix (alpha, beta) for its eigenvalue
/// theta (the largest: largestTridiagonalEigenvalue), by inverse iteration with the shift just
/// above theta (T - shift I is then negative definite and its LDL^T needs no pivoting).
std::vector<double> tridiagonalTopEigenvector(const std::vector<double>& alpha,
                                              const std::vector<double>& beta, double theta);

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and
/// off-diagonal `beta` (beta.size() < alpha.size()), by bisection on Sturm counts between
/// Gershgorin's bounds (in double, to 1e-12 of the bound). 0 when alpha is empty.
double largestTridiagonalEigenvalue(const std::vector<double>& alpha,
                                    const std::vector<double>& beta);

/// When a Lanczos run ends (lanczosRecurrence).
struct LanczosStop {
    int maxSteps = 12;
    /// With stopRise > 0: end once a step after the first max(minSteps, 2) raised the largest
    /// Ritz value by at most stopRise of it.
    int minSteps = 0;
    double stopRise = 0.0;
};

/// The Lanczos recurrence's bookkeeping on the tridiagonal T_k (alpha, beta), whatever space
/// its vectors live in and whatever inner product they use, for a caller that runs the vector
/// passes itself (lanczosRecurrence below, or the stages of one Executor::runStages). Step k:
/// the caller forms q_k and B q_k and hands alpha_k = <q_k, B q_k> (nullopt when q_k had no
/// norm) to afterProduct; while that says the run goes on, the caller forms
/// beta_k q_k+1 = B q_k - alpha_k q_k - beta_k-1 q_k-1 (alpha(), betaPrevious()) and hands its
/// squared norm to afterOrthogonalise, which returns beta_k to scale q_k+1 by, or nullopt when
/// the run ends. The run ends after stop.maxSteps steps, on an invariant subspace
/// (beta_k <= 1e-7 |alpha_k|: T_k's eigenvalues are then exact) or by stop.stopRise.
class LanczosSteps {
  public:
    LanczosSteps(const LanczosStop& stop, std::vector<double>& alpha, std::vector<double>& beta)
        : m_stop(stop), m_alpha(alpha), m_beta(beta) {
        m_alpha.clear();
        m_beta.clear();
    }
    /// Step k's alpha_k (k = steps()); true when beta_k is to be formed next.
    bool afterProduct(std::optional<double> a) {
        if (!a) {
            return false;
        }
        m_a = *a;
        m_alpha.push_back(m_a);
        const int k = steps() - 1;
        if (m_stop.stopRise > 0.0) {
            const double previous = m_theta;
            m_theta = largestTridiagonalEigenvalue(m_alpha, m_beta);
            if (k + 1 >= std::max(m_stop.minSteps, 2) &&
                m_theta - previous <= m_stop.stopRise * m_theta) {
                return false;
            }
        }
        return k + 1 < m_stop.maxSteps;
    }
    /// |beta_k q_k+1|^2; beta_k, or nullopt when the run ends.
    std::optional<double> afterOrthogonalise(double norm2) {
        const double b = std::sqrt(norm2);
        if (!(b > 1e-7 * std::abs(m_a))) {
            return std::nullopt;
        }
        m_beta.push_back(b);
        m_betaPrev = b;
        return b;
    }
    /// Products taken so far (k of the next one).
    int steps() const { return static_cast<int>(m_alpha.size()); }
    double alpha() const { return m_a; }                ///< alpha_k of the last product
    double betaPrevious() const { return m_betaPrev; }  ///< beta_k-1 (0 at k = 0)
    /// The largest eigenvalue of T_k (0 when no step was taken).
    double result() const { return largestTridiagonalEigenvalue(m_alpha, m_beta); }

  private:
    LanczosStop m_stop;
    std::vector<double>& m_alpha;
    std::vector<double>& m_beta;
    double m_theta = 0.0;
    double m_a = 0.0;
    double m_betaPrev = 0.0;
};

/// The Lanczos recurrence (LanczosSteps) as one loop over the caller's passes: the loop behind
/// the estimates whose passes are loops of their own (row space here, the rigid world's
/// Jacobian rows in rigid/assembly.cpp):
///   product(k)                   forms q_k (from beta_k-1 q_k) and B q_k and returns
///                                alpha_k = <q_k, B q_k>, or nullopt when q_k has no norm (the
///                                run ends);
///   orthogonalise(alpha_k, beta_k-1)  forms beta_k q_k+1 = B q_k - alpha_k q_k - beta_k-1 q_k-1
///                                and returns its squared norm;
///   advance(beta_k)              readies the next product (a scale of 1 / beta_k, or the
///                                normalised q_k+1).
/// alpha and beta hold T_k on return; the result is its largest eigenvalue (0 when no step was
/// taken).
template <typename Product, typename Orthogonalise, typename Advance>
double lanczosRecurrence(const LanczosStop& stop, std::vector<double>& alpha,
                         std::vector<double>& beta, Product&& product,
                         Orthogonalise&& orthogonalise, Advance&& advance) {
    LanczosSteps steps(stop, alpha, beta);
    if (stop.maxSteps <= 0) {
        return steps.result();
    }
    while (steps.afterProduct(product(steps.steps()))) {
        const std::optional<double> b =
            steps.afterOrthogonalise(orthogonalise(steps.alpha(), steps.betaPrevious()));
        if (!b) {
            break;
        }
        advance(*b);
    }
    return steps.result();
}

}  // namespace ww::lcp
