// Rules shared by the CPU and GPU backends, so that both stop and diagnose identically.
#pragma once

#include <cmath>
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

/// Whether iterate t's residual r is tested against the tolerance and for divergence: every
/// checkEvery-th iterate, the last (t == maxIterations), a non-finite one, and, where the
/// iteration is accelerated (Chebyshev: every pass computes r for the restart rule), any iterate
/// that meets the tolerance, so that such a solve stops at the first pass that meets it instead
/// of the next multiple of checkEvery. Only the checkEvery-th iterates are kept as the last good
/// one (the fallback of a diverged solve): stopping at a converged iterate needs no copy.
/// shaders/lcp_layout.glsl's lcpTestsIterate is the same rule.
inline bool testsIterate(int t, int checkEvery, int maxIterations, float r, float tolerance,
                         bool accelerated) {
    return t == maxIterations || !std::isfinite(r) || t % checkEvery == 0 ||
           (accelerated && tolerance > 0.0f && r <= tolerance);
}

/// Two friction rows projected jointly onto the disc ||(x_first, x_second)|| <= mu max(x_normal, 0)
/// (FrictionCone::kDisc). first < second.
struct FrictionPair {
    int first = 0, second = 0, normal = 0;
    float mu = 0.0f;
};

/// The disc pairs of p in order of their first row: empty for the box cone, without friction,
/// and for friction rows alone on their normal (those keep the interval). Assumes validate().
std::vector<FrictionPair> frictionPairs(const LcpProblem& p);

/// Euclidean projection of (x1, x2) onto the disc of radius r >= 0: scaled by r / ||(x1, x2)||
/// when outside. Every backend uses this formula (shaders/lcp_layout.glsl, lcpDisc) so that
/// their iterates agree; a NaN input stays NaN.
inline void projectDisc(float& x1, float& x2, float r) {
    const float len = std::sqrt(x1 * x1 + x2 * x2);
    if (len > r) {
        const float s = r / len;
        x1 *= s;
        x2 *= s;
    }
}

/// Residuals below this never count as "the smallest so far" in the growth test, so that
/// roundoff noise after reaching an exact solution is not mistaken for divergence. With an
/// executor, max |b| is taken on its threads (the same value).
float divergenceFloor(const LcpProblem& p, const exec::Executor* ex = nullptr);

/// Empty, or why (p, x, o) cannot be solved (LcpProblem::validate on the executor's threads).
std::string checkInput(const LcpProblem& p, std::size_t xSize, const LcpOptions& o,
                       const exec::Executor* ex = nullptr);

}  // namespace ww::lcp
