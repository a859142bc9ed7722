// Options, reports and status codes shared by the CPU and GPU conjugate-gradient solvers.
//
// Convergence is measured on the relative residual ||b - A x||_2 / ||b||_2 of the
// recursively updated residual r_k (as in Eigen's ConjugateGradient and in Krüger &
// Westermann, GPU Gems 2 ch. 44, Example 44-1). In float the recursive r_k drifts away from
// b - A x_k (rounding in every update), so the solvers compute the true residual once at the
// end: a solve whose true residual exceeds kTrueResidualSlack x the tolerance is kInaccurate,
// not kConverged.
#pragma once

#include <vector>

namespace ww::cg {

/// How a solve ended.
enum class CgStatus {
    kConverged,       ///< relative residual <= tolerance
    kIterationLimit,  ///< maxIterations reached first
    kBreakdown,  ///< p.Ap <= 0 or not finite (not SPD, or overflow); CgSolver: a kNumerical error
    kInaccurate,      ///< recursive residual <= tolerance, true residual > slack x tolerance
};

inline const char* statusName(CgStatus s) {
    switch (s) {
        case CgStatus::kConverged:
            return "converged";
        case CgStatus::kIterationLimit:
            return "iteration-limit";
        case CgStatus::kBreakdown:
            return "breakdown";
        case CgStatus::kInaccurate:
            return "inaccurate";
    }
    return "?";
}

/// Boundary condition of a grid operator: Dirichlet (u = 0 outside) or Neumann (zero normal
/// derivative: the ghost cell mirrors the boundary cell) on all four sides, or mixed:
/// Dirichlet on the two x sides (columns i = 0 and nx - 1) and Neumann on the two y sides
/// (rows j = 0 and ny - 1), the walls of Bajaj et al.'s wave experiment (Table 4).
enum class Boundary { kDirichlet, kNeumann, kMixed };

/// Whether the sides x = 0 and x = nx - 1 (the ghost columns) mirror the boundary cell.
constexpr bool neumannX(Boundary b) {
    return b == Boundary::kNeumann;
}
/// Whether the sides y = 0 and y = ny - 1 (the ghost rows) mirror the boundary cell.
constexpr bool neumannY(Boundary b) {
    return b == Boundary::kNeumann || b == Boundary::kMixed;
}
/// "dirichlet" | "neumann" | "mixed" (the CLI's --boundary values).
constexpr const char* boundaryName(Boundary b) {
    return b == Boundary::kDirichlet ? "dirichlet" : b == Boundary::kNeumann ? "neumann" : "mixed";
}

/// Default GPU readback period: the GPU CG reads its status every k iterations. Chosen by
/// measurement on llvmpipe (docs/cg.md, bench rows cg-solve-check-every-k): k = 4 was the
/// fastest full solve in three runs (k = 1 pays a sync per iteration, larger k pays up to
/// k - 1 empty dispatch pairs after convergence).
inline constexpr int kDefaultCheckEvery = 4;

/// A converged solve whose true residual ||b - Ax|| / ||b|| exceeds this many times the
/// tolerance is reported kInaccurate: the recursive residual stopped tracking the true one.
inline constexpr float kTrueResidualSlack = 10.0f;

struct CgOptions {
    float tolerance = 1e-5f;  ///< relative residual ||b - Ax|| / ||b||
    int maxIterations = 1000;
    int checkEvery = kDefaultCheckEvery;  ///< GPU only: status readback period (iterations)
    bool recordHistory = false;           ///< fill CgReport::history (one entry per iteration)
};

struct CgReport {
    int iterations = 0;
    float residual = 0.0f;      ///< final relative residual (recursive estimate, what CG stops on)
    float trueResidual = 0.0f;  ///< ||b - A x|| / ||b|| recomputed from x once at the end
    CgStatus status = CgStatus::kIterationLimit;
    std::vector<float> history;  ///< residual before iteration 1, then after each iteration
    double solveMs = 0.0;        ///< wall-clock solve time (GPU: synchronized)
    double uploadMs = 0.0;  ///< GPU host solves: operator and vector upload, kernel build

    bool converged() const { return status == CgStatus::kConverged; }
};

/// Records the true residual and demotes a convergence it does not back up (both backends).
inline void settleTrueResidual(CgReport& report, float trueResidual, const CgOptions& options) {
    report.trueResidual = trueResidual;
    if (report.status == CgStatus::kConverged &&
        !(trueResidual <= kTrueResidualSlack * options.tolerance)) {
        report.status = CgStatus::kInaccurate;
    }
}

}  // namespace ww::cg
