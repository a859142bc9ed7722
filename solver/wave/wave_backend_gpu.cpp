// The wave model's GPU backend (see wave_backend.h): heights in GL buffers, one compute
// kernel per stage (shaders/wave_*.comp), CN solves through a GPU cg::CgSolver on the
// buffers themselves (no readback inside a step).
#include <array>
#include <utility>

#include "solver/cg/cg_gpu.h"
#include "solver/cg/cg_solver.h"
#include "solver/core/timer.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/gpu_context.h"
#include "solver/gpu/shader_library.h"
#include "solver/wave/wave_backend.h"

namespace ww::wave {

namespace {

class GpuWaveBackend final : public WaveBackend {
  public:
    static Result<std::unique_ptr<WaveBackend>> create(const WaveParams& params,
                                                       const cg::StencilOperator& system,
                                                       const gpu::ShaderLibrary& library) {
        auto g = std::unique_ptr<GpuWaveBackend>(new GpuWaveBackend());
        g->m_cells = static_cast<std::size_t>(params.nx) * static_cast<std::size_t>(params.ny);
        auto solver = cg::makeGpuCgSolver(library);
        if (!solver) {
            return solver.error();
        }
        g->m_cg = std::move(solver).value();
        if (Status st = g->m_cg->prepare(cg::GpuOperator::fromStencil(system)); !st) {
            return st.error();
        }
        const char* files[] = {"wave_rhs.comp", "wave_sweep.comp", "wave_explicit.comp",
                               "wave_disturb.comp", "wave_retime.comp"};
        gpu::Program* programs[] = {&g->m_rhsProgram, &g->m_sweep, &g->m_explicit, &g->m_disturb,
                                    &g->m_retime};
        for (int k = 0; k < 5; ++k) {
            auto p = library.build(gpu::ProgramSpec::computeStage(files[k]));
            if (!p) {
                return p.error();
            }
            *programs[k] = std::move(p).value();
        }
        const std::size_t bytes = g->m_cells * sizeof(float);
        for (auto& b : g->m_u) {
            auto buf = gpu::Buffer::create(bytes, nullptr, "wave heights");
            if (!buf) {
                return buf.error();
            }
            b = std::move(buf).value();
        }
        auto rhs = gpu::Buffer::create(bytes, nullptr, "wave rhs");
        auto firstSweep = gpu::Buffer::create(bytes, nullptr, "wave warm start, first sweep");
        if (!firstSweep) {
            return firstSweep.error();
        }
        g->m_firstSweep = std::move(firstSweep).value();
        auto imp =
            gpu::Buffer::create(kMaxImpulsesPerStep * sizeof(Impulse), nullptr, "wave impulses");
        if (!rhs) {
            return rhs.error();
        }
        if (!imp) {
            return imp.error();
        }
        g->m_rhs = std::move(rhs).value();
        g->m_impulses = std::move(imp).value();
        return std::unique_ptr<WaveBackend>(std::move(g));
    }

    Backend kind() const override { return Backend::kGpu; }

    StepStats step(const StepInput& in) override {
        StepStats stats;
        const GridCoeffs& k = in.coeffs;
        gpu::Buffer& u = current();
        gpu::Buffer& uPrev = previous();
        gpu::Buffer& uNext = spare();
        const auto gx = gpu::groupsFor(static_cast<std::size_t>(k.nx), 16);
        const auto gy = gpu::groupsFor(static_cast<std::size_t>(k.ny), 16);
        Stopwatch clock;
        m_timer.begin();
        u.bind(0);
        uPrev.bind(1);
        if (!in.impulses.empty()) {
            m_impulses.upload(in.impulses);
            m_impulses.bind(4);
            setGrid(m_disturb, k);
            m_disturb.set("uImpulseCount", static_cast<int>(in.impulses.size()));
            m_disturb.set("uCellSize", in.params.cellSize());
            (void)gpu::dispatch(m_disturb, gx, gy);
            gpu::barrier();
        }
        bool solved = true;
        if (in.params.scheme == Scheme::kCrankNicolson) {
            m_rhs.bind(2);
            // The warm start: the first sweep into its own buffer, the second into uNext (or,
            // without a warm start, zeros into uNext at once).
            (in.params.warmStart ? m_firstSweep : uNext).bind(3);
            setGrid(m_rhsProgram, k);
            m_rhsProgram.set("uWarmStart", in.params.warmStart ? 1 : 0);
            (void)gpu::dispatch(m_rhsProgram, gx, gy);
            gpu::barrier();
            if (in.params.warmStart) {
                uNext.bind(5);
                setGrid(m_sweep, k);
                (void)gpu::dispatch(m_sweep, gx, gy);
                gpu::barrier();
            }
            m_timer.end();
            stats.rhsMs = m_timer.elapsedMs();
            solved = recordSolve(stats, m_cg->solve(cg::GpuOperator::fromStencil(in.system), m_rhs,
                                                    uNext, in.params.cg));
        } else {
            m_timer.end();
            stats.rhsMs = in.impulses.empty() ? 0.0 : m_timer.elapsedMs();
            clock.restart();
            uNext.bind(2);
            setGrid(m_explicit, k);
            (void)gpu::dispatch(m_explicit, gx, gy);
            gpu::barrier();
            // Synchronize so the phase time is real (a 4-byte read waits for the dispatch).
            float probe = 0.0f;
            uNext.download(&probe, sizeof probe);
            stats.solveMs = clock.elapsedMs();
        }
        if (solved) {
            m_ring.rotate();
        }
        return stats;
    }

    void retime(const Retime& r, const WaveParams& params) override {
        const bool keepMeanVelocity = retimeKeepsMeanVelocity(r);
        const cg::StencilOperator op(params.nx, params.ny, retimeAlpha(r), params.boundary);
        current().bind(0);
        previous().bind(1);
        const bool solve = r.toCn && !keepMeanVelocity;
        (solve ? m_rhs : spare()).bind(2);
        spare().bind(3);
        setGrid(m_retime, r.from);
        // keepMeanVelocity: the explicit form with a' = 0, g' = 0 and dt v = u - uPrev.
        m_retime.set("uFromCn", keepMeanVelocity ? 1 : (r.fromCn ? 1 : 0));
        m_retime.set("uToCn", solve ? 1 : 0);
        m_retime.set("uToA", keepMeanVelocity ? 0.0f : r.to.a);
        m_retime.set("uToG", keepMeanVelocity ? 0.0f : r.to.g);
        m_retime.set("uDtRatio", r.dtRatio);
        if (keepMeanVelocity) {
            m_retime.set("uA", 0.0f);
            m_retime.set("uG", 0.0f);
        }
        const auto gx = gpu::groupsFor(static_cast<std::size_t>(r.to.nx), 16);
        const auto gy = gpu::groupsFor(static_cast<std::size_t>(r.to.ny), 16);
        (void)gpu::dispatch(m_retime, gx, gy);
        gpu::barrier();
        bool ok = true;
        if (solve) {
            ok = m_cg->solve(cg::GpuOperator::fromStencil(op), m_rhs, spare(), params.cg).ok();
        }
        if (ok) {
            std::swap(previous(), spare());
        }
    }

    void download(std::vector<float>& u, std::vector<float>& uPrev) const override {
        u = current().download<float>(m_cells);
        uPrev = previous().download<float>(m_cells);
    }
    std::vector<float> heights() const override { return current().download<float>(m_cells); }
    void upload(std::span<const float> u, std::span<const float> uPrev) override {
        m_ring = {};
        m_u[0].upload(u);
        m_u[2].upload(uPrev);
        gpu::barrier();
    }
    void addAtRest(std::span<const int> cells, std::span<const float> deltaM,
                   float uniformM) override {
        std::vector<float> u, uPrev;
        download(u, uPrev);
        addAtRestTo(u, uPrev, cells, deltaM, uniformM);
        upload(u, uPrev);
    }
    unsigned heightBufferHandle() const override { return current().handle(); }
    unsigned previousHeightBufferHandle() const override { return previous().handle(); }

  private:
    GpuWaveBackend() = default;

    void setGrid(const gpu::Program& p, const GridCoeffs& k) const {
        p.use();
        p.set("uNx", k.nx);
        p.set("uNy", k.ny);
        p.set("uNeumannX", k.neumannX ? 1 : 0);
        p.set("uNeumannY", k.neumannY ? 1 : 0);
        p.set("uA", k.a);
        p.set("uG", k.g);
    }
    gpu::Buffer& current() { return m_u[m_ring.now()]; }
    gpu::Buffer& previous() { return m_u[m_ring.previous()]; }
    gpu::Buffer& spare() { return m_u[m_ring.next()]; }
    const gpu::Buffer& current() const { return m_u[m_ring.now()]; }
    const gpu::Buffer& previous() const { return m_u[m_ring.previous()]; }

    std::size_t m_cells = 0;
    std::unique_ptr<cg::GpuCgBackend> m_cg;
    gpu::Program m_rhsProgram;
    gpu::Program m_sweep;
    gpu::Program m_explicit;
    gpu::Program m_disturb;
    gpu::Program m_retime;
    std::array<gpu::Buffer, 3> m_u;
    HeightRing m_ring;
    gpu::Buffer m_rhs;
    gpu::Buffer m_firstSweep;  ///< the warm start's first sweep (wave_sweep.comp reads it)
    gpu::Buffer m_impulses;
    gpu::TimerQuery m_timer;
};

}  // namespace

Result<std::unique_ptr<WaveBackend>> makeGpuWaveBackend(const WaveParams& params,
                                                        const cg::StencilOperator& system,
                                                        const gpu::ShaderLibrary& library) {
    if (gpu::GpuContext::current() == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     "wave: the GPU backend needs a current GL 4.3 context"};
    }
    return GpuWaveBackend::create(params, system, library);
}

}  // namespace ww::wave
