// Where a float projected iteration stops moving. Row i's step omega w_i / A_ii rounds away
// once it is below half an ulp of x_i, so the residual of a row can stay at up to
// (A_ii / omega) ulp(x_i) / 2 however many iterations run. Contacts far from small bodies give
// A_ii of 1e3 and more, which puts this floor above a 1e-5 tolerance: a solver that stops
// there is as converged as float allows (seed 1876257479 of the matrix-free assembly test
// stalls at 2.5e-5 under a floor of 5.2e-5, and its residual scales with 1 / omega as the
// argument predicts). Tests accept "converged, or stalled at this floor"; a wrong operator
// misses both by far.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#include "solver/lcp/lcp_solver.h"

namespace ww::test {

/// max_i (A_ii / omega) ulp(x_i): twice the largest residual a stalled iteration can keep.
inline double stallFloor(const lcp::LcpProblem& p, std::span<const float> x, float omega) {
    double floor = 0.0;
    for (int i = 0; i < p.n; ++i) {
        const float xi = std::fabs(x[static_cast<std::size_t>(i)]);
        const double ulp = std::nextafter(xi, std::numeric_limits<float>::infinity()) - xi;
        floor = std::max(floor, p.diagonal(i) / omega * ulp);
    }
    return floor;
}

}  // namespace ww::test
