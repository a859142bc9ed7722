// Double-precision reference LCP solvers, for tests and for checking the iterative solvers.
//
// Standard LCP: find z >= 0 with w = M z + q >= 0 and z^T w = 0.
//  - lemke(): Lemke's complementary pivoting with covering vector e = 1 (Cottle, Pang & Stone,
//    "The Linear Complementarity Problem", 4.4). Terminates with a solution for positive
//    semidefinite M whenever one exists; a secondary ray means "no solution found".
//  - enumerate(): tries every active set S (z_i > 0 for i in S) and solves
//    M_SS z_S = -q_S by Gaussian elimination with partial pivoting; exponential, n <= 14.
// Bounded LCP lo <= x <= hi (lo finite, no friction) becomes a standard LCP of size n + m
// (m = rows with finite hi): with u = x - lo >= 0 and s_i >= 0 the push from the upper bound,
//   [w_u]   [ A   E ] [u]   [A lo + b]          w_u ⟂ u,   w_s = hi - lo - u ⟂ s,
//   [w_s] = [-E^T 0 ] [s] + [hi - lo ]          x = lo + u,
// where E picks the rows with finite hi; M is positive semidefinite when A is.
#pragma once

#include <optional>
#include <vector>

#include "solver/lcp/lcp_solver.h"

namespace ww::lcp::reference {

/// Lemke's method on the n x n row-major M. nullopt on ray termination or pivot limit.
std::optional<std::vector<double>> lemke(int n, const std::vector<double>& m,
                                         const std::vector<double>& q, int maxPivots = 0);

/// Exhaustive active-set search (n <= 14); nullopt if no active set gives a solution.
std::optional<std::vector<double>> enumerate(int n, const std::vector<double>& m,
                                             const std::vector<double>& q);

/// Solves a bounded LCP without friction (lo finite) through lemke(); nullopt otherwise. Rows
/// with lo == hi are fixed there and left out of the pivoting.
std::optional<std::vector<double>> solveBounded(const LcpProblem& p);

}  // namespace ww::lcp::reference
