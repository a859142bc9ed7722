// The splash: a rigid::World of bricks standing in (and falling into) a wave::WaveModel pool,
// two-way coupled once per step (docs/splash.md):
//   1. water -> bodies: each body's submerged samples under the current surface eta^n
//      (water_column.h) give buoyancy and drag; they enter the world as velocity changes
//      dt F / m and dt I_w^-1 tau before its step (as the demo's grab does), so the LCP sees
//      them like gravity.
//   2. the LCP step (collide, assemble, solve, integrate).
//   3. bodies -> water: the displaced volume per cell D_c (the samples' volumes spread
//      bilinearly) is computed for the old and the new poses under the SAME surface eta^n;
//      the difference is the volume the bodies' motion pushed aside. It is added to the
//      heights at rest (u^n and u^n-1 alike, so it carries no velocity):
//        eta_c += (D_c(eta^n, body^n+1) - D_c(eta^n, body^n)) / h^2
//      and a falling brick raises a mound that leaves as a ring wave. The part of the
//      displacement that changes because the surface moves under a body (not the body) is
//      not a flow of water; it is returned as a uniform level correction
//        eta += (W0 - W^n) / A_pool,   W = sum_c (d + eta_c) h^2 - sum_c D_c(eta, body)
//      so the water volume W stays W0 (up to the last step's surface change under bodies).
//      Moving the volume from a cell at level eta_c to a target at eta_t changes the water's
//      potential energy by rho g dv (eta_t - eta_c) beyond what the motion did; that energy
//      is taken from the body's kinetic energy (a radiation reaction, chargeRadiation), so
//      the coupling cannot create energy (docs/splash.md).
//   4. the Crank–Nicolson water step (rhs, CG solve).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/rigid/world.h"
#include "solver/splash/water_column.h"
#include "solver/wave/wave_model.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::splash {

class SplashGpu;

/// Parameters of the coupled scene; the world's dt is the water's dt.
struct SplashParams {
    rigid::WorldParams world;
    wave::WaveParams wave;     ///< grid, pool size, damping, CG; dt and c are set by create()
    ColumnParams column;       ///< water density, drag coefficients, sampling
    float waterDepthM = 0.6f;  ///< still water above the floor y = 0
    /// The CPU threads of the LCP and the water (null: one thread).
    std::shared_ptr<const exec::Executor> executor;
    /// Wave speed: <= 0 uses the shallow-water speed sqrt(g d) of the depth.
    float waveSpeed = 0.0f;
    /// false: the bodies feel the water but do not move it (one-way coupling, for comparison).
    bool bodiesMoveWater = true;
    /// The displaced volume enters this many cells beyond the bodies' footprints: the water a
    /// body pushes aside that flows straight back under it lifts it a moment later, a delayed
    /// spring that pumps energy into its rocking (docs/splash.md: a tipping cube blew up at 0
    /// cells, rocked within 1 rad/s at 2).
    int sourceOffsetCells = 2;
    /// Each target cell's volume is spread over a Gaussian of this standard deviation (m),
    /// cut at two of them (docs/splash.md): a brick entering the water fast pushes aside more
    /// than a cell's worth of water in a step, and put into single cells that becomes
    /// cell-sized spikes that the lossless Crank-Nicolson scheme keeps and the bodies' forces
    /// feed back. 0 puts it into the target cell alone.
    float sourceSpreadM = 0.08f;
    Status validate() const;
};

/// Diagnostics of one coupled step.
struct SplashStats {
    rigid::StepStats rigid;
    wave::StepStats water;
    double couplingMs = 0.0;  ///< both sampling passes, forces, sources
    double totalMs = 0.0;
    float submergedVolume = 0.0f;  ///< m^3, all bodies, before the step
    double waterVolume = 0.0;      ///< W^n, m^3
    double volumeDriftRel = 0.0;   ///< (W^n - W0) / W0
    /// The uniform correction added this step (on the GPU: the previous step's, which comes
    /// back with this step's forces): (W0 - W) / (A_pool - A_wp), A_wp the waterplane of the
    /// partly submerged bodies (the shift's own effect on their submerged volume).
    double levelCorrectionM = 0.0;
    double sourceVolume = 0.0;  ///< |sum| of the local sources this step, m^3 (CPU only)
    /// The sources' balance (CPU only; NaN on the GPU): the bodies' motion changed their
    /// displaced volume under eta^n by sourceMotionM3; the heights gained sourceImbalanceM3
    /// more than that over the step (0 up to float sums and the CG's tolerance).
    double sourceMotionM3 = 0.0;
    double sourceImbalanceM3 = 0.0;
    /// |W0 - W| before the level correction less what explains it: the drift carried into the
    /// step and the partly submerged bodies' volume change under the surface's change (CPU
    /// only; NaN on the GPU), m^3. Above 0 only by float sums and the CG's tolerance.
    double correctionUnexplainedM3 = 0.0;
    /// The surface eta^n at the start of the step: lowest and highest height above rest, m.
    float etaMinM = 0.0f;
    float etaMaxM = 0.0f;
    /// The water's potential energy at the start of the step relative to the still pool
    /// without bodies: rho g [h^2 sum (d eta + eta^2 / 2) - sum_samples v y], J (the water
    /// occupies 0 <= y <= d + eta less the bodies' submerged volume).
    double waterPotentialJ = 0.0;
    /// The work the bodies did on the water this step: -dt sum (F . v + tau . omega) over the
    /// water's forces (buoyancy and drag) and the velocities after the LCP step, J.
    double workOnWaterJ = 0.0;
    /// Kinetic energy taken from the bodies this step for the potential energy their moved
    /// volume gained between its cell's level and its target's (chargeRadiation), J.
    double radiationJ = 0.0;
};

/// Where a body is relative to the water.
enum class Wetness { kDry, kFloating, kSubmerged };

class SplashWorld {
  public:
    /// Builds the water at rest around an empty world (add bodies, then call start()).
    static Result<SplashWorld> create(const SplashParams& params);
    SplashWorld(SplashWorld&&) noexcept;
    SplashWorld& operator=(SplashWorld&&) noexcept;
    ~SplashWorld();

    rigid::World& world() { return m_world; }
    const rigid::World& world() const { return m_world; }
    wave::WaveModel& water() { return *m_water; }
    const wave::WaveModel& water() const { return *m_water; }
    const SplashParams& params() const { return m_params; }

    /// Moves the water, the LCP and the coupling to `backend`, keeping the state. kGpu needs a
    /// current GL 4.3 context and `shaders` (which must outlive the world); on the GPU the
    /// heights stay in the water's buffers and only the per-body forces come back each step
    /// (docs/splash.md, "GPU path"). On failure nothing changes.
    Status setBackend(Backend backend, const gpu::ShaderLibrary* shaders);
    Backend backend() const { return m_water->backend(); }

    /// Records the water volume W0 with the bodies as they are now (call after adding them).
    void start();
    const SplashStats& step();
    const SplashStats& lastStats() const { return m_stats; }

    /// What the water did to each body in the last step (zero for bodies out of the water);
    /// buoyancyCentre and bodyVolume are filled on the CPU only.
    std::span<const BodyWater> lastForces() const { return m_forces; }

    /// The surface as the coupling sees it (CPU heights; on the GPU a download).
    WaterGrid grid() const;
    /// W = sum (d + eta) h^2 - displaced volume, m^3, for the current state.
    double waterVolume() const;
    double initialWaterVolume() const { return m_volume0; }
    /// Submerged volume of body i under the current surface, m^3.
    float submergedVolume(int i) const;
    Wetness wetness(int i) const;
    /// wetness() of every body, from one read of the heights.
    std::vector<Wetness> wetnessOfAll() const;

    std::string stateHash() const;

  private:
    SplashWorld() = default;
    /// step() on the GPU (splash_gpu.cpp).
    const SplashStats& stepGpu();
    /// Samples every dynamic body under `g`; fills m_samples / m_sampleStart, returns the
    /// total submerged volume.
    float sampleBodies(const WaterGrid& g);
    /// The water's volume W under `g`; samples the bodies (m_samples, the dry-body bound) and
    /// sets `submerged` to their submerged volume.
    double measureWater(const WaterGrid& g, float& submerged);
    /// Displacement per cell of the current samples into `field` (touched cells listed).
    void splatAll(const WaterGrid& g, std::vector<float>& field, std::vector<int>& touched);

    SplashParams m_params;
    rigid::World m_world{std::make_shared<exec::Executor>(1)};  ///< replaced by create()
    std::unique_ptr<wave::WaveModel> m_water;
    SplashStats m_stats;
    double m_volume0 = 0.0;
    /// The surface statistics measureWater() found: sum of eta^2, lowest eta.
    double m_etaSum = 0.0;
    double m_etaSumSq = 0.0;
    float m_etaMin = 0.0f;
    /// -dt sum (F . v + tau . omega) of m_forces with the bodies' velocities now, J.
    double workOnWater() const;
    /// The waterplane of the last sampling pass: sum of its samples' waterplane, m^2.
    double m_waterplaneM2 = 0.0;
    /// The highest eta of this step's surface (+inf: not known, every body is sampled).
    float m_surfaceMaxM = std::numeric_limits<float>::infinity();

    std::vector<SubmergedSample> m_samples;
    std::vector<int> m_sampleStart;  ///< per body, into m_samples (size bodies + 1)
    std::vector<std::vector<SubmergedSample>> m_chunkSamples;  ///< per chunk of bodies
    std::vector<float> m_bodySampled;      ///< per body: its submerged volume this pass
    std::vector<int> m_bodyLines;          ///< per body: its submerged samples this pass
    std::vector<float> m_before, m_after;  ///< displaced volume per cell, m^3
    std::vector<int> m_touchedBefore, m_touchedAfter;
    std::vector<char> m_mark;
    /// Where the volume moved in `cell` goes: walkOutOfFootprints from the body's centre
    /// `origin` to the sourceOffsetCells-th cell beyond every footprint (the pool's edge stops
    /// it).
    int outsideFootprint(const WaterGrid& g, int cell, GridPoint16 origin) const;

    std::vector<SubmergedSample> m_samplesBefore;
    std::vector<int> m_startBefore;
    std::vector<char> m_footprint;  ///< cells under any body, before or after the LCP step
    /// One cell's share of a body's moved volume and the cell it goes to (-1: it stays).
    struct MovedVolume {
        int cell = 0;
        int target = -1;
        float dv = 0.0f;
        int body = 0;
    };
    /// A worker's scratch for the moved volumes: one body's field at a time.
    struct MoveScratch {
        std::vector<float> field;
        std::vector<char> mark;
        std::vector<int> touched;
    };
    std::vector<std::vector<MovedVolume>> m_chunkMoves;  ///< per chunk of bodies, body order
    std::vector<MoveScratch> m_workerScratch;
    std::vector<double> m_radiation;  ///< per body: this step's radiation energy, J
    std::vector<double> m_source;
    std::vector<char> m_sourceMark;
    std::vector<int> m_cells;
    std::vector<float> m_delta;

    /// Spreads the volumes m_source holds at m_cells by the separable Gaussian of
    /// sourceSpreadM (an x pass into m_spread, then a y pass back into m_source); m_cells lists
    /// the cells that receive volume afterwards. Each 1-D pass is normalised by the weights
    /// that fall inside the pool, so the total is kept.
    void spreadSources(const WaterGrid& g);
    std::vector<float> m_spreadWeights;                ///< w[d], d = 0 .. radius (symmetric)
    std::vector<double> m_spreadNormX, m_spreadNormY;  ///< in-pool weight sums per index
    std::vector<double> m_spread;
    std::vector<char> m_spreadMark;
    std::vector<int> m_spreadCells;
    std::vector<int> m_stayCells;  ///< negligible volumes, kept in their own cell
    std::vector<double> m_stayVolumes;

    std::vector<BodyWater> m_forces;   ///< per body, the last step's
    std::unique_ptr<SplashGpu> m_gpu;  ///< the coupling's kernels and buffers on the GPU
    mutable std::vector<float> m_hostEta, m_hostEtaPrev;  ///< grid()'s download on the GPU
};

}  // namespace ww::splash
