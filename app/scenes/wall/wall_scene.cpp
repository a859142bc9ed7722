#include "app/scenes/wall/wall_scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <utility>

#include "app/scenes/brick_events.h"
#include "app/scenes/solver_state_bytes.h"
#include "solver/gpu/gl_objects.h"
#include "solver/io/matrix_market.h"

namespace ww::app {

namespace {

// Brick colours: warm clay tones varying by row and column so the bond pattern reads.
glm::vec4 brickColor(std::int32_t tag) {
    const int col = tag & 0xffff;
    const int row = tag >> 16;
    static const glm::vec3 kPalette[] = {
        {0.72f, 0.30f, 0.20f}, {0.80f, 0.42f, 0.25f}, {0.66f, 0.26f, 0.22f}, {0.85f, 0.55f, 0.32f}};
    const glm::vec3 c = kPalette[(row * 3 + col) % 4];
    return {c, 1.0f};
}

// Writes the largest LCP block of the last step as Matrix Market files that `wavewall lcp`
// reads: PREFIX_A.mtx, _b, _lo, _hi and _friction (n x 2: normal row or -1, mu).
Status dumpLargestLcp(const rigid::World& world, const std::string& prefix) {
    const std::span<const lcp::LcpProblem> blocks = world.lcpBlocks();
    const lcp::LcpProblem* p = nullptr;
    for (const lcp::LcpProblem& b : blocks) {
        if (p == nullptr || b.n > p->n) {
            p = &b;
        }
    }
    if (p == nullptr || p->n == 0) {
        return inputError("dump-lcp: the last step posed no LCP (no contacts)");
    }
    const auto n = static_cast<std::size_t>(p->n);
    // A matrix-free block is written as the dense matrix it represents, while that stays a file
    // `wavewall lcp` can read back in reasonable time.
    constexpr int kMaxDumpRows = 4096;
    if (p->matrixFree() && p->n > kMaxDumpRows) {
        return inputError("dump-lcp: the largest block has " + std::to_string(p->n) +
                          " rows, posed matrix-free; its dense A (" +
                          std::to_string(n * n * 8 / 1000000) +
                          " MB of doubles) is too large to write: dump a smaller wall (at most " +
                          std::to_string(kMaxDumpRows) + " rows)");
    }
    const std::vector<float> dense = p->matrixFree() ? lcp::denseFromRowOperator(p->op) : p->a;
    const auto bound = [](float v) { return std::isinf(v) ? std::copysign(1e30, v) : double(v); };
    std::vector<double> a(dense.begin(), dense.end()), b(p->b.begin(), p->b.end()), lo(n), hi(n),
        friction(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        lo[i] = bound(p->lo[i]);
        hi[i] = bound(p->hi[i]);
        friction[2 * i] = p->hasFriction() ? p->frictionNormal[i] : -1;
        friction[2 * i + 1] = p->hasFriction() ? p->mu[i] : 0.0;
    }
    const int rows = p->n;
    for (const auto& [suffix, values, cols] :
         {std::tuple{"_A.mtx", &a, rows}, std::tuple{"_b.mtx", &b, 1},
          std::tuple{"_lo.mtx", &lo, 1}, std::tuple{"_hi.mtx", &hi, 1},
          std::tuple{"_friction.mtx", &friction, 2}}) {
        if (Status s = io::writeMatrixMarketArray(prefix + suffix, rows, cols, *values); !s) {
            return s;
        }
    }
    std::printf("wavewall: wrote the %d-row LCP of step %ld to %s_{A,b,lo,hi,friction}.mtx\n", rows,
                world.stepCount(), prefix.c_str());
    return {};
}

// Settings made without an executor (tests, tools) solve on the calling thread.
std::shared_ptr<const exec::Executor> executorOf(WallSceneSettings& s) {
    if (!s.executor) {
        s.executor = std::make_shared<const exec::Executor>(1);
    }
    return s.executor;
}

}  // namespace

WallScene::WallScene(WallSceneSettings settings)
    : m_settings(std::move(settings)), m_world(executorOf(m_settings), m_settings.world) {
    build();
}

void WallScene::build() {
    const Backend backend = m_world.backend();
    m_world = rigid::World(executorOf(m_settings), m_settings.world);
    rigid::addGround(m_world);
    if (m_settings.layout == "pyramid") {
        rigid::addPyramid(m_world, m_settings.pyramid);
    } else if (m_settings.layout == "stack") {
        rigid::addStack(m_world, m_settings.stack);
    } else if (m_settings.layout == "slide") {
        rigid::addSlide(m_world, m_settings.slide);
    } else {
        rigid::addWall(m_world, m_settings.wall);
    }
    m_world.reserve(m_world.bodyCount() + 16, 8 * m_world.bodyCount());
    if (backend != Backend::kCpu) {
        // Keeps the backend across resets; it worked before, so it works again.
        (void)m_world.setBackend(backend, m_shaders);
    }
    m_startPositions.clear();
    m_startTags.clear();
    for (const rigid::Body& b : m_world.bodies()) {
        if (b.kind == rigid::BodyKind::kBox && b.tag >= 0) {
            m_startTags.push_back(b.tag);
            m_startPositions.push_back(b.position);
        }
    }
    m_steps = 0;
    m_nMax = m_contactsMax = m_islandsMax = m_matrixFreeMax = 0;
    m_dispatchesSum = 0;
    m_dispatchesMax = m_readbacksMax = 0;
    m_omegaUsedMin = 0.0f;
    m_iterationsSum = 0;
    m_shockSweepsSum = m_shockBodiesSum = 0;
    m_lambdaStepsSum = 0;
    m_residualMax = m_penetrationMax = m_speedMax = m_driftMax = 0;
}

void WallScene::reset() {
    build();
}

void WallScene::step(StepRecord& out) {
    m_prevMaxSpeed = m_world.lastStats().maxSpeed;
    const gpu::TrafficCounts before = gpu::trafficCounts();
    const rigid::StepStats& s = m_world.step();
    const gpu::TrafficCounts after = gpu::trafficCounts();
    out.stepMs = s.totalMs;
    out.phases = {};
    out.phases.collide = s.collideMs;
    out.phases.assemble = s.assembleMs;
    out.phases.solve = s.solveMs;
    out.phases.integrate = s.integrateMs;
    out.residualHistory = s.residualHistory;
    const float drift = maxDrift();
    const float speed = maxBrickSpeed();
    out.stats = {};
    out.stats.n = s.lcpN;
    out.stats.nBlockMax = s.lcpNMax;
    out.stats.contacts = s.contacts;
    out.stats.islands = s.islands;
    out.stats.iterations = s.iterationsMean;
    out.stats.residual = s.residualMax;
    out.stats.penetration = s.maxPenetration;
    out.stats.maxSpeed = speed;
    out.stats.maxDrift = drift;
    if (s.lcpUploadMs > 0.0) {
        out.stats.lcpUploadMs = s.lcpUploadMs;
    }
    if (s.omega > 0.0f) {
        out.stats.omega = s.omega;
    }
    if (s.lambdaMax > 0.0f) {  // estimated (adaptive ω, or local step scales)
        out.stats.lambdaMax = s.lambdaMax;
    }
    ++m_steps;
    m_nMax = std::max(m_nMax, s.lcpN);
    m_contactsMax = std::max(m_contactsMax, s.contacts);
    m_islandsMax = std::max(m_islandsMax, s.islands);
    m_matrixFreeMax = std::max(m_matrixFreeMax, s.matrixFreeBlocks);
    if (s.omega > 0.0f) {
        m_omegaUsedMin = m_omegaUsedMin > 0.0f ? std::min(m_omegaUsedMin, s.omega) : s.omega;
    }
    m_iterationsSum += s.iterationsMean;
    m_shockSweepsSum += static_cast<double>(s.shockSweeps);
    m_shockBodiesSum += s.shockBodies;
    m_lambdaStepsSum += s.lambdaSteps;
    const long dispatches = after.dispatches - before.dispatches;
    m_dispatchesSum += static_cast<double>(dispatches);
    m_dispatchesMax = std::max(m_dispatchesMax, dispatches);
    m_readbacksMax = std::max(m_readbacksMax, after.readbacks - before.readbacks);
    m_residualMax = std::max(m_residualMax, s.residualMax);
    m_penetrationMax = std::max(m_penetrationMax, s.maxPenetration);
    m_speedMax = std::max(m_speedMax, speed);
    m_driftMax = std::max(m_driftMax, drift);
}

float WallScene::maxDrift() const {
    float worst = 0;
    std::size_t k = 0;
    for (const rigid::Body& b : m_world.bodies()) {
        if (b.kind != rigid::BodyKind::kBox || b.tag < 0) {
            continue;
        }
        // Bodies keep their relative order (removal shifts indices down), so the start
        // positions are walked in step; removed bricks are skipped by tag.
        while (k < m_startTags.size() && m_startTags[k] != b.tag) {
            ++k;
        }
        if (k == m_startTags.size()) {
            break;
        }
        worst = std::max(worst, length(b.position - m_startPositions[k]));
    }
    return worst;
}

float WallScene::maxBrickSpeed() const {
    float worst = 0;
    for (const rigid::Body& b : m_world.bodies()) {
        if (b.kind == rigid::BodyKind::kBox && !b.isStatic()) {
            worst = std::max(worst, length(b.linearVelocity));
        }
    }
    return worst;
}

Status WallScene::validateEvent(const SceneEvent& e) const {
    if (isBrickEvent(e)) {
        return validateBrickEvent(e);
    }
    if (e.action == "dump-lcp") {
        if (e.args.size() != 1 || e.args[0].empty()) {
            return inputError("--event " + e.text + ": dump-lcp takes one file prefix, e.g. " +
                              "120:dump-lcp:/tmp/wall");
        }
        return io::checkWritable(e.args[0] + "_A.mtx", "dump-lcp");
    }
    return inputError("--event " + e.text + ": the wall scene has no action '" + e.action +
                      "' (use shoot, remove, push or dump-lcp)");
}

Status WallScene::applyEvent(const SceneEvent& e) {
    if (Status s = validateEvent(e); !s) {
        return s;
    }
    if (e.action == "dump-lcp") {
        return dumpLargestLcp(m_world, e.args[0]);
    }
    return applyBrickEvent(e, m_world, m_settings.shot);
}

void WallScene::shoot(const rigid::Vec3& from, const rigid::Vec3& velocity) {
    rigid::ShotParams shot = m_settings.shot;
    shot.from = from;
    shot.velocity = velocity;
    rigid::shootSphere(m_world, shot);
}

Status WallScene::setBackend(Backend backend, const gpu::ShaderLibrary* shaders) {
    Status s = m_world.setBackend(backend, shaders);
    if (s) {
        m_shaders = shaders;
    }
    return s;
}

void WallScene::checkInvariants(const StepRecord&, std::vector<std::string>& out) const {
    const rigid::StepStats& s = m_world.lastStats();
    const std::string at = "step " + std::to_string(m_world.stepCount()) + ": ";
    if (s.nonFiniteBodies > 0) {
        out.push_back(at + std::to_string(s.nonFiniteBodies) +
                      " bodies had a NaN/Inf state (restored to the last good state)");
    }
    if (s.divergedBlocks > 0 && !s.lcpError.empty()) {
        out.push_back(at + "the LCP solve failed in " + std::to_string(s.divergedBlocks) + " of " +
                      std::to_string(s.islands) + " blocks: " + s.lcpError);
    } else if (s.divergedBlocks > 0) {
        out.push_back(at + "the LCP solve diverged in " + std::to_string(s.divergedBlocks) +
                      " of " + std::to_string(s.islands) +
                      " blocks (omega too large for projected Jacobi? try --omega 0.3)");
    }
    if (!std::isfinite(s.residualMax)) {
        out.push_back(at + "non-finite LCP residual");
    }
    // Without continuous collision a body can sink as far as it moves in one step before its
    // first contact is seen, so the bound grows with the fastest body's step length.
    const float bound = m_settings.maxPenetrationM + m_prevMaxSpeed * m_settings.world.dtSeconds;
    if (s.maxPenetration > bound) {
        std::string text = at + "penetration " + std::to_string(s.maxPenetration) +
                           " m exceeds the bound " + std::to_string(bound) + " m";
        // Fewer iterations let bodies sink deeper: say when the work budget cut this step's.
        if (s.budgetCap > 0) {
            text += " (the iteration budget held this step to " + std::to_string(s.budgetCap) +
                    " of the " + std::to_string(m_world.params().lcp.maxIterations) +
                    " iterations asked for: try --iteration-budget 0)";
        }
        out.push_back(std::move(text));
    }
}

namespace {
struct WallState final : SceneState {
    rigid::World::State world;
    float prevMaxSpeed = 0.0f;
    std::size_t bytes() const override { return sizeof(*this) + world.bytes(); }
    std::string serialize() const override {
        ByteWriter w;
        putWorldState(w, world);
        w.put(prevMaxSpeed);
        return w.take();
    }
};
}  // namespace

std::unique_ptr<SceneState> WallScene::saveState() const {
    auto s = std::make_unique<WallState>();
    s->world = m_world.saveState();
    s->prevMaxSpeed = m_prevMaxSpeed;
    return s;
}

Result<std::unique_ptr<SceneState>> WallScene::readState(std::string_view bytes) const {
    auto s = std::make_unique<WallState>();
    ByteReader r(bytes);
    const WorldBytes world = getWorldState(r, s->world);
    if (world == WorldBytes::kUnknownBody) {
        return inputError("wall: the saved state's contacts name bodies it does not have");
    }
    if (world != WorldBytes::kOk || !r.get(s->prevMaxSpeed) || !r.atEnd()) {
        return inputError("wall: the saved state is truncated or not a wall's");
    }
    return std::unique_ptr<SceneState>(std::move(s));
}

Status WallScene::restoreState(const SceneState& state) {
    const auto* s = dynamic_cast<const WallState*>(&state);
    if (s == nullptr) {
        return inputError("wall: the state to restore was not saved by a wall scene");
    }
    m_world.restoreState(s->world);
    m_prevMaxSpeed = s->prevMaxSpeed;
    return {};
}

nlohmann::json WallScene::snapshot() const {
    nlohmann::json bodies = nlohmann::json::array();
    for (const rigid::Body& b : m_world.bodies()) {
        bodies.push_back(
            {{"kind", rigid::toString(b.kind)},
             {"tag", b.tag},
             {"position", {b.position.x, b.position.y, b.position.z}},
             {"orientation", {b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z}},
             {"linear_velocity", {b.linearVelocity.x, b.linearVelocity.y, b.linearVelocity.z}},
             {"angular_velocity",
              {b.angularVelocity.x, b.angularVelocity.y, b.angularVelocity.z}}});
    }
    return {{"scene", "wall"},
            {"step", m_world.stepCount()},
            {"hash", stateHash()},
            {"bodies", bodies}};
}

nlohmann::json WallScene::summary() const {
    nlohmann::json out = {
        {"lcp",
         {{"n_max", m_nMax},
          {"contacts_max", m_contactsMax},
          {"islands_max", m_islandsMax},
          {"iterations_mean", m_steps > 0 ? m_iterationsSum / m_steps : 0.0},
          {"residual_max", m_residualMax},
          {"mode", rigid::toString(m_settings.world.mode)},
          {"operator", rigid::toString(m_settings.world.lcpOperator)},
          {"matrix_free_blocks_max", m_matrixFreeMax},
          {"dispatches_per_step_mean", m_steps > 0 ? m_dispatchesSum / m_steps : 0.0},
          {"dispatches_per_step_max", m_dispatchesMax},
          {"readbacks_per_step_max", m_readbacksMax},
          {"omega_used_min", m_omegaUsedMin},
          {"lambda_steps_mean", m_steps > 0 ? m_lambdaStepsSum / m_steps : 0.0},
          {"solver", lcp::toString(m_settings.world.lcp.method)},
          {"omega", m_settings.world.lcp.omega}}},
        {"shock",
         {{"sweeps", m_settings.world.shockSweeps},
          {"sweeps_per_body_mean",
           m_shockBodiesSum > 0 ? m_shockSweepsSum / m_shockBodiesSum : 0.0}}},
        {"bodies", m_world.bodyCount()},
        {"max_penetration", m_penetrationMax},
        {"max_speed", m_speedMax},
        {"max_drift", m_driftMax}};
    if (m_settings.layout == "slide" && !m_startPositions.empty()) {
        // The one brick: how far it went (until it stopped or the run ended) and how straight.
        for (const rigid::Body& b : m_world.bodies()) {
            if (b.kind == rigid::BodyKind::kBox && b.tag == m_startTags.front()) {
                const rigid::SlideOutcome o =
                    rigid::slideOutcome(m_settings.slide, m_startPositions.front(), b.position);
                out["slide"] = {{"distance_m", o.distanceM},
                                {"direction_error_deg", o.directionErrorDeg}};
            }
        }
    }
    return out;
}

void WallScene::fillDrawData(render::DrawData& out) const {
    out.boxes.clear();
    out.spheres.clear();
    out.water.enabled = false;
    out.groundPlane = true;
    for (const rigid::Body& b : m_world.bodies()) {
        const glm::vec3 p{b.position.x, b.position.y, b.position.z};
        if (b.kind == rigid::BodyKind::kBox) {
            out.boxes.push_back(
                {p,
                 glm::quat(b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z),
                 {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z},
                 brickColor(b.tag)});
        } else if (b.kind == rigid::BodyKind::kSphere) {
            out.spheres.push_back({p, b.radius, {0.85f, 0.87f, 0.9f, 1.0f}});
        }
    }
}

std::pair<glm::vec3, float> WallScene::viewBounds() const {
    glm::vec3 lo(0.0f), hi(0.0f);
    bool any = false;
    for (const rigid::Body& b : m_world.bodies()) {
        if (b.kind != rigid::BodyKind::kBox) {
            continue;
        }
        const glm::vec3 p{b.position.x, b.position.y, b.position.z};
        lo = any ? glm::min(lo, p) : p;
        hi = any ? glm::max(hi, p) : p;
        any = true;
    }
    const glm::vec3 center = 0.5f * (lo + hi);
    return {center, 0.5f * glm::length(hi - lo) + 1.5f};
}

}  // namespace ww::app
