// Bajaj et al.'s Table 3 problem: the pressure Poisson equation on a 40 x 80 x 80 grid,
// zero Dirichlet on the two planes perpendicular to x, zero Neumann on the other four, as a
// seven-banded matrix (x fastest: offsets 0, +-1, +-nx, +-nx ny), and the stationary solvers
// the table compares: Gauss–Seidel (rows in index order, in place) and Jacobi.
//
//   (A x)_ijk = d_ijk x_ijk - sum of the neighbours present,  h = 1,
//   d_ijk = 6 - (number of missing y and z neighbours)  (a missing x neighbour is a zero
//   Dirichlet value and keeps the 1 in the diagonal; a missing y or z one mirrors x_ijk).
// SPD (the Dirichlet planes remove the constant null vector of the pure Neumann problem).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "solver/cg/operators.h"

namespace ww::bench {

/// The matrix above on an nx x ny x nz grid.
cg::BandedOperator poisson3d(int nx, int ny, int nz);

/// One Gauss–Seidel sweep in place: x_i <- (b_i - sum_{j != i} a_ij x_j) / a_ii, i = 0, 1, ...
void gaussSeidelSweep(const cg::BandedOperator& a, std::span<const float> b, std::span<float> x);

/// ||b - A x||_2 / ||b||_2, accumulated in double.
double relativeResidual(const cg::BandedOperator& a, std::span<const float> b,
                        std::span<const float> x);

/// Iterations and elapsed time at which a stationary iteration first met a tolerance.
struct Crossing {
    double tolerance = 0.0;
    int iterations = 0;  ///< 0: not reached within the cap
    double ms = 0.0;
};

/// Calls sweep() until the relative residual (checked every `checkEvery` sweeps) is at most
/// each of `tolerances` (decreasing) or `maxSweeps` ran; one Crossing per tolerance. Times
/// include the residual checks (a solver iterating to a tolerance must make them).
std::vector<Crossing> sweepToTolerances(const std::function<void()>& sweep,
                                        const std::function<double()>& residual,
                                        const std::vector<double>& tolerances, int checkEvery,
                                        int maxSweeps);

}  // namespace ww::bench
