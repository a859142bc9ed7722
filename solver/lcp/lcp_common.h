// Rules shared by the CPU and GPU backends, so that both stop and diagnose identically.
#pragma once

#include "solver/lcp/lcp_solver.h"

namespace ww::lcp {

/// Iterations to run: maxIterations, or 2n (the paper's choice) when it is 0.
inline int iterationCount(const LcpProblem& p, const LcpOptions& o) {
    return o.maxIterations > 0 ? o.maxIterations : 2 * p.n;
}

/// Residuals below this never count as "the smallest so far" in the growth test, so that
/// roundoff noise after reaching an exact solution is not mistaken for divergence.
float divergenceFloor(const LcpProblem& p);

/// Empty, or why (p, x, o) cannot be solved.
std::string checkInput(const LcpProblem& p, std::size_t xSize, const LcpOptions& o);

}  // namespace ww::lcp
