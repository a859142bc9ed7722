// The coupled step of the splash scene (see splash_world.h and docs/splash.md).
#include "solver/splash/splash_world.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solver/core/hash.h"
#include "solver/core/timer.h"
#include "solver/splash/splash_gpu.h"

namespace ww::splash {

using rigid::Vec3;

namespace {
// 2.5e-8 m^3: 0.02 mm of height on a 4 cm cell.
constexpr float kNegligibleVolumeM3 = 2.5e-8f;
// A body whose lowest point is this far above the highest water level has no submerged
// sample: 1 mm, far above the float rounding of the bilinear surface (~1e-7 m).
constexpr float kDryMarginM = 1.0e-3f;
// Bodies per chunk of the sampling pass (fixed, so results do not depend on the threads).
constexpr int kBodiesPerChunk = 8;
}  // namespace

Status SplashParams::validate() const {
    if (!(waterDepthM > 0.0f)) {
        return inputError("splash: the water depth must be > 0 m");
    }
    if (!(column.waterDensity > 0.0f) || column.linearDrag < 0.0f || column.quadraticDrag < 0.0f) {
        return inputError("splash: water density must be > 0 and drag coefficients >= 0");
    }
    if (!(column.lineSpacingCells > 0.0f) || column.minSamples < 1 ||
        column.maxSamples < column.minSamples) {
        return inputError(
            "splash: the sample lines' spacing must be > 0 cells and 1 <= "
            "minSamples <= maxSamples");
    }
    if (!(sourceSpreadM >= 0.0f) || !std::isfinite(sourceSpreadM)) {
        return inputError("splash: the source spread must be a finite length >= 0 m");
    }
    if (!(world.dtSeconds > 0.0f)) {
        return inputError("splash: dt must be > 0");
    }
    return wave.validate();
}

SplashWorld::SplashWorld(SplashWorld&&) noexcept = default;
SplashWorld& SplashWorld::operator=(SplashWorld&&) noexcept = default;
SplashWorld::~SplashWorld() = default;

Result<SplashWorld> SplashWorld::create(const SplashParams& params) {
    SplashParams p = params;
    p.column.gravity = length(p.world.gravity);
    p.wave.dtRatio = 0.0f;
    // The water's own energy is not conserved in the coupled scene (the bodies exchange energy
    // with it), and computing it is a pass over the grid per step: not tracked.
    p.wave.trackEnergy = false;
    p.wave.dtSeconds = p.world.dtSeconds;
    if (p.waveSpeed <= 0.0f) {
        p.waveSpeed = std::sqrt(p.column.gravity * p.waterDepthM);
    }
    p.wave.waveSpeed = p.waveSpeed;
    if (Status s = p.validate(); !s) {
        return s.error();
    }
    if (!p.executor) {
        p.executor = std::make_shared<exec::Executor>(1);
    }
    Result<wave::WaveModel> water =
        wave::WaveModel::create(p.wave, Backend::kCpu, nullptr, p.executor);
    if (!water) {
        return water.error();
    }
    SplashWorld w;
    w.m_params = p;
    w.m_world = rigid::World(p.executor, p.world);
    w.m_water = std::make_unique<wave::WaveModel>(std::move(water).value());
    const std::size_t cells = static_cast<std::size_t>(p.wave.nx) * p.wave.ny;
    w.m_before.assign(cells, 0.0f);
    w.m_after.assign(cells, 0.0f);
    w.m_mark.assign(cells, 0);
    w.m_footprint.assign(cells, 0);
    w.m_source.assign(cells, 0.0);
    w.m_sourceMark.assign(cells, 0);
    w.m_spread.assign(cells, 0.0);
    w.m_spreadMark.assign(cells, 0);
    // The Gaussian in cells, cut at two standard deviations (95 % of a 1-D Gaussian's weight
    // within the cut; the cut weights are renormalised by spreadSources).
    const float sigmaCells = p.sourceSpreadM / p.wave.cellSize();
    const int radius = static_cast<int>(std::ceil(2.0f * sigmaCells));
    w.m_spreadWeights.assign(static_cast<std::size_t>(radius) + 1, 1.0f);
    for (int d = 1; d <= radius; ++d) {
        const float r = static_cast<float>(d) / sigmaCells;
        w.m_spreadWeights[static_cast<std::size_t>(d)] = std::exp(-0.5f * r * r);
    }
    // The weights that fall inside the pool, per cell index along each axis.
    for (const auto& [norm, n] :
         {std::pair{&w.m_spreadNormX, p.wave.nx}, std::pair{&w.m_spreadNormY, p.wave.ny}}) {
        norm->assign(static_cast<std::size_t>(n), 0.0);
        for (int at = 0; at < n; ++at) {
            for (int d = std::max(-radius, -at); d <= std::min(radius, n - 1 - at); ++d) {
                (*norm)[static_cast<std::size_t>(at)] +=
                    w.m_spreadWeights[static_cast<std::size_t>(std::abs(d))];
            }
        }
    }
    return w;
}

WaterGrid SplashWorld::grid() const {
    WaterGrid g;
    g.nx = m_params.wave.nx;
    g.ny = m_params.wave.ny;
    g.cellM = m_params.wave.cellSize();
    g.restLevelM = m_params.waterDepthM;
    if (m_water->backend() == Backend::kGpu) {
        m_water->heightsPair(m_hostEta, m_hostEtaPrev);
        g.eta = m_hostEta;
        g.etaPrev = m_hostEtaPrev;
    } else {
        g.eta = m_water->cpuHeights();
        g.etaPrev = m_water->cpuPreviousHeights();
    }
    g.dtSeconds = m_params.wave.dt();
    return g;
}

void SplashWorld::start() {
    m_volume0 = waterVolume();
}

float SplashWorld::sampleBodies(const WaterGrid& g) {
    const int bodies = m_world.bodyCount();
    const float dryAbove = g.restLevelM + m_surfaceMaxM + kDryMarginM;
    // Fixed chunks of bodies, each sampled into its own list; the lists are joined in body
    // order and the volumes summed in body order, so the result does not depend on the
    // thread count (and equals a serial loop's).
    const int chunks = (bodies + kBodiesPerChunk - 1) / kBodiesPerChunk;
    if (static_cast<int>(m_chunkSamples.size()) < chunks) {
        m_chunkSamples.resize(static_cast<std::size_t>(chunks));
    }
    m_bodySampled.assign(static_cast<std::size_t>(bodies), 0.0f);
    m_bodyLines.assign(static_cast<std::size_t>(bodies), 0);
    int wet = 0;
    for (const rigid::Body& b : m_world.bodies()) {
        wet += !b.isStatic() && lowestPointY(b) <= dryAbove;
    }
    const auto chunk = [&](std::ptrdiff_t c) {
        std::vector<SubmergedSample>& out = m_chunkSamples[static_cast<std::size_t>(c)];
        out.clear();
        const int first = static_cast<int>(c) * kBodiesPerChunk;
        for (int i = first; i < std::min(bodies, first + kBodiesPerChunk); ++i) {
            const rigid::Body& b = m_world.bodies()[static_cast<std::size_t>(i)];
            // Bodies above the highest water (the upper rows of a standing wall) are skipped
            // without sampling: none of their lines reaches the surface.
            if (!b.isStatic() && lowestPointY(b) <= dryAbove) {
                const std::size_t before = out.size();
                m_bodySampled[static_cast<std::size_t>(i)] =
                    submergedSamples(b, g, m_params.column, out);
                m_bodyLines[static_cast<std::size_t>(i)] = static_cast<int>(out.size() - before);
            }
        }
    };
    // About 50 lines a wet body, ~100 operations each (two surface look-ups and the line).
    const std::ptrdiff_t work = static_cast<std::ptrdiff_t>(wet) * 50 * 100;
    m_params.executor->forEachChunk(
        chunks, [&](std::ptrdiff_t c, int) { chunk(c); }, work);
    m_samples.clear();
    m_sampleStart.assign(1, 0);
    float total = 0.0f;
    for (int c = 0; c < chunks; ++c) {
        const std::vector<SubmergedSample>& part = m_chunkSamples[static_cast<std::size_t>(c)];
        m_samples.insert(m_samples.end(), part.begin(), part.end());
    }
    for (int i = 0; i < bodies; ++i) {
        total += m_bodySampled[static_cast<std::size_t>(i)];
        m_sampleStart.push_back(m_sampleStart.back() + m_bodyLines[static_cast<std::size_t>(i)]);
    }
    m_waterplaneM2 = 0.0;
    for (const SubmergedSample& s : m_samples) {
        m_waterplaneM2 += static_cast<double>(s.waterplane);
    }
    return total;
}

void SplashWorld::splatAll(const WaterGrid& g, std::vector<float>& field,
                           std::vector<int>& touched) {
    touched.clear();
    splatVolume(g, m_samples, field, m_mark, touched);
    for (int c : touched) {
        m_mark[static_cast<std::size_t>(c)] = 0;
    }
}

double SplashWorld::waterVolume() const {
    const WaterGrid g = grid();
    double sum = 0.0;
    for (float e : g.eta) {
        sum += static_cast<double>(e);
    }
    const double cellArea = static_cast<double>(g.cellM) * g.cellM;
    double displaced = 0.0;
    std::vector<SubmergedSample> scratch;
    for (const rigid::Body& b : m_world.bodies()) {
        if (!b.isStatic()) {
            scratch.clear();
            displaced += submergedSamples(b, g, m_params.column, scratch);
        }
    }
    return (static_cast<double>(g.restLevelM) * static_cast<double>(g.eta.size()) + sum) *
               cellArea -
           displaced;
}

float SplashWorld::submergedVolume(int i) const {
    std::vector<SubmergedSample> scratch;
    const rigid::Body& b = m_world.bodies()[static_cast<std::size_t>(i)];
    return b.isStatic() ? 0.0f : submergedSamples(b, grid(), m_params.column, scratch);
}

namespace {
Wetness classify(float submerged, float full) {
    if (submerged <= 1e-6f * full) {
        return Wetness::kDry;
    }
    return submerged >= 0.999f * full ? Wetness::kSubmerged : Wetness::kFloating;
}
}  // namespace

Wetness SplashWorld::wetness(int i) const {
    return classify(submergedVolume(i), bodyVolume(m_world.bodies()[static_cast<std::size_t>(i)]));
}

std::vector<Wetness> SplashWorld::wetnessOfAll() const {
    const WaterGrid g = grid();  // one read of the heights (a download on the GPU backend)
    std::vector<Wetness> out;
    out.reserve(m_world.bodies().size());
    std::vector<SubmergedSample> scratch;
    for (const rigid::Body& b : m_world.bodies()) {
        scratch.clear();
        const float v = b.isStatic() ? 0.0f : submergedSamples(b, g, m_params.column, scratch);
        out.push_back(classify(v, bodyVolume(b)));
    }
    return out;
}

int SplashWorld::outsideFootprint(const WaterGrid& g, int cell, GridPoint16 origin) const {
    return walkOutOfFootprints(
        g.nx, g.ny, cell, origin, 2 * m_params.sourceOffsetCells,
        [this](int c) { return m_footprint[static_cast<std::size_t>(c)] != 0; });
}

void SplashWorld::spreadSources(const WaterGrid& g) {
    const int radius = static_cast<int>(m_spreadWeights.size()) - 1;
    if (radius == 0) {
        return;
    }
    // One 1-D pass: each listed cell's value in `from` goes to its neighbours along the axis
    // (stride `stride`, `coord` the cell's index along it, `n` the axis' cells) in `to`.
    const auto pass = [&](std::vector<double>& from, std::vector<char>& fromMark,
                          const std::vector<int>& cells, std::vector<double>& to,
                          std::vector<char>& toMark, std::vector<int>& toCells, bool alongX) {
        toCells.clear();
        const int n = alongX ? g.nx : g.ny;
        const int stride = alongX ? 1 : g.nx;
        for (int c : cells) {
            const auto k = static_cast<std::size_t>(c);
            const double v = from[k];
            from[k] = 0.0;
            fromMark[k] = 0;
            const int at = alongX ? c % g.nx : c / g.nx;
            const int lo = std::max(-radius, -at);
            const int hi = std::min(radius, n - 1 - at);
            const double scale =
                v / (alongX ? m_spreadNormX : m_spreadNormY)[static_cast<std::size_t>(at)];
            for (int d = lo; d <= hi; ++d) {
                const auto t = static_cast<std::size_t>(c + d * stride);
                to[t] += scale * m_spreadWeights[static_cast<std::size_t>(std::abs(d))];
                if (!toMark[t]) {
                    toMark[t] = 1;
                    toCells.push_back(static_cast<int>(t));
                }
            }
        }
    };
    pass(m_source, m_sourceMark, m_cells, m_spread, m_spreadMark, m_spreadCells, true);
    pass(m_spread, m_spreadMark, m_spreadCells, m_source, m_sourceMark, m_cells, false);
}

double SplashWorld::measureWater(const WaterGrid& g, float& submerged) {
    double etaSum = 0.0;
    double etaSumSq = 0.0;
    float etaMax = -std::numeric_limits<float>::infinity();
    float etaMin = std::numeric_limits<float>::infinity();
    for (float e : g.eta) {
        etaSum += static_cast<double>(e);
        etaSumSq += static_cast<double>(e) * e;
        etaMax = std::max(etaMax, e);
        etaMin = std::min(etaMin, e);
    }
    m_etaSum = etaSum;
    m_etaSumSq = etaSumSq;
    m_etaMin = etaMin;
    // NaN heights make etaSum NaN (the scene's check sees W); sample everything then.
    m_surfaceMaxM = std::isfinite(etaSum) ? etaMax : std::numeric_limits<float>::infinity();
    submerged = sampleBodies(g);
    const double cellArea = static_cast<double>(g.cellM) * g.cellM;
    return (static_cast<double>(g.restLevelM) * static_cast<double>(g.eta.size()) + etaSum) *
               cellArea -
           submerged;
}

const SplashStats& SplashWorld::step() {
    if (m_gpu) {
        return stepGpu();
    }
    Stopwatch total;
    m_stats = SplashStats{};
    Stopwatch sw;
    const WaterGrid g = grid();
    const float dt = m_params.world.dtSeconds;

    const double cellArea = static_cast<double>(g.cellM) * g.cellM;
    const double poolArea = cellArea * static_cast<double>(g.eta.size());

    // 1. water -> bodies, under eta^n.
    m_stats.waterVolume = measureWater(g, m_stats.submergedVolume);
    m_stats.etaMinM = m_etaMin;
    m_stats.etaMaxM = m_surfaceMaxM;
    m_forces.assign(static_cast<std::size_t>(m_world.bodyCount()), BodyWater{});
    double momentY = 0.0;
    for (const SubmergedSample& s : m_samples) {
        momentY += static_cast<double>(s.volume) * s.centroid.y;
    }
    const double rhoG = static_cast<double>(m_params.column.waterDensity) * m_params.column.gravity;
    m_stats.waterPotentialJ =
        rhoG *
        (cellArea * (static_cast<double>(g.restLevelM) * m_etaSum + 0.5 * m_etaSumSq) - momentY);
    for (int i = 0; i < m_world.bodyCount(); ++i) {
        const auto first = static_cast<std::size_t>(m_sampleStart[static_cast<std::size_t>(i)]);
        const auto last = static_cast<std::size_t>(m_sampleStart[static_cast<std::size_t>(i) + 1]);
        if (first == last) {
            continue;
        }
        const std::span<const SubmergedSample> mine(m_samples.data() + first, last - first);
        const rigid::Body& seen = m_world.bodies()[static_cast<std::size_t>(i)];
        const BodyWater f = waterForces(seen, g, m_params.column, mine);
        m_forces[static_cast<std::size_t>(i)] = f;
        // body(i) wakes it: the water moves it
        applyWaterForces(m_world.body(i), f, dt);
    }
    splatAll(g, m_before, m_touchedBefore);
    m_stats.volumeDriftRel = m_volume0 > 0.0 ? (m_stats.waterVolume - m_volume0) / m_volume0 : 0.0;
    m_stats.couplingMs = sw.elapsedMs();

    // 2. the LCP step.
    m_stats.rigid = m_world.step();
    m_stats.workOnWaterJ = workOnWater();

    // 3. bodies -> water: what the motion pushed aside, under the same eta^n, moved out of
    // the bodies' footprints (docs/splash.md: water a body pushes away rises beside it, not
    // under it; a source under the body would lift it after a delay and pump its bobbing).
    sw.restart();
    m_samplesBefore.swap(m_samples);
    m_startBefore.swap(m_sampleStart);
    const float submergedMoved = sampleBodies(g);  // the new poses under the same eta^n
    splatAll(g, m_after, m_touchedAfter);
    for (const std::vector<int>* list : {&m_touchedBefore, &m_touchedAfter}) {
        for (int c : *list) {
            m_footprint[static_cast<std::size_t>(c)] = 1;
        }
    }
    m_cells.clear();
    // Each body's moved volume, cell by cell, and where it goes: in fixed chunks of bodies on
    // the executor (each worker with its own scratch field), then added in body order, so the
    // sums are those of a serial loop whatever the thread count.
    const int bodies = m_world.bodyCount();
    const int chunks = (bodies + kBodiesPerChunk - 1) / kBodiesPerChunk;
    if (static_cast<int>(m_chunkMoves.size()) < chunks) {
        m_chunkMoves.resize(static_cast<std::size_t>(chunks));
    }
    if (static_cast<int>(m_workerScratch.size()) < m_params.executor->threads()) {
        m_workerScratch.resize(static_cast<std::size_t>(m_params.executor->threads()));
    }
    const auto moveChunk = [&](std::ptrdiff_t chunk, int worker) {
        MoveScratch& w = m_workerScratch[static_cast<std::size_t>(worker)];
        if (w.field.size() != g.eta.size()) {
            w.field.assign(g.eta.size(), 0.0f);
            w.mark.assign(g.eta.size(), 0);
        }
        std::vector<MovedVolume>& out = m_chunkMoves[static_cast<std::size_t>(chunk)];
        out.clear();
        const int first = static_cast<int>(chunk) * kBodiesPerChunk;
        for (int i = first; i < std::min(bodies, first + kBodiesPerChunk); ++i) {
            const auto b0 = static_cast<std::size_t>(m_startBefore[static_cast<std::size_t>(i)]);
            const auto b1 =
                static_cast<std::size_t>(m_startBefore[static_cast<std::size_t>(i) + 1]);
            const auto a0 = static_cast<std::size_t>(m_sampleStart[static_cast<std::size_t>(i)]);
            const auto a1 =
                static_cast<std::size_t>(m_sampleStart[static_cast<std::size_t>(i) + 1]);
            if (b0 == b1 && a0 == a1) {
                continue;
            }
            w.touched.clear();
            splatVolume(g, std::span<const SubmergedSample>(m_samples.data() + a0, a1 - a0),
                        w.field, w.mark, w.touched, 1.0f);
            splatVolume(g, std::span<const SubmergedSample>(m_samplesBefore.data() + b0, b1 - b0),
                        w.field, w.mark, w.touched, -1.0f);
            const GridPoint16 origin = gridPoint16(
                g.nx, g.ny, g.cellM, m_world.bodies()[static_cast<std::size_t>(i)].position);
            for (int c : w.touched) {
                const auto k = static_cast<std::size_t>(c);
                const float dv = w.field[k];
                w.field[k] = 0.0f;
                w.mark[k] = 0;
                if (dv == 0.0f) {
                    continue;
                }
                // Volumes too small to make a visible wave (a resting brick's float jitter)
                // stay in their cell, unspread, rather than walking out of a long footprint
                // such as the wall's.
                const bool stays = std::abs(dv) < kNegligibleVolumeM3;
                out.push_back({c, stays ? -1 : outsideFootprint(g, c, origin), dv, i});
            }
        }
    };
    // About 100 moved cells a wet body, each a walk of ~20 half-cell steps.
    const std::ptrdiff_t moveWork = static_cast<std::ptrdiff_t>(m_touchedAfter.size()) * 200;
    m_params.executor->forEachChunk(chunks, moveChunk, moveWork);
    double source = 0.0;
    m_radiation.assign(static_cast<std::size_t>(bodies), 0.0);
    for (int c = 0; c < chunks; ++c) {
        for (const MovedVolume& m : m_chunkMoves[static_cast<std::size_t>(c)]) {
            source += m.dv;
            if (m.target >= 0) {
                m_radiation[static_cast<std::size_t>(m.body)] +=
                    rhoG * m.dv *
                    (static_cast<double>(g.eta[static_cast<std::size_t>(m.target)]) -
                     g.eta[static_cast<std::size_t>(m.cell)]);
            }
            if (m.target < 0) {
                m_stayCells.push_back(m.cell);
                m_stayVolumes.push_back(m.dv);
                continue;
            }
            const auto t = static_cast<std::size_t>(m.target);
            if (!m_sourceMark[t]) {
                m_sourceMark[t] = 1;
                m_cells.push_back(m.target);
            }
            m_source[t] += m.dv;
        }
    }
    spreadSources(g);
    for (std::size_t k = 0; k < m_stayCells.size(); ++k) {
        const auto t = static_cast<std::size_t>(m_stayCells[k]);
        if (!m_sourceMark[t]) {
            m_sourceMark[t] = 1;
            m_cells.push_back(m_stayCells[k]);
        }
        m_source[t] += m_stayVolumes[k];
    }
    m_stayCells.clear();
    m_stayVolumes.clear();
    m_delta.resize(m_cells.size());
    for (std::size_t k = 0; k < m_cells.size(); ++k) {
        const auto c = static_cast<std::size_t>(m_cells[k]);
        m_delta[k] = static_cast<float>(m_source[c] / cellArea);
        m_source[c] = 0.0f;
        m_sourceMark[c] = 0;
    }
    for (const std::vector<int>* list : {&m_touchedBefore, &m_touchedAfter}) {
        for (int c : *list) {
            const auto k = static_cast<std::size_t>(c);
            m_footprint[k] = 0;
            m_before[k] = 0.0f;
            m_after[k] = 0.0f;
        }
    }
    // What the sources give the heights, read back from them (the cells they touch).
    double heightsBefore = 0.0;
    for (int c : m_cells) {
        heightsBefore += static_cast<double>(g.eta[static_cast<std::size_t>(c)]);
    }
    if (m_params.bodiesMoveWater) {
        m_water->addAtRest(m_cells, m_delta, 0.0f);
        // The radiation reaction: the bodies pay for the potential energy their moved volume
        // gained on its way out of the footprints (water_column.h, chargeRadiation).
        for (int i = 0; i < bodies; ++i) {
            if (m_radiation[static_cast<std::size_t>(i)] > 0.0) {  // body(i) wakes it
                m_stats.radiationJ +=
                    chargeRadiation(m_world.body(i), m_radiation[static_cast<std::size_t>(i)]);
            }
        }
    }
    m_stats.sourceVolume = std::abs(source);
    double heightsAfter = 0.0;
    const std::span<const float> added = m_water->cpuHeights();
    for (int c : m_cells) {
        heightsAfter += static_cast<double>(added[static_cast<std::size_t>(c)]);
    }
    const double sourcesApplied = (heightsAfter - heightsBefore) * cellArea;
    m_stats.couplingMs += sw.elapsedMs();

    // 4. the water step.
    m_stats.water = m_water->step();

    // 5. the level correction: what the surface's change under partly submerged bodies took
    // from the water's volume (not a flow of water, so no local source) is given back by a
    // uniform shift of the level, which makes no wave (docs/splash.md). Measured after the
    // water step, so that every state between steps holds W0.
    sw.restart();
    const double etaSumStart = m_etaSum;  // eta^n, as the step began
    float submergedAfter = 0.0f;
    const double after = measureWater(grid(), submergedAfter);
    // The sources' own balance: the volume the sources gave the heights against the displaced
    // volume the bodies' motion changed under the same eta^n. And what the correction must
    // return: the drift carried in, the partly submerged bodies' volume change under the
    // surface's change (the new poses under eta^n+1 against eta^n) and the water step's own
    // change of the sum of the heights (its CG's residual; ~4e-4 m^3 a step at most in the
    // default collapse); a source that is doubled, flipped or lost shows in both
    // (docs/splash.md, "Checks").
    if (m_params.bodiesMoveWater && std::isfinite(after)) {
        const double motion = static_cast<double>(submergedMoved) - m_stats.submergedVolume;
        m_stats.sourceMotionM3 = motion;
        m_stats.sourceImbalanceM3 = sourcesApplied - motion;
        const double waterStep = (m_etaSum - etaSumStart) * cellArea - sourcesApplied;
        m_stats.correctionUnexplainedM3 =
            std::abs(m_volume0 - after) - std::abs(m_stats.waterVolume - m_volume0) -
            std::abs(static_cast<double>(submergedAfter) - submergedMoved) - std::abs(waterStep);
    }
    // The shift S raises the partly submerged bodies' displaced volume by A_wp S too (their
    // waterplane, from the sampling just made): W(S) = W + (A_pool - A_wp) S. Dividing by
    // A_pool alone left (A_wp / A_pool) of the deviation behind each step, 31 % with the 20 x 20
    // wall's 180 floating bricks (docs/splash.md). A_wp is capped at 0.9 A_pool.
    const double effectiveArea = poolArea - std::min(m_waterplaneM2, 0.9 * poolArea);
    const double correction = m_volume0 > 0.0 && m_params.bodiesMoveWater && std::isfinite(after)
                                  ? (m_volume0 - after) / effectiveArea
                                  : 0.0;
    if (static_cast<float>(correction) != 0.0f) {
        m_water->addAtRest({}, {}, static_cast<float>(correction));
    }
    m_stats.levelCorrectionM = correction;
    m_stats.couplingMs += sw.elapsedMs();
    m_stats.totalMs = total.elapsedMs();
    return m_stats;
}

double SplashWorld::workOnWater() const {
    double work = 0.0;
    const int n = std::min(m_world.bodyCount(), static_cast<int>(m_forces.size()));
    for (int i = 0; i < n; ++i) {
        const BodyWater& f = m_forces[static_cast<std::size_t>(i)];
        const rigid::Body& b = m_world.bodies()[static_cast<std::size_t>(i)];
        work -= static_cast<double>(dot(f.buoyancyForce + f.dragForce, b.linearVelocity)) +
                static_cast<double>(dot(f.torque, b.angularVelocity));
    }
    return work * static_cast<double>(m_params.world.dtSeconds);
}

std::string SplashWorld::stateHash() const {
    StateHash h;
    const std::uint64_t bodies = m_world.stateHash();
    h.add(&bodies, sizeof bodies);
    const std::string water = m_water->stateHash();
    h.add(water.data(), water.size());
    return h.hex();
}

}  // namespace ww::splash
