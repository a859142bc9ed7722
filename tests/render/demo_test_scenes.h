// Test-only DemoScenes (never shipped): a static brick wall that loses the brick you click
// and fires spheres, and a pool whose CPU heights hold analytic ripples from drops. They
// exercise the demo loop, picking and the panel without any solver.
#pragma once

#include <imgui.h>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "app/demo/demo_panel.h"
#include "app/demo/demo_scene.h"
#include "test_scene.h"

namespace ww::test {

/// Distance along `ray` to an oriented box, or nullopt (slab test in the box frame).
inline std::optional<float> rayBox(const render::Ray& ray, const render::BoxInstance& box) {
    const glm::quat inv = glm::inverse(box.orientation);
    const glm::vec3 o = inv * (ray.origin - box.position);
    const glm::vec3 d = inv * ray.direction;
    float t0 = 0.0f;
    float t1 = std::numeric_limits<float>::max();
    for (int k = 0; k < 3; ++k) {
        if (std::abs(d[k]) < 1e-9f) {
            if (std::abs(o[k]) > box.halfExtents[k]) {
                return std::nullopt;
            }
            continue;
        }
        float a = (-box.halfExtents[k] - o[k]) / d[k];
        float b = (box.halfExtents[k] - o[k]) / d[k];
        if (a > b) {
            std::swap(a, b);
        }
        t0 = std::max(t0, a);
        t1 = std::min(t1, b);
        if (t0 > t1) {
            return std::nullopt;
        }
    }
    return t0;
}

class TestWallScene : public demo::DemoScene {
  public:
    TestWallScene() { reset(); }
    const char* name() const override { return "wall"; }
    void step() override {
        ++m_steps;
        for (Projectile& p : m_projectiles) {
            p.velocity.y -= 9.81f * kDt;
            p.sphere.position += p.velocity * kDt;
        }
    }
    void reset() override {
        m_boxes = makeWall(10, 6, glm::vec3(0.25f, 0.15f, 0.2f), 0.0f, true);
        m_projectiles.clear();
        m_steps = 0;
    }
    void fillDrawData(render::DrawData& out) override {
        out.boxes = m_boxes;
        for (const Projectile& p : m_projectiles) {
            out.spheres.push_back(p.sphere);
        }
    }
    void drawControls() override {
        ImGui::SliderFloat("shot speed m/s", &m_shotSpeed, 1.0f, 40.0f);
    }
    void drawStats() override {
        ImGui::Text("boxes %zu, projectiles %zu, steps %d", m_boxes.size(), m_projectiles.size(),
                    m_steps);
        std::vector<float> r(40);
        for (std::size_t i = 0; i < r.size(); ++i) {
            r[i] = std::pow(0.7f, static_cast<float>(i));
        }
        demo::plotResidualLog("residual", r);
    }
    Status setBackend(Backend b) override {
        if (b == Backend::kGpu && !m_allowGpu) {
            return inputError("test scene has no GPU backend");
        }
        m_backend = b;
        return {};
    }
    Backend backend() const override { return m_backend; }
    void onPick(const render::Ray& ray, demo::PickAction action) override {
        if (action == demo::PickAction::kShoot) {
            Projectile p;
            p.sphere.position = ray.origin + ray.direction * 0.5f;
            p.sphere.radius = 0.12f;
            p.velocity = ray.direction * m_shotSpeed;
            m_projectiles.push_back(p);
            return;
        }
        if (action != demo::PickAction::kRemove) {
            return;
        }
        std::optional<std::size_t> best;
        float bestT = std::numeric_limits<float>::max();
        for (std::size_t i = 0; i < m_boxes.size(); ++i) {
            if (auto t = rayBox(ray, m_boxes[i]); t && *t < bestT) {
                bestT = *t;
                best = i;
            }
        }
        if (best) {
            m_boxes.erase(m_boxes.begin() + static_cast<std::ptrdiff_t>(*best));
        }
    }
    demo::CameraHome cameraHome() const override { return {{0.0f, 0.9f, 0.0f}, 6.5f, 0.45f, 0.3f}; }

    std::vector<render::BoxInstance> m_boxes;
    bool m_allowGpu = true;

  private:
    struct Projectile {
        render::SphereInstance sphere;
        glm::vec3 velocity{0.0f};
    };
    static constexpr float kDt = 1.0f / 60.0f;
    std::vector<Projectile> m_projectiles;
    Backend m_backend = Backend::kCpu;
    float m_shotSpeed = 15.0f;
    int m_steps = 0;
};

class TestPoolScene : public demo::DemoScene {
  public:
    explicit TestPoolScene(bool initialDrop = true) : m_initialDrop(initialDrop) { reset(); }
    const char* name() const override { return "water"; }
    void step() override {
        m_time += 1.0f / 60.0f;
        evaluate();
    }
    void reset() override {
        m_drops.clear();
        m_time = 0.0f;
        if (m_initialDrop) {
            m_drops.push_back({glm::vec2(0.6f, -0.4f), -0.6f});
        }
        m_heights.assign(static_cast<std::size_t>(kN) * kN, 0.0f);
        evaluate();
    }
    void fillDrawData(render::DrawData& out) override {
        out.water.nx = kN;
        out.water.ny = kN;
        out.water.cellSizeM = kH;
        out.water.baseHeightM = 0.35f;
        out.water.heightsCpu = m_heights;
        out.water.enabled = true;
        out.boxes = poolRim(kN, kN, kH, 0.45f);
    }
    void drawControls() override { ImGui::Text("drops %zu", m_drops.size()); }
    void drawStats() override { ImGui::Text("t = %.2f s", static_cast<double>(m_time)); }
    Status setBackend(Backend b) override {
        m_backend = b;
        return {};
    }
    Backend backend() const override { return m_backend; }
    void onPick(const render::Ray& ray, demo::PickAction /*action*/) override {
        if (ray.direction.y >= 0.0f) {
            return;
        }
        const float t = (0.35f - ray.origin.y) / ray.direction.y;
        const glm::vec3 p = ray.origin + t * ray.direction;
        m_drops.push_back({glm::vec2(p.x, p.z), m_time});
    }
    demo::CameraHome cameraHome() const override { return {{0.0f, 0.2f, 0.0f}, 8.0f, 0.5f, 0.55f}; }

  private:
    static constexpr int kN = 128;
    static constexpr float kH = 0.045f;
    struct Drop {
        glm::vec2 at;
        float bornS;
    };
    // Outgoing rings: a wave packet travelling at 0.8 m/s, decaying as it spreads.
    void evaluate() {
        std::fill(m_heights.begin(), m_heights.end(), 0.0f);
        for (const Drop& d : m_drops) {
            const float front = 0.8f * (m_time - d.bornS);
            for (int j = 0; j < kN; ++j) {
                for (int i = 0; i < kN; ++i) {
                    const float x = (static_cast<float>(i) - 0.5f * (kN - 1)) * kH;
                    const float z = (static_cast<float>(j) - 0.5f * (kN - 1)) * kH;
                    const float r = glm::length(glm::vec2(x, z) - d.at);
                    const float env = std::exp(-(r - front) * (r - front) / 0.5f);
                    m_heights[static_cast<std::size_t>(j) * kN + i] +=
                        0.04f * env * std::cos(14.0f * (r - front)) / (1.0f + 1.5f * r);
                }
            }
        }
    }
    bool m_initialDrop;
    std::vector<Drop> m_drops;
    std::vector<float> m_heights;
    float m_time = 0.0f;
    Backend m_backend = Backend::kCpu;
};

}  // namespace ww::test
