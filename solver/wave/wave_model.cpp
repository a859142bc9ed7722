// The water surface: parameters, disturbances and the backend that holds the heights (see
// wave_model.h and wave_backend.h).
#include "solver/wave/wave_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solver/core/hash.h"
#include "solver/core/timer.h"
#include "solver/exec/float_mode.h"
#include "solver/gpu/gpu_context.h"

namespace ww::wave {

namespace {

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
    m.m_impl = makeCpuWaveBackend(m.cells(), m.m_ex);
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
    r.to = coeffs();
    r.toCn = params.scheme == Scheme::kCrankNicolson;
    r.dtRatio = params.dt() / dtOld;
    if (r.dtRatio != 1.0f || r.from.g != r.to.g || r.from.a != r.to.a || r.fromCn != r.toCn) {
        r.from.neumannX = r.to.neumannX;  // one stencil for both relations
        r.from.neumannY = r.to.neumannY;
        const exec::FlushSubnormals flush;
        m_impl->retime(r, m_params);
    }
    return {};
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
    const float h = m_params.cellSize();
    const float width = static_cast<float>(m_params.nx) * h;
    const float height = static_cast<float>(m_params.ny) * h;
    addWakeImpulses(dt, width, height);  // first: the step's cap never cuts one of its pair
    m_impulses.insert(m_impulses.end(), m_pending.begin(), m_pending.end());
    m_pending.clear();
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
    if (m_impulses.size() > kMaxImpulsesPerStep) {
        m_impulses.resize(kMaxImpulsesPerStep);
    }
}

void WaveModel::addWakeImpulses(float dt, float width, float height) {
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
                    const float x = x0 + t * dx;
                    const float y = y0 + t * dy;
                    // The source pushes a trough down and lifts a ridge twice as wide by the
                    // same volume: it moves water, it does not remove it. A trough alone adds a
                    // mean velocity every step, which a closed pool (the mean mode's double root
                    // at 1: docs/wave.md) turns into a level that falls without end.
                    const float depth = -m_wakeDepthRate * dt;
                    m_impulses.push_back({x, y, depth, m_wakeRadius, 0u});
                    const float h = m_params.cellSize();
                    const double ridgeVolume = impulseVolume(m_params.nx, m_params.ny, h,
                                                             {x, y, 1.0f, 2.0f * m_wakeRadius, 0u});
                    if (ridgeVolume > 0.0) {
                        const double troughVolume = impulseVolume(m_params.nx, m_params.ny, h,
                                                                  {x, y, 1.0f, m_wakeRadius, 0u});
                        m_impulses.push_back(
                            {x, y, static_cast<float>(-depth * troughVolume / ridgeVolume),
                             2.0f * m_wakeRadius, 0u});
                    }
                    break;
                }
                s -= l;
            }
            m_wakeDistance += double(m_wakeSpeed) * dt;
        }
    }
}

StepStats WaveModel::step() {
    const exec::FlushSubnormals flush;  // the implicit solution's tails (float_mode.h)
    Stopwatch total;
    collectImpulses(m_params.dt());
    const GridCoeffs k = coeffs();
    StepStats stats = m_impl->step({m_params, k, m_op, m_impulses});
    stats.drops = static_cast<int>(m_impulses.size());
    ++m_steps;
    m_time += m_params.dt();
    stats.energy = m_params.trackEnergy ? energy() : std::numeric_limits<double>::quiet_NaN();
    stats.totalMs = total.elapsedMs();
    return stats;
}

void WaveModel::heightsPair(std::vector<float>& u, std::vector<float>& uPrev) const {
    m_impl->download(u, uPrev);
}

double WaveModel::energy() const {
    std::span<const float> u = m_impl->hostHeights();
    std::span<const float> uPrev = m_impl->hostPreviousHeights();
    std::vector<float> copyU, copyPrev;
    if (u.empty()) {
        m_impl->download(copyU, copyPrev);
        u = copyU;
        uPrev = copyPrev;
    }
    return wave::energy(*m_ex, coeffs(), m_params.scheme == Scheme::kCrankNicolson,
                        m_params.cellSize(), m_params.waveSpeed, m_params.dt(), u.data(),
                        uPrev.data());
}

std::vector<float> WaveModel::heights() const {
    return m_impl->heights();
}

std::span<const float> WaveModel::cpuHeights() const {
    return m_impl->hostHeights();
}

std::span<const float> WaveModel::cpuPreviousHeights() const {
    return m_impl->hostPreviousHeights();
}

void WaveModel::addAtRest(std::span<const int> cells, std::span<const float> deltaM,
                          float uniformM) {
    m_impl->addAtRest(cells, deltaM, uniformM);
}

unsigned WaveModel::heightBufferHandle() const {
    return m_impl->heightBufferHandle();
}

unsigned WaveModel::previousHeightBufferHandle() const {
    return m_impl->previousHeightBufferHandle();
}

Status WaveModel::setState(const std::vector<float>& u, const std::vector<float>& uPrev) {
    const std::size_t n = cells();
    if (u.size() != n || uPrev.size() != n) {
        return inputError("wave: setState needs " + std::to_string(n) + " heights per level");
    }
    m_impl->upload(u, uPrev);
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
    if (m_impl && backend == m_impl->kind()) {
        return {};
    }
    std::unique_ptr<WaveBackend> next;
    if (backend == Backend::kCpu) {
        next = makeCpuWaveBackend(cells(), m_ex);
    } else {
        if (library == nullptr || gpu::GpuContext::current() == nullptr) {
            return Error{ErrorKind::kGpuUnavailable,
                         "wave: the GPU backend needs a current GL "
                         "4.3 context and a shader library"};
        }
        auto made = makeGpuWaveBackend(m_params, m_op, *library);
        if (!made) {
            return made.error();
        }
        next = std::move(made).value();
    }
    std::vector<float> u, uPrev;
    m_impl->download(u, uPrev);
    next->upload(u, uPrev);
    m_impl = std::move(next);
    return {};
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
