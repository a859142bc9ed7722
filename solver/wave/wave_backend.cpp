// Helpers both wave backends share (see wave_backend.h).
#include "solver/wave/wave_backend.h"

namespace ww::wave {

void addAtRestTo(std::span<float> u, std::span<float> uPrev, std::span<const int> cells,
                 std::span<const float> deltaM, float uniformM) {
    for (std::size_t k = 0; k < cells.size() && k < deltaM.size(); ++k) {
        const auto c = static_cast<std::size_t>(cells[k]);
        u[c] += deltaM[k];
        uPrev[c] += deltaM[k];
    }
    if (uniformM != 0.0f) {
        for (std::size_t c = 0; c < u.size(); ++c) {
            u[c] += uniformM;
            uPrev[c] += uniformM;
        }
    }
}

bool recordSolve(StepStats& stats, const Result<cg::CgReport>& solve) {
    if (!solve) {
        // A failed solve leaves u^n+1 unusable (possibly Inf/NaN): keep (u^n, u^n-1).
        stats.cgStatus = cg::CgStatus::kBreakdown;
        stats.message = solve.error().message + "; kept the previous heights";
        return false;
    }
    const cg::CgReport& r = solve.value();
    stats.solveMs = r.solveMs;
    stats.cgIterations = r.iterations;
    stats.cgResidual = r.residual;
    stats.cgTrueResidual = r.trueResidual;
    stats.cgStatus = r.status;
    stats.cgHistory = r.history;
    return true;
}

}  // namespace ww::wave
