// lambda_max(D^-1 A) of a matrix-free LCP matrix (row_operator.h) by Lanczos steps in the D
// inner product, through the operator's own product kernels.
//
// D^-1 A is self-adjoint in <x, y>_D = x^T D y, so Lanczos in that inner product builds a
// symmetric tridiagonal T_k (alpha, beta) whose largest eigenvalue (the Ritz value) approaches
// lambda_max(D^-1 A) from below, much faster than the power iteration's Rayleigh quotient with
// the same products:
//   q_1 = v / |v|_D,  alpha_k = q_k^T A q_k,  beta_k q_k+1 = D^-1 A q_k - alpha_k q_k - beta_k-1
//   q_k-1.
// Each step is one product (RowOperator::gatherBodies, then applyRows) and one pass over the
// rows; the normalisation of q_k+1 is folded into the next step's product (A is linear: the
// step gathers the unnormalised vector and scales the product).
#pragma once

#include <vector>

#include "solver/exec/executor.h"
#include "solver/lcp/row_operator.h"

namespace ww::lcp {

/// Scratch of lanczosLambdaMax (reused between calls so that a step does not allocate).
struct LanczosScratch {
    std::vector<float> q, next, prev, diag, u, aq;
    std::vector<double> alpha, beta;  ///< the Lanczos tridiagonal
};

/// The largest Ritz value of `iterations` Lanczos steps on D^-1 A, A = op's matrix: never above
/// lambda_max(D^-1 A) up to float rounding. 0 for an empty operator. The start vector is
/// deterministic (1 + sin(i) / 2). With an executor the steps run on its threads in fixed
/// chunks (bodies for the gather, rows for the rest) and the sums are combined in chunk order,
/// so the result does not depend on the thread count.
float lanczosLambdaMax(const RowOperator& op, int iterations, LanczosScratch& s,
                       const exec::Executor* ex = nullptr);

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal `alpha` and
/// off-diagonal `beta` (beta.size() < alpha.size()), by bisection on Sturm counts between
/// Gershgorin's bounds (in double, to 1e-12 of the bound). 0 when alpha is empty.
double largestTridiagonalEigenvalue(const std::vector<double>& alpha,
                                    const std::vector<double>& beta);

}  // namespace ww::lcp
