// CPU kernels of the wave model, with the scalar references the tests compare them to.
// With L the 5-point Laplacian without the 1/h^2 factor (ghost cells: 0 for Dirichlet, a
// copy of the boundary cell for Neumann, chosen per axis: cg::Boundary::kMixed is Dirichlet
// on the x sides and Neumann on the y sides), a = c^2 dt^2 / (4 h^2) and g = gamma dt / 2:
//
//   Crank–Nicolson (Krüger & Westermann eq. 44-7; Newmark beta = 1/4, gamma = 1/2, i.e. the
//   trapezoidal rule on u_t = v, v_t = (c^2/h^2) L u - gamma v, docs/wave.md):
//     (I - a/(1+g) L) u^n+1 = [2 u^n - (1 - g) u^n-1 + a L (2 u^n + u^n-1)] / (1 + g)
//   explicit leapfrog (eq. 44-6):
//     u^n+1 = [2 u^n - (1 - g) u^n-1 + 4 a L u^n] / (1 + g)
//   the velocity at level n that the pair (u^n, u^n-1) stands for:
//     CN        dt v^n = (1 - g)(u^n - u^n-1) + a L (u^n + u^n-1)
//     explicit  dt v^n = [(u^n - u^n-1) + 2 a L u^n] / (1 + g)   (velocity Verlet)
//   conserved energies (per unit density; sums over cells and grid edges, each Dirichlet side
//   adds the edges to its ghost cells, whose values are 0):
//     CN        E = h^2 sum (v^n)^2 / 2 + (c^2 / 2) sum_edges (u^n_i - u^n_j)^2 (no dt in it)
//     explicit  E = h^2 sum w^2 / 2 + (c^2 / 2) sum_edges (u^n_i - u^n_j)(u^n-1_i - u^n-1_j),
//               w = (u^n - u^n-1) / dt
//   Retime (a change of dt, gamma or scheme) keeps u^n and v^n: the new u^n-1 solves the new
//   scheme's velocity relation (a CG solve with I - a'/(1-g') L for CN, explicit otherwise).
//   Neumann's mean mode (lambda = 0) has the double root xi = 1: u = A + B n, so a mean
//   velocity makes the mean level drift linearly (drops at rest carry none).
#pragma once

#include <cstdint>
#include <span>

#include "solver/cg/cg_types.h"
#include "solver/exec/executor.h"

namespace ww::wave {

/// Grid and coefficients shared by the kernels.
struct GridCoeffs {
    int nx = 0;
    int ny = 0;
    float a = 0.0f;        ///< c^2 dt^2 / (4 h^2)
    float g = 0.0f;        ///< gamma dt / 2
    bool neumannX = true;  ///< ghost columns (i = -1, nx) copy the boundary cell, else 0
    bool neumannY = true;  ///< ghost rows (j = -1, ny) likewise
};

/// The ghost rule of each axis for a boundary condition.
inline void setBoundary(GridCoeffs& k, cg::Boundary b) {
    k.neumannX = cg::neumannX(b);
    k.neumannY = cg::neumannY(b);
}

/// rhs of the CN system (I - alpha L) x = rhs, alpha = a / (1 + g), and the warm-start guess
/// (0 when !warmStart): the prediction y = 2 u - uPrev after two Jacobi sweeps of that system,
///   x0 = y + (rhs - (I - alpha L) y) / (1 + 4 alpha),  guess = x0 + (rhs - (I - alpha L) x0) / (1
///   + 4 alpha).
/// Each sweep shrinks every eigencomponent of the error by at least 4 alpha / (1 + 4 alpha) (its
/// iteration matrix I - (I - alpha L) / (1 + 4 alpha) has eigenvalues alpha (4 - lambda) /
/// (1 + 4 alpha), lambda in [0, 8] those of -L). L y = 2 L u - L uPrev comes from the
/// Laplacians the right-hand side takes; the second sweep runs on rows of x0 the same pass has
/// just made (chunks of rows, each forming x0 of its neighbours' edge rows too): no pass over
/// memory of their own.
void cnRhs(const exec::Executor& ex, const GridCoeffs& k, const float* u, const float* uPrev,
           float* rhs, float* guess, bool warmStart);
/// cnRhs in double, one cell at a time (and its warm-start guess where `guess` is given).
void cnRhsReference(const GridCoeffs& k, const float* u, const float* uPrev, float* rhs,
                    float* guess = nullptr);
/// One explicit step into uNext.
void explicitStep(const exec::Executor& ex, const GridCoeffs& k, const float* u, const float* uPrev,
                  float* uNext);
void explicitStepReference(const GridCoeffs& k, const float* u, const float* uPrev, float* uNext);
/// The scheme's conserved energy of the pair (u^n, u^n-1) (see above): chunks of rows on the
/// executor, each row's interior vectorized, summed in double in chunk order (the same value on
/// any thread count).
double energy(const exec::Executor& ex, const GridCoeffs& k, bool crankNicolson, float cellSize,
              float waveSpeed, float dt, const float* u, const float* uPrev);
/// The same, one cell at a time with the ghost rule spelled out (the reference).
double energyReference(const GridCoeffs& k, bool crankNicolson, float cellSize, float waveSpeed,
                       float dt, const float* u, const float* uPrev);

/// A change of dt, damping or scheme: the coefficients before and after and dtNew / dtOld.
struct Retime {
    GridCoeffs from;
    bool fromCn = true;
    GridCoeffs to;
    bool toCn = true;
    float dtRatio = 1.0f;  ///< dt_new / dt_old
};
/// Keeps u^n and the velocity v^n the pair stands for (see above). Explicit target: writes
/// the new u^n-1 to `out` (guess unused). CN target: writes the rhs of
/// (I - beta L) u^n-1' = u + beta L u - s dt v / (1 - g'), beta = a' / (1 - g'), to `out`
/// and the first-order guess u - s (u - uPrev) to `guess`. Needs g' < 1 for a CN target.
void retime(const Retime& r, const float* u, const float* uPrev, float* out, float* guess);
/// beta of the CN target's system (see retime).
inline float retimeAlpha(const Retime& r) {
    return r.to.a / (1.0f - r.to.g);
}

/// A Gaussian disturbance: u += amplitude exp(-(d / radius)^2) for d < 3 radius.
struct Impulse {
    float xM = 0.0f;  ///< centre, metres from the grid's corner (cell centres at (i + 1/2) h)
    float yM = 0.0f;
    float amplitude = 0.0f;  ///< metres
    float radiusM = 0.0f;
    std::uint32_t bothLevels = 1;  ///< 1: add to u^n and u^n-1 (a drop at rest); 0: u^n only
    std::uint32_t pad[3] = {0, 0, 0};
};
static_assert(sizeof(Impulse) == 32);  // mirrors WaveImpulse in shaders/wave_common.glsl

void applyImpulse(const GridCoeffs& k, float cellSize, const Impulse& d, float* u, float* uPrev);
/// The volume, in units of the cell area, that applyImpulse adds to u on an nx x ny grid: its
/// bumps summed in double over the cells it reaches (the walls cut it).
double impulseVolume(int nx, int ny, float cellSize, const Impulse& d);

}  // namespace ww::wave
