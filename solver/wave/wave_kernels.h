// CPU kernels of the wave model, with the scalar references the tests compare them to.
// With L the 5-point Laplacian without the 1/h^2 factor (ghost cells: 0 for Dirichlet, a
// copy of the boundary cell for Neumann), a = c^2 dt^2 / (4 h^2) and g = gamma dt / 2:
//
//   Crank–Nicolson (trapezoidal in the Laplacian; Krüger & Westermann eq. 44-7):
//     (I - a/(1+g) L) u^n+1 = [2 u^n - (1 - g) u^n-1 + a L (2 u^n + u^n-1)] / (1 + g)
//   explicit leapfrog (eq. 44-6):
//     u^n+1 = [2 u^n - (1 - g) u^n-1 + 4 a L u^n] / (1 + g)
//   energies (per unit density; v = (u^n - u^n-1) / dt, sums over cells and grid edges):
//     CN        E = h^2 sum v^2 / 2 + (c^2 / 2) sum_edges (ubar_i - ubar_j)^2,
//               ubar = (u^n + u^n-1) / 2
//     explicit  E = h^2 sum v^2 / 2 + (c^2 / 2) sum_edges (u^n_i - u^n_j)(u^n-1_i - u^n-1_j)
//   (Dirichlet adds the edges to the ghost cells, whose values are 0.)
#pragma once

#include <cstdint>
#include <span>

#include "solver/cg/cg_types.h"

namespace ww::wave {

/// Grid and coefficients shared by the kernels.
struct GridCoeffs {
    int nx = 0;
    int ny = 0;
    float a = 0.0f;  ///< c^2 dt^2 / (4 h^2)
    float g = 0.0f;  ///< gamma dt / 2
    bool neumann = true;
};

/// rhs of the CN system and the warm-start guess (2 u - uPrev, or 0 when !warmStart).
void cnRhs(const GridCoeffs& k, const float* u, const float* uPrev, float* rhs, float* guess,
           bool warmStart);
void cnRhsReference(const GridCoeffs& k, const float* u, const float* uPrev, float* rhs);
/// One explicit step into uNext.
void explicitStep(const GridCoeffs& k, const float* u, const float* uPrev, float* uNext);
void explicitStepReference(const GridCoeffs& k, const float* u, const float* uPrev, float* uNext);
/// The scheme's conserved energy of the pair (u^n, u^n-1) (see above).
double energy(const GridCoeffs& k, bool crankNicolson, float cellSize, float waveSpeed, float dt,
              const float* u, const float* uPrev);

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

}  // namespace ww::wave
