// Options, reports and status codes shared by the CPU and GPU conjugate-gradient solvers.
//
// Convergence is measured on the relative residual ||b - A x||_2 / ||b||_2 of the
// recursively updated residual r_k (as in Eigen's ConjugateGradient and in Krüger &
// Westermann, GPU Gems 2 ch. 44, Example 44-1).
#pragma once

#include <vector>

namespace ww::cg {

/// How a solve ended.
enum class CgStatus {
    kConverged,       ///< relative residual <= tolerance
    kIterationLimit,  ///< maxIterations reached first
    kBreakdown,       ///< p.Ap <= 0 or not finite: the operator is not SPD (or overflow)
};

inline const char* statusName(CgStatus s) {
    switch (s) {
        case CgStatus::kConverged:
            return "converged";
        case CgStatus::kIterationLimit:
            return "iteration-limit";
        case CgStatus::kBreakdown:
            return "breakdown";
    }
    return "?";
}

/// Boundary condition of a grid operator: Dirichlet (u = 0 outside) or Neumann (zero normal
/// derivative: the ghost cell mirrors the boundary cell).
enum class Boundary { kDirichlet, kNeumann };

/// Default GPU readback period: the GPU CG reads its status every k iterations. Chosen by
/// measurement on llvmpipe (docs/cg.md, bench rows cg-solve-check-every-k): k = 4 was the
/// fastest full solve in three runs (k = 1 pays a sync per iteration, larger k pays up to
/// k - 1 empty dispatch pairs after convergence).
inline constexpr int kDefaultCheckEvery = 4;

struct CgOptions {
    float tolerance = 1e-5f;  ///< relative residual ||b - Ax|| / ||b||
    int maxIterations = 1000;
    int checkEvery = kDefaultCheckEvery;  ///< GPU only: status readback period (iterations)
    bool recordHistory = false;           ///< fill CgReport::history (one entry per iteration)
};

struct CgReport {
    int iterations = 0;
    float residual = 0.0f;  ///< final relative residual (recursive estimate)
    CgStatus status = CgStatus::kIterationLimit;
    std::vector<float> history;  ///< residual before iteration 1, then after each iteration
    double solveMs = 0.0;        ///< wall-clock solve time (GPU: synchronized)

    bool converged() const { return status == CgStatus::kConverged; }
};

}  // namespace ww::cg
