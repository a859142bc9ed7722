// The wave model's CPU backend (see wave_backend.h): heights in host vectors, kernels on the
// executor, CN solves through a CPU cg::CgSolver.
#include <array>
#include <utility>

#include "solver/cg/cg_solver.h"
#include "solver/core/timer.h"
#include "solver/wave/wave_backend.h"

namespace ww::wave {

namespace {

class CpuWaveBackend final : public WaveBackend {
  public:
    CpuWaveBackend(std::size_t cells, std::shared_ptr<const exec::Executor> executor)
        : m_ex(std::move(executor)), m_cg(cg::makeCpuCgSolver(m_ex)) {
        for (auto& u : m_u) {
            u.assign(cells, 0.0f);
        }
        m_rhs.assign(cells, 0.0f);
    }
    Backend kind() const override { return Backend::kCpu; }

    StepStats step(const StepInput& in) override {
        StepStats stats;
        const GridCoeffs& k = in.coeffs;
        float* u = current().data();
        float* uPrev = previous().data();
        float* uNext = spare().data();
        Stopwatch clock;
        for (const Impulse& d : in.impulses) {
            applyImpulse(k, in.params.cellSize(), d, u, uPrev);
        }
        bool solved = true;
        if (in.params.scheme == Scheme::kCrankNicolson) {
            cnRhs(*m_ex, k, u, uPrev, m_rhs.data(), uNext, in.params.warmStart);
            stats.rhsMs = clock.elapsedMs();
            solved = recordSolve(stats,
                                 m_cg->solve(in.system, std::span<const float>(m_rhs),
                                             std::span<float>(uNext, m_rhs.size()), in.params.cg));
        } else {
            stats.rhsMs = clock.elapsedMs();
            clock.restart();
            explicitStep(*m_ex, k, u, uPrev, uNext);
            stats.solveMs = clock.elapsedMs();
        }
        if (solved) {
            m_ring.rotate();
        }
        return stats;
    }

    void retime(const Retime& r, const WaveParams& params) override {
        const bool keepMeanVelocity = retimeKeepsMeanVelocity(r);
        const float* u = current().data();
        const float* uPrev = previous().data();
        float* out = spare().data();
        bool ok = true;
        if (keepMeanVelocity) {
            for (std::size_t c = 0; c < m_rhs.size(); ++c) {
                out[c] = u[c] - r.dtRatio * (u[c] - uPrev[c]);
            }
        } else {
            wave::retime(r, u, uPrev, r.toCn ? m_rhs.data() : out, out);
            if (r.toCn) {
                const cg::StencilOperator op(params.nx, params.ny, retimeAlpha(r), params.boundary);
                ok = m_cg->solve(op, std::span<const float>(m_rhs),
                                 std::span<float>(out, m_rhs.size()), params.cg)
                         .ok();
            }
        }
        if (ok) {
            std::swap(previous(), spare());
        }
    }

    void download(std::vector<float>& u, std::vector<float>& uPrev) const override {
        u = current();
        uPrev = previous();
    }
    std::vector<float> heights() const override { return current(); }
    void upload(std::span<const float> u, std::span<const float> uPrev) override {
        m_ring = {};
        m_u[0].assign(u.begin(), u.end());
        m_u[2].assign(uPrev.begin(), uPrev.end());
    }
    void addAtRest(std::span<const int> cells, std::span<const float> deltaM,
                   float uniformM) override {
        addAtRestTo(current(), previous(), cells, deltaM, uniformM);
    }
    std::span<const float> hostHeights() const override { return current(); }
    std::span<const float> hostPreviousHeights() const override { return previous(); }

  private:
    std::vector<float>& current() { return m_u[m_ring.now()]; }
    std::vector<float>& previous() { return m_u[m_ring.previous()]; }
    std::vector<float>& spare() { return m_u[m_ring.next()]; }
    const std::vector<float>& current() const { return m_u[m_ring.now()]; }
    const std::vector<float>& previous() const { return m_u[m_ring.previous()]; }

    std::shared_ptr<const exec::Executor> m_ex;
    std::unique_ptr<cg::CgSolver> m_cg;
    std::array<std::vector<float>, 3> m_u;
    HeightRing m_ring;
    std::vector<float> m_rhs;
};

}  // namespace

std::unique_ptr<WaveBackend> makeCpuWaveBackend(std::size_t cells,
                                                std::shared_ptr<const exec::Executor> executor) {
    return std::make_unique<CpuWaveBackend>(cells, std::move(executor));
}

}  // namespace ww::wave
