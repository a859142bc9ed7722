// The water surface's time stepping on the CPU and the GPU (see wave_model.h).
#include "solver/wave/wave_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solver/cg/cg_gpu.h"
#include "solver/core/hash.h"
#include "solver/core/timer.h"
#include "solver/gpu/gpu_context.h"

namespace ww::wave {

namespace {

constexpr std::size_t kMaxImpulsesPerStep = 256;

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Uniform in [0, 1) from the top 24 bits: the same sequence on every platform.
float uniform01(std::uint64_t& s) {
    return static_cast<float>(splitmix(s) >> 40) * 0x1.0p-24f;
}

cg::StencilOperator stencilFor(const WaveParams& p) {
    const float h = p.cellSize();
    const float dt = p.dt();
    const float a = p.waveSpeed * p.waveSpeed * dt * dt / (4.0f * h * h);
    const float g = 0.5f * p.damping * dt;
    return {p.nx, p.ny, a / (1.0f + g), p.boundary};
}

}  // namespace

struct WaveModel::Gpu {
    cg::GpuOperator op;
    cg::GpuCgSolver cg;
    gpu::Program rhs;
    gpu::Program explicitStep;
    gpu::Program disturb;
    gpu::Program retime;
    std::array<gpu::Buffer, 3> u;
    gpu::Buffer rhsBuffer;
    gpu::Buffer impulses;
    gpu::TimerQuery timer;

    static Result<std::unique_ptr<Gpu>> create(const WaveParams& params,
                                               const cg::StencilOperator& stencil,
                                               const gpu::ShaderLibrary& library) {
        auto g = std::make_unique<Gpu>();
        g->op = cg::GpuOperator::fromStencil(stencil);
        auto solver = cg::GpuCgSolver::create(library, g->op);
        if (!solver) {
            return solver.error();
        }
        g->cg = std::move(solver).value();
        const char* files[] = {"wave_rhs.comp", "wave_explicit.comp", "wave_disturb.comp",
                               "wave_retime.comp"};
        gpu::Program* programs[] = {&g->rhs, &g->explicitStep, &g->disturb, &g->retime};
        for (int k = 0; k < 4; ++k) {
            auto p = library.build(gpu::ProgramSpec::computeStage(files[k]));
            if (!p) {
                return p.error();
            }
            *programs[k] = std::move(p).value();
        }
        const std::size_t bytes = static_cast<std::size_t>(params.nx) * params.ny * sizeof(float);
        for (auto& b : g->u) {
            auto buf = gpu::Buffer::create(bytes, nullptr, "wave heights");
            if (!buf) {
                return buf.error();
            }
            b = std::move(buf).value();
        }
        auto rhs = gpu::Buffer::create(bytes, nullptr, "wave rhs");
        auto imp =
            gpu::Buffer::create(kMaxImpulsesPerStep * sizeof(Impulse), nullptr, "wave impulses");
        if (!rhs) {
            return rhs.error();
        }
        if (!imp) {
            return imp.error();
        }
        g->rhsBuffer = std::move(rhs).value();
        g->impulses = std::move(imp).value();
        return g;
    }

    void setGrid(const gpu::Program& p, const GridCoeffs& k) const {
        p.use();
        p.set("uNx", k.nx);
        p.set("uNy", k.ny);
        p.set("uNeumannX", k.neumannX ? 1 : 0);
        p.set("uNeumannY", k.neumannY ? 1 : 0);
        p.set("uA", k.a);
        p.set("uG", k.g);
    }
};

WaveModel::WaveModel(WaveModel&&) noexcept = default;
WaveModel& WaveModel::operator=(WaveModel&&) noexcept = default;
WaveModel::~WaveModel() = default;

Result<WaveModel> WaveModel::create(const WaveParams& params, Backend backend,
                                    const gpu::ShaderLibrary* library,
                                    std::shared_ptr<const exec::Executor> executor) {
    if (Status st = params.validate(); !st) {
        return st.error();
    }
    WaveModel m;
    m.m_params = params;
    m.m_ex = std::move(executor);
    m.m_op = stencilFor(params);
    const std::size_t n = static_cast<std::size_t>(params.nx) * params.ny;
    for (auto& u : m.m_u) {
        u.assign(n, 0.0f);
    }
    m.m_rhs.assign(n, 0.0f);
    m.m_cpuCg = cg::CpuCgSolver(m.m_ex, n);
    if (backend == Backend::kGpu) {
        if (Status st = m.setBackend(Backend::kGpu, library); !st) {
            return st.error();
        }
    }
    return m;
}

GridCoeffs WaveModel::coeffs() const {
    const float h = m_params.cellSize();
    const float dt = m_params.dt();
    GridCoeffs k{m_params.nx, m_params.ny,
                 m_params.waveSpeed * m_params.waveSpeed * dt * dt / (4.0f * h * h),
                 0.5f * m_params.damping * dt};
    setBoundary(k, m_params.boundary);
    return k;
}

Status WaveModel::setParams(const WaveParams& params) {
    if (Status st = params.validate(); !st) {
        return st;
    }
    if (params.nx != m_params.nx || params.ny != m_params.ny) {
        return inputError("wave: setParams cannot change the grid size; create a new model");
    }
    Retime r;
    r.from = coeffs();
    r.fromCn = m_params.scheme == Scheme::kCrankNicolson;
    const float dtOld = m_params.dt();
    m_params = params;
    m_op = stencilFor(params);
    if (m_gpu) {
        m_gpu->op = cg::GpuOperator::fromStencil(m_op);
    }
    r.to = coeffs();
    r.toCn = params.scheme == Scheme::kCrankNicolson;
    r.dtRatio = params.dt() / dtOld;
    if (r.dtRatio != 1.0f || r.from.g != r.to.g || r.from.a != r.to.a || r.fromCn != r.toCn) {
        retimeState(r);
    }
    return {};
}

void WaveModel::retimeState(Retime r) {
    r.from.neumannX = r.to.neumannX;  // one stencil for both relations
    r.from.neumannY = r.to.neumannY;
    // Heavy damping (gamma dt >= 1) makes the CN relation's system ill-conditioned or
    // indefinite: keep the mean velocity (u^n - u^n-1) / dt instead.
    const bool keepMeanVelocity = r.toCn && r.to.g >= 0.5f;
    const std::size_t cur = static_cast<std::size_t>(m_current);
    const std::size_t prev = static_cast<std::size_t>((m_current + 2) % 3);
    const std::size_t spare = static_cast<std::size_t>((m_current + 1) % 3);
    const cg::StencilOperator op(m_params.nx, m_params.ny, retimeAlpha(r), m_params.boundary);
    bool ok = true;
    if (!m_gpu) {
        float* u = m_u[cur].data();
        float* uPrev = m_u[prev].data();
        float* out = m_u[spare].data();
        if (keepMeanVelocity) {
            for (std::size_t c = 0; c < m_u[cur].size(); ++c) {
                out[c] = u[c] - r.dtRatio * (u[c] - uPrev[c]);
            }
        } else {
            retime(r, u, uPrev, r.toCn ? m_rhs.data() : out, out);
            if (r.toCn) {
                const cg::CgReport rep =
                    m_cpuCg.solve(op, std::span<const float>(m_rhs),
                                  std::span<float>(out, m_rhs.size()), m_params.cg);
                ok = rep.status != cg::CgStatus::kBreakdown;
            }
        }
        if (ok) {
            std::swap(m_u[prev], m_u[spare]);
        }
        return;
    }
    Gpu& g = *m_gpu;
    g.u[cur].bind(0);
    g.u[prev].bind(1);
    const bool solve = r.toCn && !keepMeanVelocity;
    (solve ? g.rhsBuffer : g.u[spare]).bind(2);
    g.u[spare].bind(3);
    g.setGrid(g.retime, r.from);
    // keepMeanVelocity: the explicit form with a' = 0, g' = 0 and dt v = u - uPrev.
    g.retime.set("uFromCn", keepMeanVelocity ? 1 : (r.fromCn ? 1 : 0));
    g.retime.set("uToCn", solve ? 1 : 0);
    g.retime.set("uToA", keepMeanVelocity ? 0.0f : r.to.a);
    g.retime.set("uToG", keepMeanVelocity ? 0.0f : r.to.g);
    g.retime.set("uDtRatio", r.dtRatio);
    if (keepMeanVelocity) {
        g.retime.set("uA", 0.0f);
        g.retime.set("uG", 0.0f);
    }
    const auto gx = gpu::groupsFor(static_cast<std::size_t>(r.to.nx), 16);
    const auto gy = gpu::groupsFor(static_cast<std::size_t>(r.to.ny), 16);
    (void)gpu::dispatch(g.retime, gx, gy);
    gpu::barrier();
    if (solve) {
        auto rep =
            g.cg.solve(cg::GpuOperator::fromStencil(op), g.rhsBuffer, g.u[spare], m_params.cg);
        ok = rep && rep->status != cg::CgStatus::kBreakdown;
    }
    if (ok) {
        std::swap(g.u[prev], g.u[spare]);
    }
}

void WaveModel::addDrop(float xNorm, float yNorm, float amplitude, float radiusM) {
    const float h = m_params.cellSize();
    m_pending.push_back({xNorm * static_cast<float>(m_params.nx) * h,
                         yNorm * static_cast<float>(m_params.ny) * h, amplitude, radiusM, 1u});
}

void WaveModel::setRain(bool on, float dropsPerSecond, std::uint64_t seed, float amplitude,
                        float radiusM) {
    m_rainOn = on;
    m_rainRate = dropsPerSecond;
    m_rng = seed;
    m_rainAmplitude = amplitude;
    m_rainRadius = radiusM;
}

void WaveModel::setWake(std::vector<PathPoint> path, float speedMps, float depthRate,
                        float radiusM) {
    m_wakePath = std::move(path);
    m_wakeSpeed = speedMps;
    m_wakeDepthRate = depthRate;
    m_wakeRadius = radiusM;
    m_wakeDistance = 0.0;
}

void WaveModel::collectImpulses(float dt) {
    m_impulses.clear();
    m_impulses.swap(m_pending);
    const float h = m_params.cellSize();
    const float width = static_cast<float>(m_params.nx) * h;
    const float height = static_cast<float>(m_params.ny) * h;
    if (m_rainOn && m_rainRate > 0.0f) {
        // Poisson(rate dt) drops by Knuth's product of uniforms.
        const float limit = std::exp(-m_rainRate * dt);
        float prod = uniform01(m_rng);
        while (prod > limit && m_impulses.size() < kMaxImpulsesPerStep) {
            const float x = uniform01(m_rng) * width;
            const float y = uniform01(m_rng) * height;
            m_impulses.push_back({x, y, m_rainAmplitude, m_rainRadius, 1u});
            prod *= uniform01(m_rng);
        }
    }
    if (m_wakePath.size() >= 2 && m_wakeSpeed > 0.0f) {
        double length = 0.0;
        const std::size_t count = m_wakePath.size();
        auto seg = [&](std::size_t k, float* x0, float* y0, float* dx, float* dy) {
            const PathPoint& a = m_wakePath[k];
            const PathPoint& b = m_wakePath[(k + 1) % count];
            *x0 = a.x * width;
            *y0 = a.y * height;
            *dx = (b.x - a.x) * width;
            *dy = (b.y - a.y) * height;
            return std::sqrt(*dx * *dx + *dy * *dy);
        };
        float x0, y0, dx, dy;
        for (std::size_t k = 0; k < count; ++k) {
            length += seg(k, &x0, &y0, &dx, &dy);
        }
        if (length > 0.0) {
            double s = std::fmod(m_wakeDistance, length);
            for (std::size_t k = 0; k < count; ++k) {
                const float l = seg(k, &x0, &y0, &dx, &dy);
                if (s <= l || k + 1 == count) {
                    const float t = l > 0.0f ? static_cast<float>(s) / l : 0.0f;
                    m_impulses.push_back(
                        {x0 + t * dx, y0 + t * dy, -m_wakeDepthRate * dt, m_wakeRadius, 0u});
                    break;
                }
                s -= l;
            }
            m_wakeDistance += double(m_wakeSpeed) * dt;
        }
    }
    if (m_impulses.size() > kMaxImpulsesPerStep) {
        m_impulses.resize(kMaxImpulsesPerStep);
    }
}

StepStats WaveModel::step() {
    Stopwatch total;
    collectImpulses(m_params.dt());
    StepStats stats = m_backend == Backend::kGpu ? stepGpu() : stepCpu();
    stats.drops = static_cast<int>(m_impulses.size());
    ++m_steps;
    m_time += m_params.dt();
    stats.energy = m_params.trackEnergy ? energy() : std::numeric_limits<double>::quiet_NaN();
    stats.totalMs = total.elapsedMs();
    return stats;
}

namespace {

void fillCgStats(StepStats& stats, const cg::CgReport& r) {
    stats.solveMs = r.solveMs;
    stats.cgIterations = r.iterations;
    stats.cgResidual = r.residual;
    stats.cgTrueResidual = r.trueResidual;
    stats.cgStatus = r.status;
    stats.cgHistory = r.history;
}

}  // namespace

void WaveModel::advanceUnlessBrokenDown(StepStats& stats) {
    if (stats.cgStatus != cg::CgStatus::kBreakdown) {
        m_current = (m_current + 1) % 3;
        return;
    }
    // A broken-down solve leaves u^n+1 unusable (possibly Inf/NaN): keep (u^n, u^n-1).
    if (stats.message.empty()) {
        stats.message = "CG broke down (p.Ap <= 0 or not finite: overflow or a non-SPD system)";
    }
    stats.message += "; kept the previous heights";
}

StepStats WaveModel::stepCpu() {
    StepStats stats;
    const GridCoeffs k = coeffs();
    float* u = m_u[static_cast<std::size_t>(m_current)].data();
    float* uPrev = m_u[static_cast<std::size_t>((m_current + 2) % 3)].data();
    float* uNext = m_u[static_cast<std::size_t>((m_current + 1) % 3)].data();
    Stopwatch clock;
    for (const Impulse& d : m_impulses) {
        applyImpulse(k, m_params.cellSize(), d, u, uPrev);
    }
    if (m_params.scheme == Scheme::kCrankNicolson) {
        cnRhs(*m_ex, k, u, uPrev, m_rhs.data(), uNext, m_params.warmStart);
        stats.rhsMs = clock.elapsedMs();
        const std::size_t n = m_rhs.size();
        const cg::CgReport r = m_cpuCg.solve(m_op, std::span<const float>(m_rhs),
                                             std::span<float>(uNext, n), m_params.cg);
        fillCgStats(stats, r);
    } else {
        stats.rhsMs = clock.elapsedMs();
        clock.restart();
        explicitStep(*m_ex, k, u, uPrev, uNext);
        stats.solveMs = clock.elapsedMs();
    }
    advanceUnlessBrokenDown(stats);
    return stats;
}

StepStats WaveModel::stepGpu() {
    StepStats stats;
    Gpu& g = *m_gpu;
    const GridCoeffs k = coeffs();
    gpu::Buffer& u = g.u[static_cast<std::size_t>(m_current)];
    gpu::Buffer& uPrev = g.u[static_cast<std::size_t>((m_current + 2) % 3)];
    gpu::Buffer& uNext = g.u[static_cast<std::size_t>((m_current + 1) % 3)];
    const auto gx = gpu::groupsFor(static_cast<std::size_t>(k.nx), 16);
    const auto gy = gpu::groupsFor(static_cast<std::size_t>(k.ny), 16);
    Stopwatch clock;
    g.timer.begin();
    u.bind(0);
    uPrev.bind(1);
    if (!m_impulses.empty()) {
        g.impulses.upload(std::span<const Impulse>(m_impulses));
        g.impulses.bind(4);
        g.setGrid(g.disturb, k);
        g.disturb.set("uImpulseCount", static_cast<int>(m_impulses.size()));
        g.disturb.set("uCellSize", m_params.cellSize());
        (void)gpu::dispatch(g.disturb, gx, gy);
        gpu::barrier();
    }
    if (m_params.scheme == Scheme::kCrankNicolson) {
        g.rhsBuffer.bind(2);
        uNext.bind(3);
        g.setGrid(g.rhs, k);
        g.rhs.set("uWarmStart", m_params.warmStart ? 1 : 0);
        (void)gpu::dispatch(g.rhs, gx, gy);
        gpu::barrier();
        g.timer.end();
        stats.rhsMs = g.timer.elapsedMs();
        auto r = g.cg.solve(g.op, g.rhsBuffer, uNext, m_params.cg);
        if (r) {
            fillCgStats(stats, r.value());
        } else {
            stats.cgStatus = cg::CgStatus::kBreakdown;
            stats.message = "GPU CG failed: " + r.error().message;
        }
    } else {
        g.timer.end();
        stats.rhsMs = m_impulses.empty() ? 0.0 : g.timer.elapsedMs();
        clock.restart();
        uNext.bind(2);
        g.setGrid(g.explicitStep, k);
        (void)gpu::dispatch(g.explicitStep, gx, gy);
        gpu::barrier();
        // Synchronize so the phase time is real (a 4-byte read waits for the dispatch).
        float probe = 0.0f;
        uNext.download(&probe, sizeof probe);
        stats.solveMs = clock.elapsedMs();
    }
    advanceUnlessBrokenDown(stats);
    return stats;
}

void WaveModel::heightsPair(std::vector<float>& u, std::vector<float>& uPrev) const {
    const std::size_t cur = static_cast<std::size_t>(m_current);
    const std::size_t prev = static_cast<std::size_t>((m_current + 2) % 3);
    if (m_gpu) {
        const std::size_t n = m_u[0].size();
        u = m_gpu->u[cur].download<float>(n);
        uPrev = m_gpu->u[prev].download<float>(n);
    } else {
        u = m_u[cur];
        uPrev = m_u[prev];
    }
}

double WaveModel::energy() const {
    if (m_gpu) {
        std::vector<float> u, uPrev;
        heightsPair(u, uPrev);
        return wave::energy(coeffs(), m_params.scheme == Scheme::kCrankNicolson,
                            m_params.cellSize(), m_params.waveSpeed, m_params.dt(), u.data(),
                            uPrev.data());
    }
    return wave::energy(coeffs(), m_params.scheme == Scheme::kCrankNicolson, m_params.cellSize(),
                        m_params.waveSpeed, m_params.dt(),
                        m_u[static_cast<std::size_t>(m_current)].data(),
                        m_u[static_cast<std::size_t>((m_current + 2) % 3)].data());
}

std::vector<float> WaveModel::heights() const {
    if (m_gpu) {
        return m_gpu->u[static_cast<std::size_t>(m_current)].download<float>(m_u[0].size());
    }
    return m_u[static_cast<std::size_t>(m_current)];
}

std::span<const float> WaveModel::cpuHeights() const {
    if (m_gpu) {
        return {};
    }
    return m_u[static_cast<std::size_t>(m_current)];
}

std::span<const float> WaveModel::cpuPreviousHeights() const {
    if (m_gpu) {
        return {};
    }
    return m_u[static_cast<std::size_t>((m_current + 2) % 3)];
}

void WaveModel::addAtRest(std::span<const int> cells, std::span<const float> deltaM,
                          float uniformM) {
    const auto apply = [&](std::vector<float>& u, std::vector<float>& uPrev) {
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
    };
    if (m_gpu) {
        std::vector<float> u, uPrev;
        heightsPair(u, uPrev);
        apply(u, uPrev);
        (void)setState(u, uPrev);  // sizes match by construction
        return;
    }
    apply(m_u[static_cast<std::size_t>(m_current)],
          m_u[static_cast<std::size_t>((m_current + 2) % 3)]);
}

unsigned WaveModel::heightBufferHandle() const {
    return m_gpu ? m_gpu->u[static_cast<std::size_t>(m_current)].handle() : 0u;
}

Status WaveModel::setState(const std::vector<float>& u, const std::vector<float>& uPrev) {
    const std::size_t n = m_u[0].size();
    if (u.size() != n || uPrev.size() != n) {
        return inputError("wave: setState needs " + std::to_string(n) + " heights per level");
    }
    m_current = 0;
    m_u[0] = u;
    m_u[2] = uPrev;
    if (m_gpu) {
        m_gpu->u[0].upload(std::span<const float>(u));
        m_gpu->u[2].upload(std::span<const float>(uPrev));
        gpu::barrier();
    }
    return {};
}

WaveModel::State WaveModel::saveState() const {
    State s;
    heightsPair(s.u, s.uPrev);
    s.pending = m_pending;
    s.rainOn = m_rainOn;
    s.rainRate = m_rainRate;
    s.rainAmplitude = m_rainAmplitude;
    s.rainRadius = m_rainRadius;
    s.rng = m_rng;
    s.wakePath = m_wakePath;
    s.wakeSpeed = m_wakeSpeed;
    s.wakeDepthRate = m_wakeDepthRate;
    s.wakeRadius = m_wakeRadius;
    s.wakeDistance = m_wakeDistance;
    s.steps = m_steps;
    s.time = m_time;
    return s;
}

Status WaveModel::restoreState(const State& s) {
    if (Status ok = setState(s.u, s.uPrev); !ok) {
        return ok;
    }
    m_pending = s.pending;
    m_rainOn = s.rainOn;
    m_rainRate = s.rainRate;
    m_rainAmplitude = s.rainAmplitude;
    m_rainRadius = s.rainRadius;
    m_rng = s.rng;
    m_wakePath = s.wakePath;
    m_wakeSpeed = s.wakeSpeed;
    m_wakeDepthRate = s.wakeDepthRate;
    m_wakeRadius = s.wakeRadius;
    m_wakeDistance = s.wakeDistance;
    m_steps = s.steps;
    m_time = s.time;
    return {};
}

Status WaveModel::setBackend(Backend backend, const gpu::ShaderLibrary* library) {
    if (backend == m_backend && (backend == Backend::kCpu || m_gpu)) {
        return {};
    }
    if (backend == Backend::kCpu) {
        std::vector<float> u, uPrev;
        heightsPair(u, uPrev);
        m_gpu.reset();
        m_backend = Backend::kCpu;
        return setState(u, uPrev);
    }
    if (library == nullptr || gpu::GpuContext::current() == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     "wave: the GPU backend needs a current GL 4.3 context and a shader library"};
    }
    auto g = Gpu::create(m_params, m_op, *library);
    if (!g) {
        return g.error();
    }
    std::vector<float> u, uPrev;
    heightsPair(u, uPrev);
    m_gpu = std::move(g).value();
    m_backend = Backend::kGpu;
    return setState(u, uPrev);
}

std::string WaveModel::stateHash() const {
    std::vector<float> u, uPrev;
    heightsPair(u, uPrev);
    StateHash h;
    h.add(std::span<const float>(u));
    h.add(std::span<const float>(uPrev));
    return h.hex();
}

}  // namespace ww::wave
