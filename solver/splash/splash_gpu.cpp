// The splash coupling's kernels and buffers on the GPU, and SplashWorld's GPU step (see
// splash_gpu.h and docs/splash.md).
#include "solver/splash/splash_gpu.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "solver/core/timer.h"
#include "solver/gpu/gpu_context.h"
#include "solver/gpu/shader_library.h"
#include "solver/splash/splash_world.h"

namespace ww::splash {

using rigid::Vec3;

namespace {

// A box is cut along at most its three axes (BoxSampling).
constexpr int kCutsMax = 3;

// Buffer bindings of shaders/splash_*.comp.
enum Binding : unsigned {
    kU = 0,
    kUPrev = 1,
    kBodies = 2,
    kForces = 3,
    kSamples = 4,
    kPartials = 5,
    kTiles = 6,
    kFootprint = 7,
    kSource = 8,
    kStay = 9,
    kSpread = 10,
    kAlong = 11,
};
constexpr int kReduceGroupsMax = 64;  // stage 1 sums them in one workgroup of 256

std::array<float, 4> v4(const Vec3& v, float w) {
    return {v.x, v.y, v.z, w};
}

float cellCoord(float x, float h, int n) {
    return x / h + 0.5f * static_cast<float>(n - 1);
}

}  // namespace

Status gpuFits(const SplashParams& p, int bodies, std::int64_t maxSsboBytes) {
    const auto mib = [](std::int64_t bytes) { return std::to_string(bytes >> 20); };
    const std::int64_t grid = static_cast<std::int64_t>(p.wave.nx) * p.wave.ny * 4;
    if (maxSsboBytes > 0 && grid > maxSsboBytes) {
        return Error{ErrorKind::kGpuLimit,
                     "--grid " + std::to_string(p.wave.nx) + "x" + std::to_string(p.wave.ny) +
                         ": the water needs " + mib(grid) +
                         " MiB in one GPU buffer, more than the GPU's largest shader storage "
                         "block (" +
                         mib(maxSsboBytes) +
                         " MiB, GL_MAX_SHADER_STORAGE_BLOCK_SIZE); use a smaller --grid or "
                         "--backend cpu"};
    }
    // Two passes of up to three cuts of maxSamples^2 lines a body (BoxSampling), 16 bytes a
    // line.
    const std::int64_t lines = static_cast<std::int64_t>(bodies) * kCutsMax * p.column.maxSamples *
                               p.column.maxSamples * 2 * 16;
    if (maxSsboBytes > 0 && lines > maxSsboBytes) {
        return Error{ErrorKind::kGpuLimit,
                     "--wall: the sample lines of " + std::to_string(bodies) + " bodies need " +
                         mib(lines) +
                         " MiB in one GPU buffer, more than the GPU's largest shader storage "
                         "block (" +
                         mib(maxSsboBytes) + " MiB); use a smaller --wall or --backend cpu"};
    }
    return {};
}

Result<std::unique_ptr<SplashGpu>> SplashGpu::create(const gpu::ShaderLibrary& shaders,
                                                     const GpuGrid& grid) {
    auto g = std::unique_ptr<SplashGpu>(new SplashGpu());
    g->m_grid = grid;
    const char* files[] = {"splash_reduce.comp",     "splash_sample.comp", "splash_splat.comp",
                           "splash_distribute.comp", "splash_spread.comp", "splash_apply.comp",
                           "splash_correct.comp"};
    gpu::Program* programs[] = {&g->m_reduce, &g->m_sample, &g->m_splat,  &g->m_distribute,
                                &g->m_spread, &g->m_apply,  &g->m_correct};
    for (int k = 0; k < 7; ++k) {
        auto p = shaders.build(gpu::ProgramSpec::computeStage(files[k]));
        if (!p) {
            return p.error();
        }
        *programs[k] = std::move(p).value();
    }
    const std::size_t cells = static_cast<std::size_t>(grid.nx) * static_cast<std::size_t>(grid.ny);
    for (auto [buffer, what] :
         {std::pair{&g->m_footprint, "splash footprint"}, std::pair{&g->m_source, "splash sources"},
          std::pair{&g->m_stay, "splash kept sources"},
          std::pair{&g->m_along, "splash spread along x"}}) {
        auto b = gpu::Buffer::create(cells * sizeof(int), nullptr, what);
        if (!b) {
            return b.error();
        }
        *buffer = std::move(b).value();
        buffer->clear();
    }
    auto partials =
        gpu::Buffer::create(kReduceGroupsMax * 4 * sizeof(float), nullptr, "splash partial sums");
    if (!partials) {
        return partials.error();
    }
    g->m_partials = std::move(partials).value();
    return g;
}

int SplashGpu::spreadRadius(float sigmaM) {
    if (sigmaM == m_spreadSigmaM) {
        return m_spreadRadius;
    }
    // As the CPU path: a Gaussian in cells cut at two standard deviations, each 1-D pass
    // normalised by the weights that fall inside the pool.
    const float sigmaCells = sigmaM / m_grid.cellM;
    const int radius = sigmaCells > 0.0f ? static_cast<int>(std::ceil(2.0f * sigmaCells)) : 0;
    std::vector<float> weights(static_cast<std::size_t>(radius) + 1, 1.0f);
    for (int d = 1; d <= radius; ++d) {
        const float r = static_cast<float>(d) / sigmaCells;
        weights[static_cast<std::size_t>(d)] = std::exp(-0.5f * r * r);
    }
    std::vector<float> table = weights;
    for (int n : {m_grid.nx, m_grid.ny}) {
        for (int at = 0; at < n; ++at) {
            double norm = 0.0;
            for (int d = std::max(-radius, -at); d <= std::min(radius, n - 1 - at); ++d) {
                norm += weights[static_cast<std::size_t>(std::abs(d))];
            }
            table.push_back(static_cast<float>(norm));
        }
    }
    auto b = gpu::Buffer::fromSpan(std::span<const float>(table), "splash spread weights");
    if (!b) {
        return 0;
    }
    m_spreadWeights = std::move(b).value();
    m_spreadSigmaM = sigmaM;
    m_spreadRadius = radius;
    return radius;
}

void SplashGpu::setGrid(const gpu::Program& p) const {
    p.use();
    p.set("uNx", m_grid.nx);
    p.set("uNy", m_grid.ny);
    p.set("uCellM", m_grid.cellM);
    p.set("uRestLevelM", m_grid.restLevelM);
}

void SplashGpu::setSampleUniforms(const ColumnParams& column, float dryMarginM,
                                  int sampleOffset) const {
    setGrid(m_sample);
    m_sample.set("uWaterDensity", column.waterDensity);
    m_sample.set("uGravity", column.gravity);
    m_sample.set("uLinearDrag", column.linearDrag);
    m_sample.set("uQuadraticDrag", column.quadraticDrag);
    m_sample.set("uDryMarginM", dryMarginM);
    m_sample.set("uSampleOffset", sampleOffset);
    m_sample.set("uWriteForces", 1);
}

Status SplashGpu::reserveLines(int lines) {
    const int bodies = std::max(1, static_cast<int>(m_records.size()));
    const std::size_t recordBytes = static_cast<std::size_t>(bodies) * sizeof(gpu_layout::Body);
    if (m_bodies.bytes() < recordBytes) {
        auto b = gpu::Buffer::create(recordBytes, nullptr, "splash bodies");
        auto f =
            gpu::Buffer::create(gpu_layout::kForceHeaderBytes +
                                    static_cast<std::size_t>(bodies) * sizeof(gpu_layout::Force),
                                nullptr, "splash forces");
        if (!b) {
            return b.error();
        }
        if (!f) {
            return f.error();
        }
        m_bodies = std::move(b).value();
        m_forces = std::move(f).value();
        m_forces.clear();  // the header's last correction starts at 0
    }
    if (lines > m_lineCapacity) {
        auto s = gpu::Buffer::create(2 * static_cast<std::size_t>(lines) * 4 * sizeof(float),
                                     nullptr, "splash samples");
        if (!s) {
            return s.error();
        }
        m_samples = std::move(s).value();
        m_lineCapacity = lines;
    }
    return {};
}

int SplashGpu::layBodies(const rigid::World& world, const ColumnParams& column) {
    m_records.assign(world.bodies().size(), gpu_layout::Body{});
    int line = 0;
    for (std::size_t i = 0; i < world.bodies().size(); ++i) {
        const rigid::Body& b = world.bodies()[i];
        gpu_layout::Body& r = m_records[i];
        r.centre = v4(b.position, std::cbrt(std::max(bodyVolume(b), 1e-9f)));
        const GridPoint16 origin = gridPoint16(m_grid.nx, m_grid.ny, m_grid.cellM, b.position);
        r.walk = {origin.i, origin.j, 0, 0};
        r.linVel = v4(b.linearVelocity, 0.0f);
        r.angVel = v4(b.angularVelocity, lowestPointY(b));
        if (b.isStatic()) {
            continue;
        }
        if (b.kind == rigid::BodyKind::kBox) {
            const BoxSampling sampling = boxSampling(b, m_grid.cellM, column);
            const int lines = sampling.lines();
            if (lines == 0) {
                continue;
            }
            r.axis = v4(b.rotation.c[0], b.halfExtents.x);
            r.e1 = v4(b.rotation.c[1], b.halfExtents.y);
            r.e2 = v4(b.rotation.c[2], b.halfExtents.z);
            for (int a = 0; a < 3; ++a) {
                r.cutLines[static_cast<std::size_t>(a)] =
                    linesAlong(2.0f * b.halfExtents[a], m_grid.cellM, column);
            }
            for (int c = 0; c < sampling.count; ++c) {
                r.cutWeight[static_cast<std::size_t>(sampling.axis[c])] = sampling.cut[c].weight;
            }
            r.info = {lines, 1, 1, line};
            line += lines;
        } else if (b.kind == rigid::BodyKind::kSphere) {
            const int n = linesAlong(2.0f * b.radius, m_grid.cellM, column);
            r.e1[3] = b.radius;
            r.info = {n, n, 2, line};
            line += n * n;
        }
    }
    return line;
}

void SplashGpu::reduceHeights(unsigned u) {
    const std::size_t cells =
        static_cast<std::size_t>(m_grid.nx) * static_cast<std::size_t>(m_grid.ny);
    const auto groups = std::min<std::uint32_t>(kReduceGroupsMax, gpu::groupsFor(cells, 256));
    gpu::bindStorage(kU, u);
    m_partials.bind(kPartials);
    m_forces.bind(kForces);
    m_reduce.use();
    m_reduce.set("uCount", static_cast<int>(cells));
    m_reduce.set("uStage", 0);
    (void)gpu::dispatch(m_reduce, groups);
    gpu::barrier();
    m_reduce.set("uCount", static_cast<int>(groups));
    m_reduce.set("uStage", 1);
    (void)gpu::dispatch(m_reduce, 1);
    gpu::barrier();
}

void SplashGpu::sampleForces(const rigid::World& world, const ColumnParams& column, unsigned u,
                             unsigned uPrev, float dryMarginM, std::vector<BodyWater>& forces,
                             double& etaSum, double& lastCorrectionM, SurfaceStats& surface) {
    m_linesBefore = layBodies(world, column);
    // Room for the lines of any pose of these bodies, so that the pass after the LCP step
    // never reallocates (and loses) the lines of this one.
    const int most =
        kCutsMax * column.maxSamples * column.maxSamples * static_cast<int>(m_records.size());
    if (Status s = reserveLines(std::max(1, most)); !s) {
        forces.assign(m_records.size(), BodyWater{});
        etaSum = std::numeric_limits<double>::quiet_NaN();
        lastCorrectionM = 0.0;
        return;
    }
    m_before = m_records;
    m_bodies.upload(std::span<const gpu_layout::Body>(m_records));

    reduceHeights(u);
    gpu::bindStorage(kUPrev, uPrev);
    m_forces.bind(kForces);

    m_bodies.bind(kBodies);
    m_samples.bind(kSamples);
    setSampleUniforms(column, dryMarginM, 0);
    if (!m_records.empty()) {
        (void)gpu::dispatch(m_sample, static_cast<std::uint32_t>(m_records.size()));
    }
    gpu::barrier();

    // The step's one readback: the header (sum, max of eta) and a Force per body.
    std::array<float, 8> header{};
    m_readback.resize(m_records.size());
    m_forces.download(header.data(), sizeof header);
    if (!m_records.empty()) {
        m_forces.download(m_readback.data(), m_readback.size() * sizeof(gpu_layout::Force),
                          gpu_layout::kForceHeaderBytes);
    }
    etaSum = static_cast<double>(header[0]);
    lastCorrectionM = static_cast<double>(header[2]);
    surface.etaMaxM = header[1];
    surface.etaSumSq = static_cast<double>(header[3]);
    surface.etaMinM = header[4];
    forces.assign(m_records.size(), BodyWater{});
    for (std::size_t i = 0; i < m_records.size(); ++i) {
        if (m_records[i].info[2] == 0) {
            continue;
        }
        const gpu_layout::Force& f = m_readback[i];
        BodyWater& w = forces[i];
        w.submergedVolume = f.buoyancy[3];
        w.submergedMomentY = f.buoyancy[2];
        w.buoyancyForce = {0.0f, f.buoyancy[1], 0.0f};
        w.dragForce = {f.drag[0], f.drag[1], f.drag[2]};
        w.torque = {f.torque[0], f.torque[1], f.torque[2]};
        w.dragTorque = {f.dragTorque[0], f.dragTorque[1], f.dragTorque[2]};
        w.buoyancyCentre = world.bodies()[i].position;
    }
}

Status SplashGpu::displace(const rigid::World& world, const ColumnParams& column, unsigned u,
                           unsigned uPrev, bool moveWater, float negligibleM3,
                           int sourceOffsetCells, float spreadSigmaM, std::vector<float>& lift) {
    lift.assign(m_records.size(), 0.0f);
    const std::size_t before = m_before.size();
    const int lines = layBodies(world, column);
    if (lines > m_lineCapacity || m_records.size() != before) {
        return Error{ErrorKind::kGpuLimit, "splash: the bodies changed within a step"};
    }
    // Each body's tile covers both its poses (the lines stay within the body's bounding
    // sphere) plus the bilinear neighbour cell.
    int tileCells = 0;
    for (std::size_t i = 0; i < m_records.size(); ++i) {
        gpu_layout::Body& r = m_records[i];
        r.tileAt = {0, m_before[i].info[3],
                    m_before[i].info[2] == 0 ? 0 : m_before[i].info[0] * m_before[i].info[1], 0};
        if (r.info[2] == 0 && m_before[i].info[2] == 0) {
            continue;
        }
        const rigid::Body& b = world.bodies()[i];
        const float reach = rigid::reachOf(b);
        const float x0 = std::min(b.position.x, m_before[i].centre[0]) - reach;
        const float x1 = std::max(b.position.x, m_before[i].centre[0]) + reach;
        const float z0 = std::min(b.position.z, m_before[i].centre[2]) - reach;
        const float z1 = std::max(b.position.z, m_before[i].centre[2]) + reach;
        const auto cellRange = [&](float lo, float hi, int n) {
            const float a = std::floor(cellCoord(lo, m_grid.cellM, n)) - 1.0f;
            const float b2 = std::ceil(cellCoord(hi, m_grid.cellM, n)) + 1.0f;
            const int first = static_cast<int>(std::clamp(a, 0.0f, static_cast<float>(n - 1)));
            const int last = static_cast<int>(std::clamp(b2, 0.0f, static_cast<float>(n - 1)));
            return std::pair{first, last - first + 1};
        };
        const auto [i0, w] = cellRange(x0, x1, m_grid.nx);
        const auto [j0, h] = cellRange(z0, z1, m_grid.ny);
        r.tile = {i0, j0, w, h};
        r.tileAt[0] = tileCells;
        tileCells += w * h;
    }
    if (m_tiles.bytes() < static_cast<std::size_t>(std::max(1, tileCells)) * sizeof(int)) {
        auto t =
            gpu::Buffer::create(static_cast<std::size_t>(std::max(1, tileCells)) * 2 * sizeof(int),
                                nullptr, "splash tiles");
        if (!t) {
            return t.error();
        }
        m_tiles = std::move(t).value();
        m_tiles.clear();
    }
    m_bodies.upload(std::span<const gpu_layout::Body>(m_records));
    const auto bodies = static_cast<std::uint32_t>(m_records.size());
    const float quantumM3 = kDisplacementQuantumM * m_grid.cellM * m_grid.cellM;

    gpu::bindStorage(kU, u);
    gpu::bindStorage(kUPrev, uPrev);
    m_bodies.bind(kBodies);
    m_forces.bind(kForces);
    m_samples.bind(kSamples);
    m_tiles.bind(kTiles);
    m_footprint.bind(kFootprint);
    m_source.bind(kSource);
    m_stay.bind(kStay);
    m_along.bind(kAlong);
    const int radius = spreadRadius(spreadSigmaM);
    if (m_spreadWeights.valid()) {
        m_spreadWeights.bind(kSpread);
    } else {
        m_along.bind(kSpread);  // not read without a spread; any buffer satisfies the binding
    }
    setGrid(m_sample);
    m_sample.set("uSampleOffset", m_lineCapacity);
    m_sample.set("uWriteForces", 0);
    if (bodies > 0) {
        (void)gpu::dispatch(m_sample, bodies);
        gpu::barrier();
        setGrid(m_splat);
        m_splat.set("uLinesPerPass", m_lineCapacity);
        m_splat.set("uQuantumM3", quantumM3);
        (void)gpu::dispatch(m_splat, bodies, 2);
        gpu::barrier();
        setGrid(m_distribute);
        m_distribute.set("uQuantumM3", quantumM3);
        m_distribute.set("uNegligibleM3", negligibleM3);
        m_distribute.set("uSourceOffsetCells", sourceOffsetCells);
        (void)gpu::dispatch(m_distribute, bodies);
        gpu::barrier();
        // Each body's lift (dragTorque.w) for the radiation reaction: the second, small
        // readback of the step (64 bytes a body).
        m_readback.resize(m_records.size());
        m_forces.download(m_readback.data(), m_readback.size() * sizeof(gpu_layout::Force),
                          gpu_layout::kForceHeaderBytes);
        for (std::size_t i = 0; i < m_records.size(); ++i) {
            lift[i] = m_readback[i].dragTorque[3];
        }
    }
    const std::size_t cells =
        static_cast<std::size_t>(m_grid.nx) * static_cast<std::size_t>(m_grid.ny);
    if (radius > 0 && moveWater) {
        setGrid(m_spread);
        m_spread.set("uQuantumM", kDisplacementQuantumM);
        m_spread.set("uSpreadRadius", radius);
        (void)gpu::dispatch(m_spread, gpu::groupsFor(cells, 256));
        gpu::barrier();
    }
    m_apply.use();
    m_apply.set("uNx", m_grid.nx);
    m_apply.set("uNy", m_grid.ny);
    m_apply.set("uSpreadRadius", radius);
    m_apply.set("uQuantumM", kDisplacementQuantumM);
    m_apply.set("uMoveWater", moveWater ? 1 : 0);
    (void)gpu::dispatch(m_apply, gpu::groupsFor(cells, 256));
    gpu::barrier();
    return {};
}

void SplashGpu::correctLevel(const ColumnParams& column, unsigned u, unsigned uPrev,
                             float dryMarginM, double restMinusW0) {
    reduceHeights(u);
    gpu::bindStorage(kUPrev, uPrev);
    m_bodies.bind(kBodies);
    m_samples.bind(kSamples);
    const auto bodies = static_cast<std::uint32_t>(m_records.size());
    if (bodies > 0) {
        setSampleUniforms(column, dryMarginM, m_lineCapacity);
        (void)gpu::dispatch(m_sample, bodies);
        gpu::barrier();
    }
    const std::size_t cells =
        static_cast<std::size_t>(m_grid.nx) * static_cast<std::size_t>(m_grid.ny);
    const double cellArea = static_cast<double>(m_grid.cellM) * m_grid.cellM;
    setGrid(m_correct);
    m_correct.set("uBodies", static_cast<int>(bodies));
    m_correct.set("uCellArea", static_cast<float>(cellArea));
    m_correct.set("uPoolArea", static_cast<float>(cellArea * static_cast<double>(cells)));
    m_correct.set("uRestMinusW0", static_cast<float>(restMinusW0));
    (void)gpu::dispatch(m_correct, gpu::groupsFor(cells, 256));
    gpu::barrier();
}

Status SplashWorld::setBackend(Backend backend, const gpu::ShaderLibrary* shaders) {
    if (backend == m_water->backend() && (backend == Backend::kCpu) == (m_gpu == nullptr)) {
        return {};
    }
    if (backend == Backend::kCpu) {
        if (Status s = m_water->setBackend(Backend::kCpu, nullptr); !s) {
            return s;
        }
        (void)m_world.setBackend(Backend::kCpu);
        m_gpu.reset();
        return {};
    }
    if (shaders == nullptr || gpu::GpuContext::current() == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     "splash: the GPU backend needs a current GL 4.3 context and the shaders"};
    }
    // Room for a few shots beyond the bodies there are now.
    if (Status s = gpuFits(m_params, m_world.bodyCount() + 16,
                           gpu::GpuContext::current()->info().maxSsboBytes);
        !s) {
        return s;
    }
    GpuGrid grid;
    grid.nx = m_params.wave.nx;
    grid.ny = m_params.wave.ny;
    grid.cellM = m_params.wave.cellSize();
    grid.restLevelM = m_params.waterDepthM;
    grid.dtSeconds = m_params.wave.dt();
    Result<std::unique_ptr<SplashGpu>> kernels = SplashGpu::create(*shaders, grid);
    if (!kernels) {
        return kernels.error();
    }
    if (Status s = m_world.setBackend(Backend::kGpu, shaders); !s) {
        return s;
    }
    if (Status s = m_water->setBackend(Backend::kGpu, shaders); !s) {
        (void)m_world.setBackend(Backend::kCpu);
        return s;
    }
    m_gpu = std::move(kernels).value();
    return {};
}

const SplashStats& SplashWorld::stepGpu() {
    Stopwatch total;
    m_stats = SplashStats{};
    // The sources' balance is measured on the CPU path only (it would need another readback).
    m_stats.sourceMotionM3 = std::numeric_limits<double>::quiet_NaN();
    m_stats.sourceImbalanceM3 = std::numeric_limits<double>::quiet_NaN();
    m_stats.correctionUnexplainedM3 = std::numeric_limits<double>::quiet_NaN();
    Stopwatch sw;
    const float dt = m_params.world.dtSeconds;
    // As the CPU step: 1 mm above the highest water a body has no submerged line.
    constexpr float kDryMarginM = 1.0e-3f;
    constexpr float kNegligibleVolumeM3 = 2.5e-8f;
    const double cellArea =
        static_cast<double>(m_params.wave.cellSize()) * m_params.wave.cellSize();
    const double cells = static_cast<double>(m_params.wave.nx) * m_params.wave.ny;

    // 1. water -> bodies, under eta^n, on the GPU; the forces come back (with the level
    // correction the previous step added).
    double etaSum = 0.0;
    SurfaceStats surface;
    m_gpu->sampleForces(m_world, m_params.column, m_water->heightBufferHandle(),
                        m_water->previousHeightBufferHandle(), kDryMarginM, m_forces, etaSum,
                        m_stats.levelCorrectionM, surface);
    m_stats.etaMinM = surface.etaMinM;
    m_stats.etaMaxM = surface.etaMaxM;
    float submerged = 0.0f;
    double momentY = 0.0;
    for (int i = 0; i < m_world.bodyCount(); ++i) {
        const BodyWater& f = m_forces[static_cast<std::size_t>(i)];
        if (!(f.submergedVolume > 0.0f)) {
            continue;
        }
        momentY += static_cast<double>(f.submergedMomentY);
        submerged += f.submergedVolume;
        applyWaterForces(m_world.body(i), f, dt);
    }
    m_stats.submergedVolume = submerged;
    m_stats.waterVolume =
        (static_cast<double>(m_params.waterDepthM) * cells + etaSum) * cellArea - submerged;
    m_stats.volumeDriftRel = m_volume0 > 0.0 ? (m_stats.waterVolume - m_volume0) / m_volume0 : 0.0;
    m_stats.waterPotentialJ =
        static_cast<double>(m_params.column.waterDensity) * m_params.column.gravity *
        (cellArea * (static_cast<double>(m_params.waterDepthM) * etaSum + 0.5 * surface.etaSumSq) -
         momentY);
    m_stats.couplingMs = sw.elapsedMs();

    // 2. the LCP step (on the GPU LCP backend).
    m_stats.rigid = m_world.step();
    m_stats.workOnWaterJ = workOnWater();

    // 3. bodies -> water, on the GPU: no readback.
    sw.restart();
    std::vector<float> lift;
    (void)m_gpu->displace(m_world, m_params.column, m_water->heightBufferHandle(),
                          m_water->previousHeightBufferHandle(), m_params.bodiesMoveWater,
                          kNegligibleVolumeM3, m_params.sourceOffsetCells, m_params.sourceSpreadM,
                          lift);
    if (m_params.bodiesMoveWater) {  // the radiation reaction, as the CPU step's 3
        const double rhoG =
            static_cast<double>(m_params.column.waterDensity) * m_params.column.gravity;
        for (std::size_t i = 0; i < lift.size(); ++i) {
            if (lift[i] > 0.0f) {  // body(i) wakes it
                m_stats.radiationJ +=
                    chargeRadiation(m_world.body(static_cast<int>(i)), rhoG * lift[i]);
            }
        }
    }
    m_stats.couplingMs += sw.elapsedMs();

    // 4. the water step.
    m_stats.water = m_water->step();

    // 5. the level correction under the new surface, on the GPU (as the CPU step's 5).
    sw.restart();
    if (m_volume0 > 0.0 && m_params.bodiesMoveWater) {
        m_gpu->correctLevel(
            m_params.column, m_water->heightBufferHandle(), m_water->previousHeightBufferHandle(),
            kDryMarginM, static_cast<double>(m_params.waterDepthM) * cells * cellArea - m_volume0);
    }
    m_stats.couplingMs += sw.elapsedMs();
    m_stats.totalMs = total.elapsedMs();
    return m_stats;
}

}  // namespace ww::splash
