#include "app/scenes/splash/splash_scene.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "app/scenes/brick_events.h"
#include "app/scenes/solver_state_bytes.h"
#include "solver/splash/splash_scenes.h"

namespace ww::app {

Result<splash::SplashWorld> SplashScene::build(const SplashSceneSettings& s) {
    return splash::makeSplashWallWorld(s.splash, s.wall, s.wallXM, s.wallZM);
}

Result<std::unique_ptr<SplashScene>> SplashScene::create(SplashSceneSettings settings) {
    Result<splash::SplashWorld> w = build(settings);
    if (!w) {
        return w.error();
    }
    return std::unique_ptr<SplashScene>(new SplashScene(std::move(settings), std::move(w).value()));
}

SplashScene::SplashScene(SplashSceneSettings settings, splash::SplashWorld world)
    : m_settings(std::move(settings)), m_world(std::move(world)) {}

void SplashScene::reset() {
    Result<splash::SplashWorld> w = build(m_settings);
    if (w) {  // it was built once from these settings
        const Backend backend = m_world.backend();
        m_world = std::move(w).value();
        // It ran on this backend with these settings before.
        (void)m_world.setBackend(backend, m_shaders);
    }
    m_steps = m_nMax = m_contactsMax = 0;
    m_lcpIterationsSum = m_cgIterationsSum = 0;
    m_lcpResidualMax = m_cgResidualMax = m_penetrationMax = m_speedMax = 0;
    m_driftMax = m_correctionMax = 0;
    m_prevMaxSpeed = 0;
    m_energyStarted = false;
    m_potential0 = m_energyIn = m_workExchanged = m_energyExcess = m_energyExcessMax = 0;
    m_etaMin = m_etaMax = 0;
    m_unexplainedMax = 0;
    m_imbalanceMax = m_correctionUnexplainedMax = 0;
    m_lastDepths.clear();
}

void SplashScene::step(StepRecord& out) {
    m_prevMaxSpeed = m_world.world().lastStats().maxSpeed;
    const std::vector<rigid::Body>& start = m_world.world().bodies();
    m_startPosition.resize(start.size());
    m_startVelocity.resize(start.size());
    m_startSpin.resize(start.size());
    for (std::size_t i = 0; i < start.size(); ++i) {
        m_startPosition[i] = start[i].position;
        m_startVelocity[i] = start[i].linearVelocity;
        m_startSpin[i] = start[i].angularVelocity;
    }
    const splash::SplashStats& s = m_world.step();
    // The energy balance: the water's potential energy at this step's start against the work
    // the bodies did on it in the steps before (docs/splash.md, "Checks").
    if (!m_energyStarted) {
        m_energyStarted = true;
        m_potential0 = s.waterPotentialJ;
    }
    m_energyExcess = s.waterPotentialJ - m_potential0 - m_energyIn;
    m_energyExcessMax = std::max(m_energyExcessMax, m_energyExcess);
    m_energyIn += s.workOnWaterJ + s.radiationJ;
    m_workExchanged += std::abs(s.workOnWaterJ) + s.radiationJ;
    if (std::isfinite(s.sourceImbalanceM3)) {
        m_imbalanceMax = std::max(m_imbalanceMax, std::abs(s.sourceImbalanceM3));
        m_correctionUnexplainedMax =
            std::max(m_correctionUnexplainedMax, s.correctionUnexplainedM3);
    }
    m_etaMin = std::min(m_etaMin, s.etaMinM);
    m_etaMax = std::max(m_etaMax, s.etaMaxM);
    const rigid::StepStats& r = s.rigid;
    const wave::StepStats& w = s.water;
    out.stepMs = s.totalMs;
    out.phases = {};
    out.phases.collide = r.collideMs;
    out.phases.assemble = r.assembleMs;
    out.phases.solve = r.solveMs;
    out.phases.integrate = r.integrateMs;
    out.phases.coupling = s.couplingMs;
    out.phases.waterRhs = w.rhsMs;
    out.phases.waterSolve = w.solveMs;
    out.residualHistory = r.residualHistory;
    out.stats = {};
    out.stats.n = r.lcpN;
    out.stats.contacts = r.contacts;
    out.stats.islands = r.islands;
    out.stats.lcpIterations = r.iterationsMean;
    out.stats.lcpResidual = r.residualMax;
    out.stats.cgIterations = w.cgIterations;
    out.stats.cgResidual = w.cgResidual;
    out.stats.penetration = r.maxPenetration;
    out.stats.maxSpeed = r.maxSpeed;
    out.stats.submergedM3 = s.submergedVolume;
    out.stats.volumeDriftRel = s.volumeDriftRel;
    out.stats.levelCorrectionM = s.levelCorrectionM;
    ++m_steps;
    m_nMax = std::max(m_nMax, r.lcpN);
    m_contactsMax = std::max(m_contactsMax, r.contacts);
    m_lcpIterationsSum += r.iterationsMean;
    m_cgIterationsSum += w.cgIterations;
    m_lcpResidualMax = std::max(m_lcpResidualMax, r.residualMax);
    m_cgResidualMax = std::max(m_cgResidualMax, w.cgResidual);
    m_penetrationMax = std::max(m_penetrationMax, r.maxPenetration);
    m_speedMax = std::max(m_speedMax, r.maxSpeed);
    m_driftMax = std::max(m_driftMax, std::abs(s.volumeDriftRel));
    m_correctionMax = std::max(m_correctionMax, std::abs(s.levelCorrectionM));
}

Status SplashScene::validateEvent(const SceneEvent& e) const {
    if (isBrickEvent(e)) {
        return validateBrickEvent(e);
    }
    return inputError("--event " + e.text + ": the splash scene has no action '" + e.action +
                      "' (use shoot, remove or push)");
}

Status SplashScene::applyEvent(const SceneEvent& e) {
    if (Status s = validateEvent(e); !s) {
        return s;
    }
    return applyBrickEvent(e, m_world.world(), m_settings.shot);
}

Status SplashScene::setBackend(Backend backend, const gpu::ShaderLibrary* shaders) {
    if (Status s = m_world.setBackend(backend, shaders); !s) {
        return Error{s.error().kind, "--backend gpu: the splash scene: " + s.error().message};
    }
    m_shaders = shaders;
    return {};
}

void SplashScene::checkInvariants(const StepRecord&, std::vector<std::string>& out) const {
    const splash::SplashStats& s = m_world.lastStats();
    const std::string at = "step " + std::to_string(m_world.world().stepCount()) + ": ";
    if (s.rigid.nonFiniteBodies > 0) {
        out.push_back(at + std::to_string(s.rigid.nonFiniteBodies) +
                      " bodies had a NaN/Inf state (restored to the last good state)");
    }
    if (s.rigid.divergedBlocks > 0) {
        out.push_back(at + "the LCP solve diverged in " + std::to_string(s.rigid.divergedBlocks) +
                      " blocks" +
                      (s.rigid.lcpError.empty() ? std::string() : ": " + s.rigid.lcpError));
    }
    if (!std::isfinite(s.waterVolume)) {  // W sums every height
        out.push_back(at + "the water surface became NaN/Inf");
    }
    if (s.water.cgStatus == cg::CgStatus::kBreakdown) {
        out.push_back(at + s.water.message);
    }
    // Penetration: a pair's contacts against maxPenetrationM plus the depth one step of
    // approach explains: the pair's own closing speed at the step's start or the fastest
    // closing of any contact of either body (a brick landing on a stack pushes the bricks
    // under it in that step, before the Jacobi iterations carry the impulse down). The
    // allowance is kept while the pair stays in contact and grows only with such approaches:
    // a pair that sinks into each other over several steps fails.
    const float dt = m_settings.splash.world.dtSeconds;
    const std::vector<rigid::Body>& bodies = m_world.world().bodies();
    const auto pointVelocity = [&](int i, const rigid::Vec3& p) {
        const auto k = static_cast<std::size_t>(i);
        if (i < 0 || k >= m_startVelocity.size() || bodies[k].isStatic()) {
            return rigid::Vec3{};
        }
        return m_startVelocity[k] + cross(m_startSpin[k], p - m_startPosition[k]);
    };
    float worstExcess = 0.0f;
    float worstDepth = 0.0f, worstAllowed = 0.0f;
    float unexplained = 0.0f;
    const auto key = [](const ContactDepth& x, const ContactDepth& y) {
        return std::tie(x.a, x.b) < std::tie(y.a, y.b);
    };
    m_depths.clear();
    const std::vector<rigid::Contact>& contacts = m_world.world().contacts();
    const auto closingOf = [&](const rigid::Contact& c) {
        return std::max(
            0.0f,
            -dot(pointVelocity(c.bodyA, c.point) - pointVelocity(c.bodyB, c.point), c.normal));
    };
    m_bodyClosing.assign(bodies.size(), 0.0f);
    for (const rigid::Contact& c : contacts) {
        const float closing = closingOf(c);
        for (const int i : {c.bodyA, c.bodyB}) {
            if (i >= 0 && static_cast<std::size_t>(i) < bodies.size()) {
                float& m = m_bodyClosing[static_cast<std::size_t>(i)];
                m = std::max(m, closing);
            }
        }
    }
    for (const rigid::Contact& c : contacts) {
        const float depth = -c.separation;
        const ContactDepth probe{c.bodyA, c.bodyB, 0.0f};
        const auto was = std::lower_bound(m_lastDepths.begin(), m_lastDepths.end(), probe, key);
        const bool touching = was != m_lastDepths.end() && !key(probe, *was);
        const float near = std::max(m_bodyClosing[static_cast<std::size_t>(c.bodyA)],
                                    m_bodyClosing[static_cast<std::size_t>(c.bodyB)]);
        const float fresh = m_settings.maxPenetrationM + std::max(closingOf(c), near) * dt;
        const float allowed = touching ? std::max(was->depth, fresh) : fresh;
        m_depths.push_back({c.bodyA, c.bodyB, allowed});
        unexplained = std::max(unexplained, depth - (allowed - m_settings.maxPenetrationM));
        if (depth - allowed > worstExcess) {
            worstExcess = depth - allowed;
            worstDepth = depth;
            worstAllowed = allowed;
        }
    }
    // The pair's largest allowance, once per pair.
    std::sort(m_depths.begin(), m_depths.end(), [&](const ContactDepth& x, const ContactDepth& y) {
        return key(x, y) || (!key(y, x) && x.depth > y.depth);
    });
    m_depths.erase(std::unique(m_depths.begin(), m_depths.end(),
                               [&](const ContactDepth& x, const ContactDepth& y) {
                                   return !key(x, y) && !key(y, x);
                               }),
                   m_depths.end());
    m_lastDepths.swap(m_depths);
    m_unexplainedMax = std::max(m_unexplainedMax, unexplained);
    if (worstExcess > 0.0f) {
        out.push_back(at + "a contact penetrates " + std::to_string(worstDepth) +
                      " m, more than the " + std::to_string(worstAllowed) + " m that the bound " +
                      std::to_string(m_settings.maxPenetrationM) +
                      " m and its bodies' approach in the step before they touched explain");
    }
    const float depth = m_settings.splash.waterDepthM;
    const float troughBound = m_settings.maxTroughOfDepth * depth;
    const float crestBound = m_settings.maxCrestOfDepth * depth;
    if (s.etaMinM <= -troughBound || s.etaMaxM >= crestBound) {
        out.push_back(at + "the surface reaches " + std::to_string(s.etaMinM) + " .. " +
                      std::to_string(s.etaMaxM) + " m about its rest level, outside -" +
                      std::to_string(troughBound) + " .. " + std::to_string(crestBound) +
                      " m (the depth is " + std::to_string(depth) +
                      " m: the floor shows between spikes)");
    }
    if (std::isfinite(s.sourceImbalanceM3)) {
        const double slack =
            m_settings.sourceSlackOfMotion * std::abs(s.sourceMotionM3) + m_settings.sourceSlackM3;
        if (std::abs(s.sourceImbalanceM3) > slack) {
            out.push_back(at + "the sources gave the water " +
                          std::to_string(s.sourceMotionM3 + s.sourceImbalanceM3) +
                          " m^3 for the bodies' " + std::to_string(s.sourceMotionM3) +
                          " m^3 of displacement (slack " + std::to_string(slack) + " m^3)");
        }
        if (s.correctionUnexplainedM3 > slack) {
            out.push_back(at + "the level correction returns " +
                          std::to_string(s.correctionUnexplainedM3) +
                          " m^3 more than the drift, the partly submerged bodies and the water's "
                          "step explain (slack " +
                          std::to_string(slack) + " m^3)");
        }
    }
    const double energyBound =
        m_settings.energySlackOfWork * m_workExchanged + m_settings.energySlackJ;
    if (m_energyExcess > energyBound) {
        out.push_back(at + "the water holds " + std::to_string(m_energyExcess) +
                      " J more potential energy than the bodies' work on it gave it (bound " +
                      std::to_string(energyBound) + " J): the coupling creates energy");
    }
    if (std::abs(s.volumeDriftRel) > m_settings.maxVolumeDrift) {
        out.push_back(at + "the water volume changed by " + std::to_string(s.volumeDriftRel) +
                      " (relative), more than " + std::to_string(m_settings.maxVolumeDrift));
    }
}

namespace {
struct SplashState final : SceneState {
    rigid::World::State world;
    wave::WaveModel::State water;
    float prevMaxSpeed = 0.0f;
    std::size_t bytes() const override { return sizeof(*this) + world.bytes() + water.bytes(); }
    std::string serialize() const override {
        ByteWriter w;
        putWorldState(w, world);
        putWaveState(w, water);
        w.put(prevMaxSpeed);
        return w.take();
    }
};
}  // namespace

std::unique_ptr<SceneState> SplashScene::saveState() const {
    auto s = std::make_unique<SplashState>();
    s->world = m_world.world().saveState();
    s->water = m_world.water().saveState();
    s->prevMaxSpeed = m_prevMaxSpeed;
    return s;
}

Result<std::unique_ptr<SceneState>> SplashScene::readState(std::string_view bytes) const {
    auto s = std::make_unique<SplashState>();
    ByteReader r(bytes);
    const WorldBytes world = getWorldState(r, s->world);
    if (world == WorldBytes::kUnknownBody) {
        return inputError("splash: the saved state's contacts name bodies it does not have");
    }
    if (world != WorldBytes::kOk || !getWaveState(r, s->water) || !r.get(s->prevMaxSpeed) ||
        !r.atEnd()) {
        return inputError("splash: the saved state is truncated or not a splash scene's");
    }
    return std::unique_ptr<SceneState>(std::move(s));
}

Status SplashScene::restoreState(const SceneState& state) {
    const auto* s = dynamic_cast<const SplashState*>(&state);
    if (s == nullptr) {
        return inputError("splash: the state to restore was not saved by a splash scene");
    }
    // The water first: it is the part that can refuse (another grid), and then nothing changed.
    if (Status ok = m_world.water().restoreState(s->water); !ok) {
        return Error{ok.error().kind, "splash: " + ok.error().message +
                                          " (the pool's grid changed since the state was saved)"};
    }
    m_world.world().restoreState(s->world);
    m_prevMaxSpeed = s->prevMaxSpeed;
    // The energy check starts again from the restored state (its work history is not saved).
    m_energyStarted = false;
    m_energyIn = m_workExchanged = m_energyExcess = 0;
    return {};
}

nlohmann::json SplashScene::snapshot() const {
    nlohmann::json bodies = nlohmann::json::array();
    for (const rigid::Body& b : m_world.world().bodies()) {
        bodies.push_back(
            {{"kind", rigid::toString(b.kind)},
             {"tag", b.tag},
             {"position", {b.position.x, b.position.y, b.position.z}},
             {"orientation", {b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z}},
             {"linear_velocity", {b.linearVelocity.x, b.linearVelocity.y, b.linearVelocity.z}}});
    }
    const wave::WaveParams& p = m_world.water().params();
    return {{"scene", "splash"},
            {"step", m_world.world().stepCount()},
            {"hash", stateHash()},
            {"bodies", bodies},
            {"nx", p.nx},
            {"ny", p.ny},
            {"cell_size_m", p.cellSize()},
            {"water_depth_m", m_settings.splash.waterDepthM},
            {"heights", m_world.water().heights()}};
}

nlohmann::json SplashScene::summary() const {
    int floating = 0, submerged = 0, dry = 0;
    const rigid::World& world = m_world.world();
    const std::vector<splash::Wetness> wetness = m_world.wetnessOfAll();
    for (int i = 0; i < world.bodyCount(); ++i) {
        if (world.bodies()[static_cast<std::size_t>(i)].isStatic()) {
            continue;
        }
        switch (wetness[static_cast<std::size_t>(i)]) {
            case splash::Wetness::kFloating:
                ++floating;
                break;
            case splash::Wetness::kSubmerged:
                ++submerged;
                break;
            case splash::Wetness::kDry:
                ++dry;
                break;
        }
    }
    const wave::WaveParams& p = m_world.water().params();
    const double v0 = m_world.initialWaterVolume();
    const double steps = std::max(1, m_steps);
    return {
        {"lcp",
         {{"n_max", m_nMax},
          {"contacts_max", m_contactsMax},
          {"iterations_mean", m_lcpIterationsSum / steps},
          {"residual_max", m_lcpResidualMax},
          {"mode", rigid::toString(m_settings.splash.world.mode)},
          {"solver", lcp::toString(m_settings.splash.world.lcp.method)}}},
        {"cg", {{"iterations_mean", m_cgIterationsSum / steps}, {"residual_max", m_cgResidualMax}}},
        {"grid", std::to_string(p.nx) + "x" + std::to_string(p.ny)},
        {"wave_speed_mps", p.waveSpeed},
        {"water",
         {{"volume_initial", v0},
          {"volume_drift_rel", v0 > 0 ? (m_world.waterVolume() - v0) / v0 : 0.0},
          {"volume_drift_rel_max", m_driftMax},
          {"level_correction_max_m", m_correctionMax},
          {"eta_min_m", m_etaMin},
          {"eta_max_m", m_etaMax},
          {"potential_energy_j",
           m_energyStarted ? m_world.lastStats().waterPotentialJ - m_potential0 : 0.0},
          {"energy_from_bodies_j", m_energyIn},
          {"energy_excess_max_j", m_energyExcessMax},
          {"source_imbalance_max_m3", m_imbalanceMax},
          {"correction_unexplained_max_m3", m_correctionUnexplainedMax}}},
        {"bodies",
         {{"count", world.bodyCount() - 1},
          {"floating", floating},
          {"submerged", submerged},
          {"dry", dry}}},
        {"brick_density", m_settings.brickDensityKgM3},
        {"max_penetration", m_penetrationMax},
        {"max_penetration_beyond_approach", m_unexplainedMax},
        {"max_speed", m_speedMax}};
}

void SplashScene::fillDrawData(render::DrawData& out) const {
    out.boxes.clear();
    out.spheres.clear();
    out.groundPlane = true;
    for (const rigid::Body& b : m_world.world().bodies()) {
        const glm::vec3 p{b.position.x, b.position.y, b.position.z};
        if (b.kind == rigid::BodyKind::kBox) {
            const int col = b.tag & 0xffff;
            const int row = b.tag >> 16;
            const float shade = 0.08f * static_cast<float>((row * 3 + col) % 4);
            out.boxes.push_back(
                {p,
                 glm::quat(b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z),
                 {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z},
                 {0.72f + shade, 0.30f + shade, 0.20f + 0.5f * shade, 1.0f}});
        } else if (b.kind == rigid::BodyKind::kSphere) {
            out.spheres.push_back({p, b.radius, {0.85f, 0.87f, 0.9f, 1.0f}});
        }
    }
    const wave::WaveParams& p = m_world.water().params();
    render::WaterSurface& w = out.water;
    w.enabled = true;
    w.nx = p.nx;
    w.ny = p.ny;
    w.cellSizeM = p.cellSize();
    w.baseHeightM = m_settings.splash.waterDepthM;
    w.heightBuffer = 0;
    m_heightsForDrawing = m_world.water().heights();
    w.heightsCpu = m_heightsForDrawing;
}

std::pair<glm::vec3, float> SplashScene::viewBounds() const {
    const wave::WaveParams& p = m_world.water().params();
    const float half = 0.5f * p.cellSize() * static_cast<float>(std::max(p.nx, p.ny));
    return {{0.0f, m_settings.splash.waterDepthM, 0.0f}, 1.05f * half};
}

}  // namespace ww::app
