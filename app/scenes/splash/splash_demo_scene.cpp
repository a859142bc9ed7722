#include "app/scenes/splash/splash_demo_scene.h"

#include <imgui.h>

#include <algorithm>

#include "app/demo/adapter_state.h"
#include "app/demo/param_widgets.h"

namespace ww::app {

Result<std::unique_ptr<SplashDemoScene>> SplashDemoScene::create(SplashSceneSettings settings) {
    Result<std::unique_ptr<SplashScene>> scene = SplashScene::create(std::move(settings));
    if (!scene) {
        return scene.error();
    }
    return adopt(std::move(scene).value());
}

std::unique_ptr<SplashDemoScene> SplashDemoScene::adopt(std::unique_ptr<SplashScene> scene,
                                                        const gpu::ShaderLibrary* shaders) {
    std::unique_ptr<SplashDemoScene> out(new SplashDemoScene(std::move(scene)));
    out->m_staged = out->m_scene->settings();
    out->m_shaders = shaders;
    return out;
}

Result<std::unique_ptr<demo::DemoScene>> SplashDemoScene::wrap(std::unique_ptr<SimScene> scene,
                                                               DemoAdapterInputs in) {
    if (dynamic_cast<SplashScene*>(scene.get()) == nullptr) {
        return inputError("demo: the splash adapter needs a splash scene");
    }
    std::unique_ptr<SplashDemoScene> out =
        adopt(std::unique_ptr<SplashScene>(static_cast<SplashScene*>(scene.release())), in.shaders);
    out->setScript(std::move(in.script));
    return std::unique_ptr<demo::DemoScene>(std::move(out));
}

void SplashDemoScene::step() {
    ScriptHooks hooks;
    hooks.afterReset = [this] {
        m_alarm.clear();
        m_last = {};
    };
    for (std::string& error : m_script.apply(*m_scene, m_stepIndex, hooks)) {
        m_note = std::move(error);
    }
    ++m_stepIndex;
    m_scene->step(m_last);
    if (m_alarm.empty()) {
        std::vector<std::string> violations;
        m_scene->checkInvariants(m_last, violations);
        if (!violations.empty()) {
            m_alarm = violations.front();
        }
    }
}

void SplashDemoScene::reset() {
    m_stepIndex = 0;
    m_script.rewind();
    m_scene->reset();
    m_alarm.clear();
    m_last = {};
}

Status SplashDemoScene::setBrickDensity(float densityKgM3) {
    SplashSceneSettings s = m_scene->settings();
    SceneOptionValues v;
    readParams(splashParams(), s, v);
    v.brickDensity = densityKgM3;
    if (Status written = writeParams(splashParams(), v, s); !written) {
        return written;
    }
    return rebuildWith(std::move(s));
}

Status SplashDemoScene::rebuildWith(SplashSceneSettings s) {
    if (Status fit = checkSplashFit(s); !fit) {
        m_staged = m_scene->settings();
        return fit;
    }
    s.shot = splash::shotAtWall(s.wall, s.wallXM, s.wallZM);
    s.maxPenetrationM = std::min(0.05f, 0.2f * s.wall.brickHalfExtents.x);
    Result<std::unique_ptr<SplashScene>> rebuilt = SplashScene::create(std::move(s));
    if (rebuilt && m_scene->backend() != Backend::kCpu) {
        // The rebuilt scene runs where this one ran (the same grid and wall fitted there).
        if (Status on = rebuilt.value()->setBackend(m_scene->backend(), m_shaders); !on) {
            rebuilt = on.error();
        }
    }
    if (!rebuilt) {
        m_staged = m_scene->settings();
        return rebuilt.error();
    }
    m_scene = std::move(rebuilt).value();
    m_staged = m_scene->settings();
    m_alarm.clear();
    m_stepIndex = 0;
    m_script.rewind();
    return {};
}

void SplashDemoScene::drawControls() {
    ImGui::Text("Splash: the wall in the pool (%s)", backendName(m_scene->backend()));
    // The splash's own rows (its wall and water come from the wall and water scenes' options):
    // each rebuilds the scene when its edit is finished.
    ParamPanelEdit edit;
    drawParams(
        splashParams(), [](const ParamInfo&) { return true; }, m_staged, m_staged,
        m_scene->backend(), m_values, edit);
    if (!edit.error.empty()) {
        m_note = edit.error;
    }
    if (edit.rebuild) {
        if (Status s = rebuildWith(m_staged); !s) {
            m_note = s.error().message;
        }
    }
    if (ImGui::Button("shoot")) {
        (void)m_scene->applyEvent(SceneEvent{0, "shoot", {}, "shoot"});
    }
    if (!m_note.empty()) {
        ImGui::TextWrapped("%s", m_note.c_str());
    }
}

std::string SplashDemoScene::reportLine() {
    int spheres = 0;
    for (const rigid::Body& b : m_scene->world().world().bodies()) {
        spheres += b.kind == rigid::BodyKind::kSphere ? 1 : 0;
    }
    return "splash: bodies " + std::to_string(m_scene->world().world().bodyCount()) + " (" +
           std::to_string(spheres) + (spheres == 1 ? " sphere)" : " spheres)");
}

void SplashDemoScene::drawStats() {
    forEachPhase(m_last.phases,
                 [](const char* name, double ms) { ImGui::Text("%-12s %7.3f ms", name, ms); });
    forEachStat(m_last.stats, [](const StatDescriptor& d, double value) {
        ImGui::Text("%-18s %g %s", d.name, value, d.unit);
    });
}

Status SplashDemoScene::setBackend(Backend backend) {
    return m_scene->setBackend(backend, m_shaders);
}

void SplashDemoScene::onPick(const render::Ray& ray, demo::PickAction action) {
    if (action != demo::PickAction::kShoot) {
        return;
    }
    const glm::vec3 d = glm::normalize(ray.direction);
    const glm::vec3 from = ray.origin + 1.0f * d;
    const float speed = 25.0f;
    (void)m_scene->applyEvent(SceneEvent{
        0,
        "shoot",
        {std::to_string(from.x), std::to_string(from.y), std::to_string(from.z),
         std::to_string(speed * d.x), std::to_string(speed * d.y), std::to_string(speed * d.z)},
        "shoot"});
}

namespace {
// The splash's history state: the adapter's, and the settings the scene was built with, so
// that a state saved before the panel rebuilt the scene (brick density, size, water depth,
// where the wall stands) comes back with its own bricks and water (and the panel with them).
struct SplashSavedState final : demo::SavedState {
    std::unique_ptr<demo::SavedState> adapter;
    SplashSceneSettings settings;
    std::size_t bytes() const override { return sizeof(*this) + adapter->bytes(); }
};
}  // namespace

std::unique_ptr<demo::SavedState> SplashDemoScene::saveState() {
    std::unique_ptr<demo::SavedState> adapter = saveAdapterState(*m_scene, m_stepIndex, m_script);
    if (!adapter) {
        return nullptr;
    }
    auto s = std::make_unique<SplashSavedState>();
    s->adapter = std::move(adapter);
    s->settings = m_scene->settings();
    return s;
}

Status SplashDemoScene::restoreState(const demo::SavedState& state) {
    const auto* s = dynamic_cast<const SplashSavedState*>(&state);
    if (s == nullptr) {
        return inputError("splash: not a state this scene saved");
    }
    SceneOptionValues saved;
    SceneOptionValues now;
    readParams(splashParams(), s->settings, saved);
    readParams(splashParams(), m_scene->settings(), now);
    const bool same = std::all_of(splashParams().begin(), splashParams().end(),
                                  [&](const ParamRow<SplashSceneSettings>& r) {
                                      return paramText(r.info, saved) == paramText(r.info, now);
                                  });
    if (!same) {
        if (Status made = rebuildWith(s->settings); !made) {
            return made;
        }
    }
    Status restored = restoreAdapterState(*s->adapter, "splash", *m_scene, m_stepIndex, m_script);
    if (restored) {
        m_alarm.clear();  // a state from the history: run on from it (the check raises it anew)
    }
    return restored;
}

demo::CameraHome SplashDemoScene::cameraHome() const {
    const auto [centre, radius] = m_scene->viewBounds();
    demo::CameraHome home;
    home.target = centre;
    home.distanceM = 1.6f * radius;
    home.yawRadians = 0.6f;
    home.pitchRadians = 0.5f;
    return home;
}

}  // namespace ww::app
