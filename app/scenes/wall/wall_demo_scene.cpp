#include "app/scenes/wall/wall_demo_scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app/demo/adapter_state.h"
#include "app/demo/contact_overlay.h"
#include "app/demo/demo_panel.h"
#include "app/demo/param_widgets.h"
#include "solver/lcp/lcp_gpu_layout.h"

namespace ww::app {

namespace {

// The scene's checks speak to the command line ("try --omega 0.3"); the demo's user has the
// panel: the same advice names its control.
std::string inPanelTerms(std::string text) {
    for (const auto& [flag, panel] :
         {std::pair<std::string, std::string>{"try --omega ", "set omega (Scene settings) to "},
          {"try --iteration-budget ", "set work budget (Scene settings) to "}}) {
        if (const auto at = text.find(flag); at != std::string::npos) {
            text.replace(at, flag.size(), panel);
        }
    }
    return text;
}

// Half the vertical field of view of render::OrbitCamera (45 degrees), to frame a sphere.
constexpr float kHalfFovRadians = 0.392699f;

}  // namespace

std::optional<float> rayHitsBox(const render::Ray& ray, const glm::vec3& centre,
                                const glm::quat& orientation, const glm::vec3& halfExtents) {
    const glm::quat toBox = glm::inverse(orientation);
    const glm::vec3 o = toBox * (ray.origin - centre);
    const glm::vec3 d = toBox * ray.direction;
    float tNear = 0.0f;
    float tFar = std::numeric_limits<float>::max();
    for (int k = 0; k < 3; ++k) {
        if (std::abs(d[k]) < 1e-9f) {
            if (std::abs(o[k]) > halfExtents[k]) {
                return std::nullopt;
            }
            continue;
        }
        float a = (-halfExtents[k] - o[k]) / d[k];
        float b = (halfExtents[k] - o[k]) / d[k];
        if (a > b) {
            std::swap(a, b);
        }
        tNear = std::max(tNear, a);
        tFar = std::min(tFar, b);
        if (tNear > tFar) {
            return std::nullopt;
        }
    }
    return tNear;
}

WallDemoScene::WallDemoScene(WallSceneSettings settings, const gpu::ShaderLibrary* shaders)
    : m_scene(std::move(settings)), m_shaders(shaders) {
    const WallSceneSettings& s = m_scene.settings();
    m_shotSpeed = std::max(1.0f, rigid::length(s.shot.velocity));
    m_omegaByHand = s.world.lcp.omega != rigid::defaultWallOmega(s.world.lcp.method);
    const auto [centre, radius] = m_scene.viewBounds();
    m_home.target = centre;
    m_home.distanceM = radius / std::sin(kHalfFovRadians);
    m_home.yawRadians = 0.45f;
    m_home.pitchRadians = 0.3f;
}

Result<std::unique_ptr<demo::DemoScene>> WallDemoScene::wrap(std::unique_ptr<SimScene> scene,
                                                             DemoAdapterInputs in) {
    auto* wall = dynamic_cast<WallScene*>(scene.get());
    if (wall == nullptr) {
        return inputError("demo: the wall adapter needs a wall scene");
    }
    auto out = std::make_unique<WallDemoScene>(wall->settings(), in.shaders);
    out->setScript(std::move(in.script));
    out->setSolveBudgetMs(in.solveBudgetMs);
    return std::unique_ptr<demo::DemoScene>(std::move(out));
}

void WallDemoScene::setMethod(lcp::LcpMethod method) {
    rigid::WorldParams& p = m_scene.world().params();
    if (p.lcp.method == method) {
        return;
    }
    p.lcp.method = method;
    if (!m_omegaByHand) {
        p.lcp.omega = rigid::defaultWallOmega(method);
    }
    keepSettings();
}

void WallDemoScene::setScript(EventScript script) {
    m_script = std::move(script);
}

void WallDemoScene::step() {
    // A scripted reset rebuilds the simulation as everywhere else (the panel's live settings
    // kept, as the Reset button keeps them); the script's step count runs on.
    ScriptHooks hooks;
    hooks.beforeReset = [this] { keepSettings(); };
    hooks.afterReset = [this] { clearRun(); };
    for (std::string& error : m_script.apply(m_scene, m_stepIndex, hooks)) {
        m_note = std::move(error);
    }
    ++m_stepIndex;
    // The budget lowers the cap for this step only: the user's settings stay as they are.
    rigid::WorldParams& p = m_scene.world().params();
    const int askedIterations = p.lcp.maxIterations;
    const int askedColdStart = p.coldStartIterations;
    m_budgetCap = 0;
    if (m_solveBudgetMs > 0.0f && m_msPerIteration > 0.0) {
        const int cap =
            std::max(kMinBudgetIterations,
                     static_cast<int>(std::min(1.0e6, m_solveBudgetMs / m_msPerIteration)));
        // 2n is predicted from the last step's largest block.
        const int asked =
            askedIterations > 0 ? askedIterations : 2 * m_scene.world().lastStats().lcpNMax;
        m_askedIterations = asked;
        if (asked > cap) {
            m_budgetCap = cap;
            p.lcp.maxIterations = cap;
            p.coldStartIterations = std::min(askedColdStart, cap);
        }
    }
    applyGrab(p.dtSeconds);
    m_scene.step(m_last);
    p.lcp.maxIterations = askedIterations;
    p.coldStartIterations = askedColdStart;
    const rigid::StepStats& stats = m_scene.world().lastStats();
    m_iterationsRun = iterationsRun(stats, backend());
    if (m_iterationsRun > 0) {
        m_msPerIteration = stats.solveMs / m_iterationsRun;
    }
    m_recentCaps.push_back(m_budgetCap);
    if (m_recentCaps.size() > kBudgetHintSteps) {
        m_recentCaps.pop_front();
    }
    if (m_alarm.empty()) {
        std::vector<std::string> violations;
        m_scene.checkInvariants(m_last, violations);
        if (!violations.empty()) {
            m_alarm = "The wall's simulation broke down: " + inPanelTerms(violations.front()) +
                      ". Reset restores the wall.";
            // Too few iterations show as depth; a diverged or non-finite solve has its own
            // advice.
            if (violations.front().find(": penetration ") != std::string::npos) {
                m_alarm += budgetHint(m_recentCaps, m_askedIterations, m_solveBudgetMs);
            }
        }
    }
    if (const double r = m_last.stats.residual.value_or(0.0); std::isfinite(r)) {
        m_residuals.push_back(static_cast<float>(r));
    }
    if (m_residuals.size() > kHistorySteps) {
        m_residuals.pop_front();
    }
}

std::string WallDemoScene::budgetHint(const std::deque<int>& caps, int asked, float budgetMs) {
    int cut = 0;
    int fewest = 0;
    for (const int cap : caps) {
        if (cap > 0) {
            fewest = cut == 0 ? cap : std::min(fewest, cap);
            ++cut;
        }
    }
    if (cut == 0) {
        return {};
    }
    char text[320];
    std::snprintf(text, sizeof text,
                  " The step budget (%.0f ms) cut %d of the last %zu steps to as few as %d of the "
                  "%d iterations asked for, and fewer iterations let bricks sink deeper: set "
                  "\"step budget ms\" to 0 (--solve-budget-ms 0) to run them all.",
                  static_cast<double>(budgetMs), cut, caps.size(), fewest, asked);
    return text;
}

int WallDemoScene::iterationsRun(const rigid::StepStats& stats, Backend backend) {
    if (backend != Backend::kGpu || stats.solvedOnCpuFallback || stats.lcpNMax == 0) {
        return stats.iterationsMax;
    }
    // Small dense blocks iterate inside one dispatch and stop there (lcp_gpu.cpp); the
    // matrix-free and the large dense blocks get every pass up to the cap enqueued.
    const bool allPassesEnqueued =
        stats.matrixFreeBlocks > 0 || stats.lcpNMax > lcp::gpu_layout::kBlockMaxN;
    if (!allPassesEnqueued) {
        return stats.iterationsMax;
    }
    const int cap = stats.iterationCap > 0 ? stats.iterationCap : 2 * stats.lcpNMax;
    return std::max(stats.iterationsMax, cap);
}

void WallDemoScene::fillDrawData(render::DrawData& out) {
    m_scene.fillDrawData(out);
    if (m_overlay.any()) {
        addContactOverlay(m_scene.world(), m_overlay, out);
    }
}

void WallDemoScene::reset() {
    m_stepIndex = 0;
    m_script.rewind();
    keepSettings();
    m_scene.reset();
    clearRun();
}

void WallDemoScene::clearRun() {
    m_grab.reset();
    m_budgetCap = 0;
    m_recentCaps.clear();
    m_askedIterations = 0;
    m_iterationsRun = 0;
    m_alarm.clear();
    m_last = {};
    m_residuals.clear();
}

void WallDemoScene::keepSettings() {
    m_scene.settings().world = m_scene.world().params();
}

Status WallDemoScene::setBackend(Backend backend) {
    rigid::WorldParams& p = m_scene.world().params();
    const lcp::LcpMethod before = p.lcp.method;
    const float omegaBefore = p.lcp.omega;
    if (backend == Backend::kGpu && before != lcp::LcpMethod::kJacobi) {
        // The GPU solver is projected Jacobi only; switching the method keeps the backend
        // usable instead of refusing it for good.
        setMethod(lcp::LcpMethod::kJacobi);
    }
    Status s = m_scene.setBackend(backend, m_shaders);
    if (!s) {
        p.lcp.method = before;
        p.lcp.omega = omegaBefore;
        keepSettings();
        return s;
    }
    if (p.lcp.method != before) {
        char note[160];
        std::snprintf(note, sizeof note,
                      "Gauss-Seidel runs on the CPU only: switched to Jacobi for the GPU "
                      "(omega %.2f%s)",
                      static_cast<double>(p.lcp.omega),
                      m_omegaByHand ? ", yours" : ", its default");
        m_note = note;
    }
    keepSettings();
    return {};
}

int WallDemoScene::pickBody(const render::Ray& ray) {
    const std::vector<rigid::Body>& bodies = m_scene.world().bodies();
    int best = -1;
    float bestT = std::numeric_limits<float>::max();
    for (int i = 0; i < static_cast<int>(bodies.size()); ++i) {
        const rigid::Body& b = bodies[static_cast<std::size_t>(i)];
        if (b.kind != rigid::BodyKind::kBox || b.isStatic()) {
            continue;
        }
        const glm::quat q(b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z);
        const auto t = rayHitsBox(ray, {b.position.x, b.position.y, b.position.z}, q,
                                  {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z});
        if (t && *t < bestT) {
            bestT = *t;
            best = i;
        }
    }
    return best;
}

void WallDemoScene::onPick(const render::Ray& ray, demo::PickAction action) {
    if (action == demo::PickAction::kShoot) {
        const glm::vec3 d = glm::normalize(ray.direction);
        // Start a little in front of the eye so the sphere is visible from its first frame.
        const glm::vec3 from = ray.origin + 1.0f * d;
        m_scene.shoot({from.x, from.y, from.z},
                      {d.x * m_shotSpeed, d.y * m_shotSpeed, d.z * m_shotSpeed});
        m_note = "shot a sphere";
        return;
    }
    if (action == demo::PickAction::kClick) {
        m_note = "ctrl + click removes a brick; drag a brick to pull it";
        return;
    }
    if (action != demo::PickAction::kRemove) {
        return;
    }
    const int i = pickBody(ray);
    if (i < 0) {
        m_note = "no brick under the cursor";
        return;
    }
    const std::int32_t tag = m_scene.world().bodies()[static_cast<std::size_t>(i)].tag;
    m_scene.world().removeBody(i);
    m_note = tag >= 0 ? "removed the brick at column " + std::to_string(tag & 0xffff) + ", row " +
                            std::to_string(tag >> 16)
                      : "removed a box";
}

bool WallDemoScene::beginGrab(const render::Ray& ray) {
    m_grab.reset();
    const int i = pickBody(ray);
    if (i < 0) {
        return false;
    }
    const rigid::Body& b = m_scene.world().bodies()[static_cast<std::size_t>(i)];
    const glm::quat q(b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z);
    const glm::vec3 d = glm::normalize(ray.direction);
    const float t = *rayHitsBox({ray.origin, d}, {b.position.x, b.position.y, b.position.z}, q,
                                {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z});
    const glm::vec3 hit = ray.origin + t * d;
    const rigid::Vec3 at{hit.x, hit.y, hit.z};
    Grab g;
    g.body = i;
    g.tag = b.tag;
    g.localAnchor = rigid::transposeMul(b.rotation, at - b.position);
    g.depthM = t;
    g.target = at;
    g.startPosition = b.position;
    g.startTarget = at;
    m_grab = g;
    m_note = "pulling a brick";
    return true;
}

void WallDemoScene::moveGrab(const render::Ray& ray) {
    if (!m_grab) {
        return;
    }
    const glm::vec3 p = ray.origin + m_grab->depthM * glm::normalize(ray.direction);
    m_grab->target = {p.x, p.y, p.z};
}

void WallDemoScene::endGrab() {
    if (!m_grab) {
        return;
    }
    const std::vector<rigid::Body>& bodies = m_scene.world().bodies();
    if (m_grab->body < static_cast<int>(bodies.size())) {
        m_lastGrabMoves = {
            bodies[static_cast<std::size_t>(m_grab->body)].position - m_grab->startPosition,
            m_grab->target - m_grab->startTarget};
    }
    m_grab.reset();
}

std::optional<std::pair<glm::vec3, glm::vec3>> WallDemoScene::grabLine() {
    if (!m_grab || m_grab->body >= m_scene.world().bodyCount()) {
        return std::nullopt;
    }
    const rigid::Body& b = m_scene.world().bodies()[static_cast<std::size_t>(m_grab->body)];
    const rigid::Vec3 a = b.position + b.rotation * m_grab->localAnchor;
    return std::pair{glm::vec3(a.x, a.y, a.z),
                     glm::vec3(m_grab->target.x, m_grab->target.y, m_grab->target.z)};
}

void WallDemoScene::applyGrab(float dtSeconds) {
    if (!m_grab) {
        return;
    }
    rigid::World& world = m_scene.world();
    int i = m_grab->body;
    // A removal (a scripted event, ctrl + click) shifts indices: follow the tag, or let go.
    if (i >= world.bodyCount() || world.bodies()[static_cast<std::size_t>(i)].tag != m_grab->tag) {
        i = -1;
        for (int k = 0; k < world.bodyCount() && m_grab->tag >= 0; ++k) {
            if (world.bodies()[static_cast<std::size_t>(k)].tag == m_grab->tag) {
                i = k;
            }
        }
        if (i < 0) {
            m_grab.reset();
            return;
        }
        m_grab->body = i;
    }
    rigid::Body& b = world.body(i);  // wakes it and its island
    if (b.isStatic()) {
        return;
    }
    const rigid::Vec3 r = b.rotation * m_grab->localAnchor;
    const rigid::Vec3 offset = m_grab->target - (b.position + r);
    const rigid::Vec3 pointVelocity = b.linearVelocity + rigid::cross(b.angularVelocity, r);
    const float omega0 = 2.0f * 3.14159265f * kGrabHz;
    rigid::Vec3 accel =
        omega0 * omega0 * offset - 2.0f * kGrabDampingRatio * omega0 * pointVelocity;
    const float magnitude = rigid::length(accel);
    if (!(magnitude > 1e-6f)) {
        return;
    }
    if (magnitude > kGrabMaxAcceleration) {
        accel *= kGrabMaxAcceleration / magnitude;
    }
    // The impulse that changes the point's velocity by exactly accel dt: K^-1 accel dt with
    // K = 1/m I - [r]x I^-1 [r]x, the point's inverse effective mass matrix (so gravity sags
    // the point by g / omega0^2 whatever the lever arm).
    const auto toGlm = [](const rigid::Vec3& v) { return glm::vec3(v.x, v.y, v.z); };
    const glm::mat3 invInertia(toGlm(b.invInertiaWorld.c[0]), toGlm(b.invInertiaWorld.c[1]),
                               toGlm(b.invInertiaWorld.c[2]));
    const glm::vec3 rg = toGlm(r);
    const glm::mat3 skew(glm::vec3(0.0f, rg.z, -rg.y), glm::vec3(-rg.z, 0.0f, rg.x),
                         glm::vec3(rg.y, -rg.x, 0.0f));  // skew * v = r x v
    const glm::mat3 k = b.invMass * glm::mat3(1.0f) - skew * invInertia * skew;
    const glm::vec3 j = glm::inverse(k) * (toGlm(accel) * dtSeconds);
    const rigid::Vec3 impulse{j.x, j.y, j.z};
    b.linearVelocity += impulse * b.invMass;
    b.angularVelocity += b.invInertiaWorld * rigid::cross(r, impulse);
    // The spring holds a point, not the attitude: without this a held brick swings about the
    // grab point as an undamped pendulum (and drags the point with it).
    b.angularVelocity *= 1.0f / (1.0f + kGrabAngularDamping * dtSeconds);
}

std::string WallDemoScene::reportLine() {
    int bricks = 0;
    for (const rigid::Body& b : m_scene.world().bodies()) {
        bricks += b.tag >= 0 ? 1 : 0;
    }
    char line[256];
    int n = std::snprintf(line, sizeof line, "wall: bricks %d", bricks);
    if (m_lastGrabMoves) {
        const auto& [body, cursor] = *m_lastGrabMoves;
        std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n),
                      "; last grab: brick moved %.3f %.3f %.3f m, cursor %.3f %.3f %.3f m",
                      static_cast<double>(body.x), static_cast<double>(body.y),
                      static_cast<double>(body.z), static_cast<double>(cursor.x),
                      static_cast<double>(cursor.y), static_cast<double>(cursor.z));
    }
    return line;
}

demo::CameraHome WallDemoScene::cameraHome() const {
    return m_home;
}

void WallDemoScene::traceValues(std::vector<std::pair<std::string, double>>& phasesMs,
                                std::vector<std::pair<std::string, double>>& values) const {
    namedStepValues(m_last, phasesMs, values);
}

void WallDemoScene::drawControls() {
    WallSceneSettings& s = m_scene.settings();
    rigid::WorldParams& p = m_scene.world().params();
    // The panel edits the live world through the settings (its parameter rows write there):
    // the rows that rebuild the scene (size, layout, gap) apply on Enter or release.
    keepSettings();
    const lcp::LcpMethod methodBefore = s.world.lcp.method;
    const float omegaBefore = s.world.lcp.omega;
    ParamPanelEdit edit;
    drawParams(
        wallParams(), [](const ParamInfo& info) { return info.rebuilds; }, s, s, m_scene.backend(),
        m_values, edit);

    ImGui::Separator();
    ImGui::TextUnformatted("LCP solver");
    drawParams(
        wallParams(), [](const ParamInfo& info) { return !info.rebuilds; }, s, s, m_scene.backend(),
        m_values, edit);
    // Switching the method sets its default omega unless omega was set here by hand.
    if (s.world.lcp.omega != omegaBefore) {
        m_omegaByHand = s.world.lcp.omega != rigid::defaultWallOmega(s.world.lcp.method);
    } else if (s.world.lcp.method != methodBefore && !m_omegaByHand) {
        s.world.lcp.omega = rigid::defaultWallOmega(s.world.lcp.method);
    }
    p = s.world;
    ImGui::TextDisabled("omega used %.3f (%s)",
                        static_cast<double>(m_scene.world().lastStats().omega),
                        m_omegaByHand ? "yours" : "the method's default");
    if (!edit.error.empty()) {
        m_note = edit.error;
    }
    const bool rebuild = edit.rebuild;
    ImGui::SliderFloat("step budget ms", &m_solveBudgetMs, 0.0f, 2000.0f, "%.0f",
                       ImGuiSliderFlags_Logarithmic);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Solve time a step may take: fewer iterations are run when the count asked for "
            "would take longer (0 = no budget; the window may then freeze)");
    }
    float dtMs = p.dtSeconds * 1000.0f;
    if (ImGui::SliderFloat("dt ms", &dtMs, 2.0f, 50.0f, "%.2f")) {
        p.dtSeconds = dtMs / 1000.0f;
    }

    ImGui::Separator();
    ImGui::TextUnformatted("Actions");
    if (ImGui::Button("Shoot")) {
        (void)m_scene.applyEvent({0, "shoot", {}, "shoot"});
        m_note = "shot the default sphere";
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120.0f);
    ImGui::SliderFloat("click-shot m/s", &m_shotSpeed, 2.0f, 60.0f, "%.0f");
    ImGui::SetNextItemWidth(110.0f);
    ImGui::InputInt2("col, row", m_brick);
    ImGui::SameLine();
    const std::string at = std::to_string(m_brick[0]) + "," + std::to_string(m_brick[1]);
    for (const char* action : {"remove", "push"}) {
        if (ImGui::Button(action)) {
            SceneEvent e{0,
                         action,
                         {std::to_string(m_brick[0]), std::to_string(m_brick[1])},
                         std::string(action) + ":" + at};
            Status st = m_scene.applyEvent(e);
            m_note = st ? std::string(action) + " brick " + at : st.error().message;
        }
        ImGui::SameLine();
    }
    ImGui::NewLine();
    m_note.draw();
    keepSettings();
    if (rebuild) {
        reset();
        const auto [centre, radius] = m_scene.viewBounds();
        m_home.target = centre;
        m_home.distanceM = radius / std::sin(kHalfFovRadians);
    }
}

void WallDemoScene::drawStats() {
    const rigid::StepStats& s = m_scene.world().lastStats();
    ImGui::Text("step %ld, %d bodies, %s on the %s", m_scene.world().stepCount(), s.bodies,
                lcp::toString(m_scene.world().params().lcp.method), backendName(backend()));
    if (m_scene.world().params().sleep) {
        ImGui::SameLine();
        ImGui::Text("(%d asleep)", s.sleepingBodies);
    }
    ImGui::Text("LCP n %d (largest block %d), contacts %d, islands %d", s.lcpN, s.lcpNMax,
                s.contacts, s.islands);
    const bool broken = !m_alarm.empty();
    ImGui::Text(
        "iterations %.1f mean, %d max; residual %s N s", static_cast<double>(s.iterationsMean),
        s.iterationsMax,
        demo::finiteOr(static_cast<double>(s.residualMax), "%.2e", 1e6, "diverged").c_str());
    if (m_iterationsRun > s.iterationsMax) {
        ImGui::Text("GPU ran %d iterations (%.3f ms each)", m_iterationsRun, m_msPerIteration);
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(
                "The GPU enqueues every pass up to the cap and reads back once: a block that "
                "met the tolerance earlier (%d iterations reported) idles through the rest. "
                "The step budget counts these.",
                s.iterationsMax);
        }
    }
    if (m_budgetCap > 0) {
        ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f),
                           "budget-limited: %d iterations (%.0f ms budget), residual %.2e",
                           m_budgetCap, static_cast<double>(m_solveBudgetMs),
                           static_cast<double>(s.residualMax));
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(
                "The iterations asked for would take longer than the step budget at the last "
                "step's speed; raise the budget (Scene settings) or use fewer iterations");
        }
    }
    // The step budget (above) lowers the cap itself; this line is for the work budget alone.
    const rigid::WorldParams& p0 = m_scene.world().params();
    if (m_budgetCap == 0 && p0.lcp.maxIterations > 0 && s.iterationCap > 0 &&
        s.iterationCap < p0.lcp.maxIterations) {
        ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f),
                           "work-budget cap: %d of %d iterations (%.3g M multiply-adds each)",
                           s.iterationCap, p0.lcp.maxIterations, s.lcpMacs / 1.0e6);
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(
                "The multiply-add budget (Scene settings, work budget M) allowed fewer "
                "iterations than asked for; raise it for a lower residual at a higher cost");
        }
    }
    if (s.divergedBlocks > 0 && !s.lcpError.empty()) {
        ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.3f, 1.0f), "failed in %d blocks: %s",
                           s.divergedBlocks, s.lcpError.c_str());
    } else if (s.divergedBlocks > 0) {
        ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.3f, 1.0f), "diverged in %d blocks: lower omega",
                           s.divergedBlocks);
    }
    ImGui::Text("ms: collide %.2f  assemble %.2f  solve %.2f  integrate %.2f", s.collideMs,
                s.assembleMs, s.solveMs, s.integrateMs);
    // Beyond a metre a penetration only says the solve diverged.
    ImGui::Text(
        "step %.2f ms, penetration %s mm%s", s.totalMs,
        demo::finiteOr(1000.0 * static_cast<double>(s.maxPenetration), "%.1f", 1000.0, "> 1000")
            .c_str(),
        broken ? " (diverged: Reset)" : "");
    if (!m_last.residualHistory.empty()) {
        demo::plotResidualLog("last solve", m_last.residualHistory);
        return;
    }
    // rigid::World does not expose the last solve's per-iteration history, so the plot shows
    // the final residual of each recent step instead.
    m_plot.assign(m_residuals.begin(), m_residuals.end());
    demo::plotResidualLog("residual per step", m_plot);
    ImGui::TextDisabled("final residual of the last %zu steps", m_plot.size());
}

std::unique_ptr<demo::SavedState> WallDemoScene::saveState() {
    return saveAdapterState(m_scene, m_stepIndex, m_script);
}

Status WallDemoScene::restoreState(const demo::SavedState& state) {
    Status s = restoreAdapterState(state, "wall", m_scene, m_stepIndex, m_script);
    if (s) {
        m_alarm.clear();  // a state from the history: run on from it (the check raises it anew)
    }
    return s;
}

}  // namespace ww::app
