// Parameters and per-step statistics of the water surface (solver/wave). Parameters are
// read-only during a step; the state lives in WaveModel.
//
// Model: u_tt + gamma u_t = c^2 (u_xx + u_yy) for the height u(x, y, t) on an nx x ny grid of
// square cells of side h = poolSizeM / max(nx, ny), reflecting (Neumann) or fixed (Dirichlet)
// walls. docs/wave.md derives the schemes, the stability limit and the energy.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "solver/cg/cg_types.h"
#include "solver/core/result.h"

namespace ww::wave {

enum class Scheme {
    kCrankNicolson,  ///< implicit, unconditionally stable, one SPD solve per step
    kExplicit,       ///< leapfrog, stable only for dt <= explicitDtLimit()
};

inline const char* schemeName(Scheme s) {
    return s == Scheme::kExplicit ? "explicit" : "cn";
}

struct WaveParams {
    int nx = 256;
    int ny = 256;
    float poolSizeM = 10.0f;  ///< side of the pool along its longer axis, metres
    float waveSpeed = 1.0f;   ///< c, m/s
    float dtRatio = 2.0f;     ///< if > 0: dt = dtRatio * explicitDtLimit()
    float dtSeconds = 0.0f;   ///< used when dtRatio <= 0
    float damping = 0.0f;     ///< gamma, 1/s (0: energy is conserved)
    Scheme scheme = Scheme::kCrankNicolson;
    cg::Boundary boundary = cg::Boundary::kNeumann;
    cg::CgOptions cg;         ///< tolerance, iteration cap, GPU readback period
    bool warmStart = true;    ///< start each solve from 2 u^n - u^n-1 (else from 0)
    bool trackEnergy = true;  ///< compute StepStats::energy every step (GPU: a download)

    /// h, metres.
    float cellSize() const { return poolSizeM / static_cast<float>(nx > ny ? nx : ny); }
    /// The explicit scheme's stability limit dt <= h / (c sqrt 2) (2D, 5-point Laplacian).
    float explicitDtLimit() const { return cellSize() / (waveSpeed * std::sqrt(2.0f)); }
    /// The time step, seconds.
    float dt() const { return dtRatio > 0.0f ? dtRatio * explicitDtLimit() : dtSeconds; }
    /// dt as a multiple of the explicit limit (what the panel shows).
    float effectiveDtRatio() const { return dt() / explicitDtLimit(); }
    /// Checks sizes and ranges; the message names the offending field.
    Status validate() const {
        if (nx < 4 || ny < 4) {
            return inputError("wave: grid must be at least 4x4, got " + std::to_string(nx) + "x" +
                              std::to_string(ny));
        }
        if (!(poolSizeM > 0.0f) || !(waveSpeed > 0.0f) || !(dt() > 0.0f) || damping < 0.0f) {
            return inputError("wave: pool size, wave speed and dt must be > 0, damping >= 0");
        }
        return {};
    }
};

/// Diagnostics of one step, read by the panel, the trace recorder and the tests.
struct StepStats {
    double rhsMs = 0.0;    ///< disturbances + right-hand side (+ warm-start guess)
    double solveMs = 0.0;  ///< CG solve (CN) or the explicit update
    double totalMs = 0.0;
    int cgIterations = 0;         ///< 0 for the explicit scheme
    float cgResidual = 0.0f;      ///< CG's recursive residual (what it stops on)
    float cgTrueResidual = 0.0f;  ///< ||rhs - A u^n+1|| / ||rhs||, once after the solve
    cg::CgStatus cgStatus = cg::CgStatus::kConverged;
    /// Empty on a good step; otherwise what went wrong and what the model did about it
    /// (a CG breakdown keeps the previous heights instead of showing a broken solve).
    std::string message;
    double energy = 0.0;           ///< discrete energy after the step (NaN when not tracked)
    int drops = 0;                 ///< disturbances applied this step
    std::vector<float> cgHistory;  ///< with cg.recordHistory: CG's residual per iteration
};

}  // namespace ww::wave
