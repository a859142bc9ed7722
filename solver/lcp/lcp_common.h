// Rules shared by the CPU and GPU backends, so that both stop and diagnose identically.
#pragma once

#include <vector>

#include "solver/lcp/lcp_solver.h"

namespace ww::lcp {

/// Iterations to run: maxIterations, or 2n (the paper's choice) when it is 0.
inline int iterationCount(const LcpProblem& p, const LcpOptions& o) {
    return o.maxIterations > 0 ? o.maxIterations : 2 * p.n;
}

/// Chebyshev weights W[0 .. maxIterations] (LcpOptions::chebyshevRho), in float with the same
/// recurrence for every backend so that their iterates agree; empty when acceleration is off.
inline void chebyshevWeights(const LcpOptions& o, int maxIterations, std::vector<float>& w) {
    w.clear();
    if (o.chebyshevRho <= 0.0f || o.method != LcpMethod::kJacobi) {
        return;
    }
    const float rho2 = o.chebyshevRho * o.chebyshevRho;
    const int delay = o.chebyshevDelay < 0 ? 0 : o.chebyshevDelay;
    w.resize(static_cast<std::size_t>(maxIterations) + 1, 1.0f);
    for (int t = delay; t <= maxIterations; ++t) {
        const auto ut = static_cast<std::size_t>(t);
        w[ut] = t == delay ? 2.0f / (2.0f - rho2) : 4.0f / (4.0f - rho2 * w[ut - 1]);
    }
}

/// The schedule start s_t of LcpOptions::chebyshevRho: t when r(x^{t-1}) > 1.01 r(x^{t-2})
/// (t >= 2), else the previous start. rPrev1 = r(x^{t-1}), rPrev2 = r(x^{t-2}). The 1 % keeps
/// backends whose residuals differ by rounding from restarting at different iterations when
/// the residual stalls (shaders/lcp_layout.glsl has the same constant).
inline constexpr float kChebyshevRestartRise = 1.01f;
inline int chebyshevStart(int t, int previousStart, float rPrev1, float rPrev2) {
    return t >= 2 && rPrev1 > kChebyshevRestartRise * rPrev2 ? t : previousStart;
}

/// Residuals below this never count as "the smallest so far" in the growth test, so that
/// roundoff noise after reaching an exact solution is not mistaken for divergence.
float divergenceFloor(const LcpProblem& p);

/// Empty, or why (p, x, o) cannot be solved.
std::string checkInput(const LcpProblem& p, std::size_t xSize, const LcpOptions& o);

}  // namespace ww::lcp
