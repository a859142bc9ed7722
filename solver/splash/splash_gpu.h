// The splash coupling on the GPU (docs/splash.md, "GPU path"): the heights stay in the
// WaveModel's GL buffers and the coupling runs in compute kernels beside them. Per step:
//   splash_reduce   (2 dispatches)  sum and max of eta^n
//   splash_sample   (a workgroup per body) the submerged lines under eta^n, buoyancy and drag
//                   reduced per body; READ BACK: the per-body forces and the two numbers
//   -- the forces are applied on the CPU, the LCP step runs (on the GPU LCP backend) --
//   splash_sample   the lines of the new poses under the same eta^n (no forces)
//   splash_splat    old (-) and new (+) lines into each body's tile, fixed point
//   splash_distribute  each tile cell's change to its target outside the footprints
//   splash_spread   (with a source spread) the separable Gaussian's x pass
//   splash_apply    (its y pass,) the sources into u^n and u^n-1 at rest
//   -- the water's step --
//   splash_reduce, splash_sample (volumes only) and splash_correct: W under the new surface and
//                   the uniform level correction (W0 - W) / A_pool, on the GPU (no readback)
// The CPU path (splash_world.cpp) is the reference; tests/solver/splash checks they agree.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "solver/core/result.h"
#include "solver/gpu/gl_objects.h"
#include "solver/rigid/world.h"
#include "solver/splash/splash_gpu_layout.h"
#include "solver/splash/splash_world.h"
#include "solver/splash/water_column.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::splash {

/// The grid as the kernels need it.
struct GpuGrid {
    int nx = 0;
    int ny = 0;
    float cellM = 0.0f;
    float restLevelM = 0.0f;
    float dtSeconds = 0.0f;
};

/// Displacements are summed in integers of this many metres of height on a cell: far below a
/// visible wave (and below the float rounding of a 0.6 m level, 6e-8 m), and a cell holds
/// +-21 m of height change per body and step before an int32 overflows.
inline constexpr float kDisplacementQuantumM = 1.0e-8f;

/// Whether the GPU path's buffers for `bodies` bodies on `p`'s grid fit in shader storage
/// blocks of `maxSsboBytes` (GL_MAX_SHADER_STORAGE_BLOCK_SIZE; at least 16 MiB by the GL 4.3
/// spec): a kGpuLimit error naming the option to change when not.
Status gpuFits(const SplashParams& p, int bodies, std::int64_t maxSsboBytes);

/// What the reduction of the heights found besides their sum.
struct SurfaceStats {
    float etaMinM = 0.0f;
    float etaMaxM = 0.0f;
    double etaSumSq = 0.0;
};

class SplashGpu {
  public:
    /// Builds the kernels and the grid-sized buffers (kShader, kGpuLimit on failure).
    static Result<std::unique_ptr<SplashGpu>> create(const gpu::ShaderLibrary& shaders,
                                                     const GpuGrid& grid);

    /// Water -> bodies under (u, uPrev) (GL buffer names): the forces of every body of
    /// `world` (zero for static or dry ones), the sum of eta and the level correction the
    /// last correctLevel() added (0 before any). One readback.
    void sampleForces(const rigid::World& world, const ColumnParams& column, unsigned u,
                      unsigned uPrev, float dryMarginM, std::vector<BodyWater>& forces,
                      double& etaSum, double& lastCorrectionM, SurfaceStats& surface);
    /// Bodies -> water: the lines of the bodies' current poses under the same (u, uPrev) as
    /// sampleForces, the change against the poses sampleForces saw moved out of the
    /// footprints, spread by a Gaussian of `spreadSigmaM` (0: none) as the CPU path spreads
    /// them, then added to u and uPrev at rest (`moveWater` false: nothing is added). One
    /// small readback: per body, sum dv (eta_target - eta_cell) of its moved volume (m^4,
    /// `lift`), for the radiation reaction (SplashWorld).
    Status displace(const rigid::World& world, const ColumnParams& column, unsigned u,
                    unsigned uPrev, bool moveWater, float negligibleM3, int sourceOffsetCells,
                    float spreadSigmaM, std::vector<float>& lift);
    /// After the water's step: W under the new (u, uPrev) with the bodies of the last
    /// displace(), and (W0 - W) / A_pool added to both; `restMinusW0` = d nx ny h^2 - W0 (m^3).
    /// No readback (the shift comes back with the next sampleForces).
    void correctLevel(const ColumnParams& column, unsigned u, unsigned uPrev, float dryMarginM,
                      double restMinusW0);

  private:
    SplashGpu() = default;
    /// Lays out `world`'s bodies as the kernels read them; returns the lines of this pass.
    int layBodies(const rigid::World& world, const ColumnParams& column);
    Status reserveLines(int lines);
    void setGrid(const gpu::Program& p) const;
    /// The sampling pass's grid, coefficients and where its lines go (writing forces).
    void setSampleUniforms(const ColumnParams& column, float dryMarginM, int sampleOffset) const;
    /// The spread's weights w[0..R] and the in-pool weight sums per column and row, uploaded
    /// when sigma changes; returns R.
    int spreadRadius(float sigmaM);

    GpuGrid m_grid;
    /// Sum and max of u into the header (2 dispatches).
    void reduceHeights(unsigned u);
    gpu::Program m_reduce, m_sample, m_splat, m_distribute, m_spread, m_apply, m_correct;
    gpu::Buffer m_bodies, m_forces, m_partials, m_samples, m_tiles, m_footprint, m_source;
    gpu::Buffer m_stay, m_along, m_spreadWeights;
    float m_spreadSigmaM = -1.0f;
    int m_spreadRadius = 0;
    int m_lineCapacity = 0;  ///< lines per pass the sample buffer holds
    std::vector<gpu_layout::Body> m_records;
    std::vector<gpu_layout::Body> m_before;  ///< the records sampleForces used
    int m_linesBefore = 0;
    std::vector<gpu_layout::Force> m_readback;
};

}  // namespace ww::splash
