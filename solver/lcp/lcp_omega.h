// Choosing projected Jacobi's relaxation from the matrix (`--omega auto`).
//
// Projected Jacobi x <- clamp(x - omega D^-1 (A x + b), lo, hi) converges for symmetric
// positive definite A when 0 < omega < 2 / lambda_max(D^-1 A), D = diag(A). lambda_max is
// estimated from below by the D-weighted Rayleigh quotient of power iterates:
//   v_{k+1} = D^-1 A v_k / ||.||,   rho_k = (v_k^T A v_k) / (v_k^T D v_k)  <=  lambda_max,
// which for symmetric A is the Rayleigh quotient of S = D^-1/2 A D^-1/2 at D^1/2 v_k, so it
// never exceeds lambda_max(S) = lambda_max(D^-1 A), and for positive semidefinite A it does not
// decrease from one iterate to the next. From above, Gershgorin's bound
// G = max_i sum_j |A_ij| / A_ii holds for any A. The estimate used is min(1.1 rho, G), and
//   omega = safety * 2 / min(1.1 rho, G)         (safety 0.85, the wall's adaptive rule).
// A matrix that is not symmetric has no Rayleigh bound: G alone is used (always safe, often
// pessimistic). Gauss-Seidel needs no estimate: it converges for 0 < omega < 2 on SPD A.
#pragma once

#include "solver/lcp/lcp_solver.h"

namespace ww::lcp {

/// max_i sum_j |A_ij| / A_ii over rows with A_ii > 0: an upper bound on the spectral radius
/// of D^-1 A (Gershgorin).
double gershgorinBound(const LcpProblem& p);

/// D-weighted Rayleigh quotients of `iterations` power iterates of D^-1 A (double precision;
/// entry k is rho_k). A lower bound on lambda_max(D^-1 A) when A is symmetric.
std::vector<double> rayleighLambdaMax(const LcpProblem& p, int iterations);

struct OmegaEstimate {
    float omega = 0.0f;       ///< the relaxation chosen
    double rayleigh = 0.0;    ///< last Rayleigh quotient (0 when A is not symmetric)
    double gershgorin = 0.0;  ///< Gershgorin bound
    double lambda = 0.0;      ///< the estimate omega was set from: min(1.1 rayleigh, G)
    bool symmetric = true;    ///< A symmetric to float rounding
    int iterations = 0;       ///< power iterations run
};

inline constexpr float kAutoOmegaSafety = 0.85f;
inline constexpr double kRayleighMargin = 1.1;

/// omega for projected Jacobi on p (see the header comment). For Gauss-Seidel, the method's
/// default (defaultOmega). An empty problem gets the method's default too.
OmegaEstimate autoOmega(const LcpProblem& p, LcpMethod method, int iterations = 50);

}  // namespace ww::lcp
