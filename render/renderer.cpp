#include "render/renderer.h"

#include <GL/glew.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "render/gpu_layout.h"
#include "render/render_target.h"
#include "solver/core/timer.h"
#include "solver/gpu/gl_objects.h"
#include "solver/gpu/gpu_context.h"
#include "solver/gpu/shader_library.h"

namespace ww::render {

namespace {

constexpr int kBoxVertices = 36;
constexpr int kSphereVertices = 24 * 14 * 6;  // kSlices × kStacks × 6 in render_mesh.vert
constexpr int kTimerSlots = 3;
// Towards the key light: high, from the back left of the default view, so shadows fall
// forward-right where the camera sees them.
const glm::vec3 kSunDir = sunDirection();

enum ProgramId {
    kSky,
    kGround,
    kBox,
    kSphere,
    kBoxShadow,
    kSphereShadow,
    kWater,
    kLines,
    kPoints,
    kProgramCount
};

gpu::ProgramSpec programSpecOf(ProgramId id) {
    switch (id) {
        case kSky:
            return {{}, "render_sky.vert", "render_sky.frag", {}};
        case kGround:
            return {{}, "render_ground.vert", "render_ground.frag", {}};
        case kBox:
            return {{}, "render_mesh.vert", "render_mesh.frag", {{"MESH_BOX", "1"}}};
        case kSphere:
            return {{}, "render_mesh.vert", "render_mesh.frag", {{"MESH_SPHERE", "1"}}};
        case kBoxShadow:
            return {{}, "render_mesh.vert", "render_shadow.frag", {{"MESH_BOX", "1"}}};
        case kSphereShadow:
            return {{}, "render_mesh.vert", "render_shadow.frag", {{"MESH_SPHERE", "1"}}};
        case kWater:
            return {{}, "render_water.vert", "render_water.frag", {}};
        case kLines:
            return {{}, "render_overlay.vert", "render_overlay.frag", {{"OVERLAY_LINE", "1"}}};
        case kPoints:
            return {{}, "render_overlay.vert", "render_overlay.frag", {{"OVERLAY_POINT", "1"}}};
        default:
            return {};
    }
}

// The program of `id`; with `cheapShading` its shaders are built with CHEAP_SHADING defined
// (RendererOptions::cheapShading says what changes).
gpu::ProgramSpec programSpec(ProgramId id, bool cheapShading) {
    gpu::ProgramSpec spec = programSpecOf(id);
    if (cheapShading) {
        spec.defines.emplace_back("CHEAP_SHADING", "1");
    }
    return spec;
}

void setVec3(const gpu::Program& p, const char* name, glm::vec3 v) {
    p.set(name, v.x, v.y, v.z);
}

void setMat4(const gpu::Program& p, const char* name, const glm::mat4& m) {
    p.setMat4(name, glm::value_ptr(m));
}

// Grows `buffer` (never shrinks) so it holds at least `bytes`; allocation only on growth.
Status ensureCapacity(gpu::Buffer& buffer, std::size_t bytes, const char* what) {
    if (buffer.valid() && buffer.bytes() >= bytes) {
        return {};
    }
    auto created =
        gpu::Buffer::create(std::max<std::size_t>(bytes + bytes / 2, 256), nullptr, what);
    if (!created) {
        return created.error();
    }
    buffer = std::move(created).value();
    return {};
}

// Uploads `values` into `buffer` (grown if needed) and binds it to SSBO `binding`; nothing
// when there are no values.
template <typename T>
Status uploadInto(gpu::Buffer& buffer, std::span<const T> values, unsigned binding,
                  const char* what) {
    if (values.empty()) {
        return {};
    }
    if (Status s = ensureCapacity(buffer, values.size_bytes(), what); !s) {
        return s;
    }
    buffer.upload(values);
    buffer.bind(binding);
    return {};
}

struct Bounds {
    glm::vec3 lo{1e30f};
    glm::vec3 hi{-1e30f};
    void add(glm::vec3 c, float r) {
        lo = glm::min(lo, c - glm::vec3(r));
        hi = glm::max(hi, c + glm::vec3(r));
    }
    bool empty() const { return lo.x > hi.x; }
};

// Half the side (m) of the light's square view: the casters' bounding sphere and a margin.
float lightRadiusM(const Bounds& casters) {
    const float radius =
        casters.empty() ? 1.0f : std::max(0.5f * glm::length(casters.hi - casters.lo), 0.5f);
    return radius * 1.05f;
}

// An orthographic light covering the bounding sphere of the shadow casters across, and in
// depth everything from the casters down to the ground, where their shadows land.
glm::mat4 lightViewProj(const Bounds& casters) {
    const glm::vec3 center = casters.empty() ? glm::vec3(0.0f) : 0.5f * (casters.lo + casters.hi);
    const float radius = lightRadiusM(casters);
    const glm::vec3 eye = center + kSunDir * (2.0f * radius);
    const glm::vec3 worldUp(0.0f, 1.0f, 0.0f);
    const glm::mat4 view = glm::lookAt(eye, center, worldUp);
    // The ground tilts away from the light across the map: a caster's shadow lands at its own
    // light-space (x, y), up to `radius` from the centre ray, and the ray through the corner
    // highest above the ground travels farthest, (eye.y + up.y·radius) / sun.y (the right
    // axis is horizontal). The far plane reaches there (plus margin), not only the centre
    // ray's ground point, or the far side of every shadow is clipped.
    const glm::vec3 right = glm::normalize(glm::cross(-kSunDir, worldUp));
    const glm::vec3 up = glm::cross(right, -kSunDir);
    const float toGround =
        std::max(eye.y + std::abs(up.y) * radius, 0.0f) / kSunDir.y + 0.1f * radius;
    return glm::ortho(-radius, radius, -radius, radius, 0.5f * radius,
                      std::max(3.5f * radius, toGround)) *
           view;
}

void rebuildWaterIndices(GLuint buffer, int mx, int my, GLsizei& count) {
    std::vector<std::uint32_t> indices;
    indices.reserve(static_cast<std::size_t>(mx - 1) * (my - 1) * 6);
    for (int j = 0; j + 1 < my; ++j) {
        for (int i = 0; i + 1 < mx; ++i) {
            const auto a = static_cast<std::uint32_t>(j * mx + i);
            const auto b = a + 1;
            const auto c = a + static_cast<std::uint32_t>(mx);
            const auto d = c + 1;
            // Counter-clockwise seen from +y (x right, z towards the viewer).
            indices.insert(indices.end(), {a, c, d, a, d, b});
        }
    }
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER,
                 static_cast<GLsizeiptr>(indices.size() * sizeof(std::uint32_t)), indices.data(),
                 GL_STATIC_DRAW);
    count = static_cast<GLsizei>(indices.size());
}

// How far (m) any point of a caster may have moved from where the shadow map drew it: the
// centre's shift plus the rotation's, |R(q)v − R(q')v| <= 2 |q − q'| |v| for unit quaternions
// (a caster added or removed: infinity).
float castersMovedM(std::span<const gpu_layout::BoxInstance> boxes,
                    std::span<const gpu_layout::BoxInstance> drawnBoxes,
                    std::span<const gpu_layout::SphereInstance> spheres,
                    std::span<const gpu_layout::SphereInstance> drawnSpheres) {
    if (boxes.size() != drawnBoxes.size() || spheres.size() != drawnSpheres.size()) {
        return 1e30f;
    }
    auto vec = [](const float* v) { return glm::vec3(v[0], v[1], v[2]); };
    float moved = 0.0f;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const gpu_layout::BoxInstance& a = boxes[i];
        const gpu_layout::BoxInstance& b = drawnBoxes[i];
        const glm::vec4 dq(a.orientation[0] - b.orientation[0], a.orientation[1] - b.orientation[1],
                           a.orientation[2] - b.orientation[2],
                           a.orientation[3] - b.orientation[3]);
        const float reach =
            std::max(glm::length(vec(a.halfExtents)), glm::length(vec(b.halfExtents)));
        moved = std::max(moved, glm::length(vec(a.position) - vec(b.position)) +
                                    glm::length(vec(a.halfExtents) - vec(b.halfExtents)) +
                                    2.0f * glm::length(dq) * reach);
    }
    for (std::size_t i = 0; i < spheres.size(); ++i) {
        const float* a = spheres[i].positionRadius;
        const float* b = drawnSpheres[i].positionRadius;
        moved = std::max(moved, glm::length(vec(a) - vec(b)) + std::abs(a[3] - b[3]));
    }
    return moved;
}

// The uniforms every pass into the offscreen target shares.
struct SceneView {
    glm::mat4 viewProj{1.0f};
    glm::mat4 light{1.0f};  ///< the shadow map's view-projection
    glm::vec3 eye{0.0f};
    float shadowTexel = 0.0f;
};

}  // namespace

struct Renderer::State {
    RendererOptions options;
    gpu::ShaderLibrary library;
    std::array<gpu::Program, kProgramCount> programs;
    GLuint vao = 0;
    GLuint shadowFbo = 0;
    GLuint shadowTexture = 0;
    RenderTarget target;
    gpu::Buffer boxBuffer;
    gpu::Buffer sphereBuffer;
    gpu::Buffer heightBuffer;  // CPU-backend heights, uploaded once per frame
    gpu::Buffer lineBuffer;
    gpu::Buffer pointBuffer;
    GLuint waterIndices = 0;
    int meshX = 0;
    int meshY = 0;
    GLsizei waterIndexCount = 0;
    std::vector<gpu_layout::BoxInstance> boxScratch;  ///< the scene's boxes, then the pool's walls
    std::vector<gpu_layout::SphereInstance> sphereScratch;
    std::vector<gpu_layout::LineInstance> lineScratch;
    std::vector<gpu_layout::PointInstance> pointScratch;
    // What the instance buffers hold: a frame whose casters are the same (a pool's walls, a
    // paused scene) does not upload them.
    std::vector<gpu_layout::BoxInstance> uploadedBoxes;
    std::vector<gpu_layout::SphereInstance> uploadedSpheres;
    // What the shadow map was drawn from: it is kept while no caster moved by more than
    // kShadowKeepTexels of its texels (a wall at rest, whose bricks shift by micrometres).
    std::vector<gpu_layout::BoxInstance> shadowBoxes;
    std::vector<gpu_layout::SphereInstance> shadowSpheres;
    Bounds shadowCasters;
    glm::mat4 shadowLight{0.0f};
    bool shadowValid = false;
    std::array<gpu::TimerQuery, kTimerSlots> timers;
    std::array<bool, kTimerSlots> timerPending{};
    bool timersEnabled = false;
    int frameIndex = 0;
    RenderStats stats;

    /// True when the shadow map drawn earlier still stands for `casters`: every caster (and the
    /// casters' bounds, which place the light) within kShadowKeepTexels texels of where it was.
    bool shadowStillHolds(const Bounds& casters) const;

    // The passes of render(), in order.
    Status uploadInstances(const DrawData& data, const Camera& camera, Bounds& casters);
    void shadowPass(const DrawData& data, const glm::mat4& light);
    Status bindSceneTarget(const Viewport& viewport);
    void bodiesPass(const DrawData& data, const SceneView& view);
    Status waterPass(const WaterSurface& water, const SceneView& view);
    void groundPass(const Camera& camera, const SceneView& view);
    void skyPass(const SceneView& view);
    Status overlayPass(const DrawData& data, const SceneView& view);
    void resolvePass(const Viewport& viewport);

    void drawInstanced(int vertices, std::size_t instances);
    /// Uses a shaded program with the view, light and shadow map uniforms set.
    const gpu::Program& useLit(ProgramId id, const SceneView& view);
};

Renderer::Renderer() = default;

Renderer::~Renderer() {
    shutdown();
}

bool Renderer::initialized() const {
    return m_state != nullptr;
}

const RenderStats& Renderer::stats() const {
    static const RenderStats kEmpty;
    return m_state ? m_state->stats : kEmpty;
}

const RendererOptions& Renderer::options() const {
    static const RendererOptions kDefault;
    return m_state ? m_state->options : kDefault;
}

bool isSoftwareRenderer(std::string_view glRenderer) {
    return gpu::isSoftwareRenderer(glRenderer);
}

const char* toString(RenderQuality q) {
    switch (q) {
        case RenderQuality::kLow:
            return "low";
        case RenderQuality::kHigh:
            return "high";
        case RenderQuality::kAuto:
            break;
    }
    return "auto";
}

RenderQuality resolveQuality(RenderQuality quality, std::string_view glRenderer) {
    if (quality != RenderQuality::kAuto) {
        return quality;
    }
    return isSoftwareRenderer(glRenderer) ? RenderQuality::kLow : RenderQuality::kHigh;
}

RendererOptions rendererOptionsFor(RenderQuality quality, std::string_view glRenderer) {
    RendererOptions o;
    if (resolveQuality(quality, glRenderer) == RenderQuality::kLow) {
        // On a CPU rasterizer the water's triangles and the shadow pass's texels dominate the
        // frame; a 64-vertex mesh samples a 256^2 surface bilinearly (every fourth cell).
        o.shadowMapSize = kLowShadowMapSize;
        o.maxWaterMesh = kLowWaterMesh;
        o.msaaSamples = 0;
        o.renderScale = kLowRenderScale;
        o.cheapShading = true;
    } else {
        o.shadowMapSize = 2048;
        o.maxWaterMesh = 512;
        o.msaaSamples = 4;
    }
    return o;
}

Status Renderer::init(const RendererOptions& options) {
    shutdown();
    if (glCreateProgram == nullptr || glBlitFramebuffer == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     "Renderer::init needs a current GL 4.3 context with GLEW loaded "
                     "(create or adopt a gpu::GpuContext first)"};
    }
    auto state = std::make_unique<State>();
    state->options = options;
    state->options.shadowMapSize = std::clamp(options.shadowMapSize, 256, 8192);
    state->options.maxWaterMesh = std::clamp(options.maxWaterMesh, 2, 4096);
    state->options.renderScale = std::clamp(options.renderScale, 0.25f, 1.0f);
    if (options.msaaSamples == kAutoMsaa) {
        const char* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        const std::string renderer = name != nullptr ? name : "";
        state->options.msaaSamples = isSoftwareRenderer(renderer) ? 0 : 4;
    }
    if (!options.shaderDir.empty()) {
        auto lib = gpu::ShaderLibrary::create(options.shaderDir);
        if (!lib) {
            return lib.error();
        }
        state->library = std::move(lib).value();
    }
    for (int i = 0; i < kProgramCount; ++i) {
        auto program = state->library.build(
            programSpec(static_cast<ProgramId>(i), state->options.cheapShading));
        if (!program) {
            return program.error();
        }
        state->programs[i] = std::move(program).value();
    }

    glGenVertexArrays(1, &state->vao);
    glGenTextures(1, &state->shadowTexture);
    glBindTexture(GL_TEXTURE_2D, state->shadowTexture);
    const int s = state->options.shadowMapSize;
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, s, s, 0, GL_DEPTH_COMPONENT, GL_FLOAT,
                 nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &state->shadowFbo);
    glBindFramebuffer(GL_FRAMEBUFFER, state->shadowFbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, state->shadowTexture,
                           0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    const GLenum fboStatus = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glGenBuffers(1, &state->waterIndices);

    const gpu::GpuContext* ctx = gpu::GpuContext::current();
    state->timersEnabled = ctx != nullptr && ctx->info().timerQueries;
    m_state = std::move(state);
    if (fboStatus != GL_FRAMEBUFFER_COMPLETE) {
        shutdown();
        return Error{ErrorKind::kGpuUnavailable, "shadow map framebuffer is incomplete"};
    }
    if (glGetError() != GL_NO_ERROR) {
        shutdown();
        return Error{ErrorKind::kGpuUnavailable, "creating renderer GL objects raised a GL error"};
    }
    return {};
}

void Renderer::shutdown() {
    if (!m_state) {
        return;
    }
    State& st = *m_state;
    glDeleteVertexArrays(1, &st.vao);
    glDeleteFramebuffers(1, &st.shadowFbo);
    glDeleteTextures(1, &st.shadowTexture);
    glDeleteBuffers(1, &st.waterIndices);
    m_state.reset();
}

void Renderer::setMsaaSamples(int samples) {
    if (m_state && samples != m_state->options.msaaSamples) {
        m_state->options.msaaSamples = samples;
        m_state->target = RenderTarget();  // recreated at the next render()
    }
}

Status Renderer::reloadShaders() {
    if (!m_state) {
        return Error{ErrorKind::kInput, "Renderer::reloadShaders before init"};
    }
    for (int i = 0; i < kProgramCount; ++i) {
        Status s = m_state->library.rebuild(
            programSpec(static_cast<ProgramId>(i), m_state->options.cheapShading),
            m_state->programs[i]);
        if (!s) {
            return s;
        }
    }
    return {};
}

void Renderer::beginFrame() {
    if (!m_state || !m_state->timersEnabled) {
        return;
    }
    for (int i = 0; i < kTimerSlots; ++i) {
        if (m_state->timerPending[i] && m_state->timers[i].available()) {
            m_state->stats.gpuMs = m_state->timers[i].elapsedMs();
            m_state->timerPending[i] = false;
        }
    }
}

// Each frame: uploadInstances, shadowPass, then into the offscreen target bodiesPass,
// waterPass, groundPass and skyPass (front to back, so early depth tests skip hidden pixels:
// it matters on software rasterizers), and resolvePass into the destination.
Status Renderer::render(const DrawData& data, const Camera& camera, const Viewport& viewport) {
    if (!m_state) {
        return Error{ErrorKind::kInput, "Renderer::render before init"};
    }
    State& st = *m_state;
    const Stopwatch clock;
    st.stats.drawCalls = 0;
    st.stats.boxes = static_cast<int>(data.boxes.size());
    st.stats.spheres = static_cast<int>(data.spheres.size());
    st.stats.waterVertices = 0;
    st.stats.waterFromSolverBuffer = false;
    st.stats.overlayLines = static_cast<int>(data.lines.size());
    st.stats.overlayPoints = static_cast<int>(data.points.size());
    if (viewport.width <= 0 || viewport.height <= 0) {
        st.stats.cpuMs = clock.elapsedMs();
        return {};
    }
    const WaterSurface& water = data.water;
    const bool drawWater = water.enabled && water.nx >= 2 && water.ny >= 2;
    if (drawWater && water.heightBuffer == 0 &&
        water.heightsCpu.size() < static_cast<std::size_t>(water.nx) * water.ny) {
        return Error{ErrorKind::kInput,
                     "water surface has neither a GL buffer nor nx*ny CPU heights"};
    }
    const int slot = st.frameIndex % kTimerSlots;
    const bool timed = st.timersEnabled && !st.timerPending[slot];
    if (timed) {
        st.timers[slot].begin();
    }

    Bounds casters;
    if (Status s = st.uploadInstances(data, camera, casters); !s) {
        return s;
    }
    glBindVertexArray(st.vao);
    st.stats.shadowPassSkipped = st.shadowStillHolds(casters);
    if (!st.stats.shadowPassSkipped) {
        st.shadowLight = lightViewProj(casters);
        st.shadowPass(data, st.shadowLight);
        st.shadowBoxes = st.boxScratch;
        st.shadowSpheres = st.sphereScratch;
        st.shadowCasters = casters;
        st.shadowValid = true;
    }
    const float aspect = static_cast<float>(viewport.width) / static_cast<float>(viewport.height);
    // A kept shadow map is looked up with the light it was drawn with.
    const SceneView view{camera.projection(aspect) * camera.view(), st.shadowLight, camera.eye,
                         1.0f / static_cast<float>(st.options.shadowMapSize)};
    if (Status s = st.bindSceneTarget(viewport); !s) {
        return s;
    }
    st.bodiesPass(data, view);
    if (drawWater) {
        if (Status s = st.waterPass(water, view); !s) {
            return s;
        }
    }
    if (data.groundPlane) {
        st.groundPass(camera, view);
    }
    st.skyPass(view);
    if (Status s = st.overlayPass(data, view); !s) {
        return s;
    }
    st.resolvePass(viewport);

    if (timed) {
        st.timers[slot].end();
        st.timerPending[slot] = true;
    }
    ++st.frameIndex;
    st.stats.cpuMs = clock.elapsedMs();
    if (const GLenum err = glGetError(); err != GL_NO_ERROR) {
        return Error{ErrorKind::kGpuUnavailable,
                     "rendering raised GL error " + std::to_string(static_cast<unsigned>(err))};
    }
    return {};
}

std::array<BoxInstance, 4> poolWalls(const WaterSurface& water) {
    const float halfX = 0.5f * static_cast<float>(water.nx - 1) * water.cellSizeM;
    const float halfZ = 0.5f * static_cast<float>(water.ny - 1) * water.cellSizeM;
    // From a little below the ground (no seam where they meet) to the rim.
    const float top = water.baseHeightM + kPoolRimAboveWaterM;
    const float bottom = -0.1f;
    const float halfHeight = 0.5f * (top - bottom);
    const float centreY = 0.5f * (top + bottom);
    const float halfThick = 0.5f * kPoolWallThicknessM;
    const glm::vec4 stone(0.66f, 0.64f, 0.58f, 1.0f);
    std::array<BoxInstance, 4> walls;
    for (int side = 0; side < 2; ++side) {
        const float sign = side == 0 ? -1.0f : 1.0f;
        // The x walls run past the corners so the rim is closed.
        walls[side].position = {sign * (halfX + halfThick), centreY, 0.0f};
        walls[side].halfExtents = {halfThick, halfHeight, halfZ + kPoolWallThicknessM};
        walls[2 + side].position = {0.0f, centreY, sign * (halfZ + halfThick)};
        walls[2 + side].halfExtents = {halfX, halfHeight, halfThick};
    }
    for (BoxInstance& w : walls) {
        w.color = stone;
    }
    return walls;
}

Status Renderer::State::uploadInstances(const DrawData& data, const Camera& camera,
                                        Bounds& casters) {
    // The shadow map covers the casters near what the camera looks at: a projectile far
    // away would otherwise stretch it over the whole range and blur every shadow.
    const float shadowRangeM = std::max(20.0f, 3.0f * glm::length(camera.eye - camera.target));
    auto addCaster = [&](glm::vec3 p, float r) {
        if (glm::length(p - camera.target) < shadowRangeM) {
            casters.add(p, r);
        }
    };
    boxScratch.resize(data.boxes.size());
    for (std::size_t i = 0; i < data.boxes.size(); ++i) {
        boxScratch[i] = gpu_layout::pack(data.boxes[i]);
        addCaster(data.boxes[i].position, glm::length(data.boxes[i].halfExtents));
    }
    if (data.water.enabled && data.water.poolWalls && data.water.nx >= 2 && data.water.ny >= 2) {
        for (const BoxInstance& wall : poolWalls(data.water)) {
            boxScratch.push_back(gpu_layout::pack(wall));
        }
    }
    sphereScratch.resize(data.spheres.size());
    for (std::size_t i = 0; i < data.spheres.size(); ++i) {
        sphereScratch[i] = gpu_layout::pack(data.spheres[i]);
        addCaster(data.spheres[i].position, data.spheres[i].radius);
    }
    // One upload each into buffers that only grow, when the instances changed; the buffers are
    // bound again every frame (the water's heights share binding 0 with the boxes).
    stats.instancesUploaded = false;
    if (uploadedBoxes != boxScratch || uploadedSpheres != sphereScratch) {
        if (Status s = uploadInto(boxBuffer, std::span<const gpu_layout::BoxInstance>(boxScratch),
                                  0, "box instances");
            !s) {
            return s;
        }
        if (Status s =
                uploadInto(sphereBuffer, std::span<const gpu_layout::SphereInstance>(sphereScratch),
                           1, "sphere instances");
            !s) {
            return s;
        }
        uploadedBoxes = boxScratch;
        uploadedSpheres = sphereScratch;
        stats.instancesUploaded = true;
    }
    if (!boxScratch.empty()) {
        boxBuffer.bind(0);
    }
    if (!sphereScratch.empty()) {
        sphereBuffer.bind(1);
    }
    return {};
}

bool Renderer::State::shadowStillHolds(const Bounds& casters) const {
    if (!shadowValid || casters.empty() != shadowCasters.empty()) {
        return false;
    }
    const float toleranceM = kShadowKeepTexels * 2.0f * lightRadiusM(shadowCasters) /
                             static_cast<float>(options.shadowMapSize);
    const float boundsMovedM = casters.empty()
                                   ? 0.0f
                                   : std::max(glm::length(casters.lo - shadowCasters.lo),
                                              glm::length(casters.hi - shadowCasters.hi));
    return boundsMovedM <= toleranceM &&
           castersMovedM(boxScratch, shadowBoxes, sphereScratch, shadowSpheres) <= toleranceM;
}

void Renderer::State::drawInstanced(int vertices, std::size_t instances) {
    glDrawArraysInstanced(GL_TRIANGLES, 0, vertices, static_cast<GLsizei>(instances));
    ++stats.drawCalls;
}

// Boxes and spheres, depth only, from the key light.
void Renderer::State::shadowPass(const DrawData& data, const glm::mat4& light) {
    glBindFramebuffer(GL_FRAMEBUFFER, shadowFbo);
    glViewport(0, 0, options.shadowMapSize, options.shadowMapSize);
    glEnable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_CULL_FACE);
    glClear(GL_DEPTH_BUFFER_BIT);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(2.0f, 4.0f);
    if (!boxScratch.empty()) {
        programs[kBoxShadow].use();
        setMat4(programs[kBoxShadow], "uViewProj", light);
        drawInstanced(kBoxVertices, boxScratch.size());
    }
    if (!data.spheres.empty()) {
        programs[kSphereShadow].use();
        setMat4(programs[kSphereShadow], "uViewProj", light);
        drawInstanced(kSphereVertices, data.spheres.size());
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
}

// The offscreen target, (re)created at the viewport's size times renderScale, bound and
// cleared.
Status Renderer::State::bindSceneTarget(const Viewport& viewport) {
    const float scale = options.renderScale;
    const int width =
        std::max(1, static_cast<int>(std::lround(scale * static_cast<float>(viewport.width))));
    const int height =
        std::max(1, static_cast<int>(std::lround(scale * static_cast<float>(viewport.height))));
    if (!target.valid() || target.width() != width || target.height() != height) {
        auto t = RenderTarget::create(width, height, scale < 1.0f ? 0 : options.msaaSamples);
        if (!t) {
            return t.error();
        }
        target = std::move(t).value();
    }
    stats.targetWidth = width;
    stats.targetHeight = height;
    target.bind();
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, shadowTexture);
    glEnable(GL_DEPTH_TEST);
    glDepthMask(GL_TRUE);
    return {};
}

const gpu::Program& Renderer::State::useLit(ProgramId id, const SceneView& view) {
    const gpu::Program& p = programs[id];
    p.use();
    setMat4(p, "uViewProj", view.viewProj);
    setVec3(p, "uSunDir", kSunDir);
    setVec3(p, "uEye", view.eye);
    setMat4(p, "uLightViewProj", view.light);
    p.set("uShadowMap", 0);
    p.set("uShadowTexel", view.shadowTexel);
    return p;
}

// Instanced boxes and spheres, back faces culled.
void Renderer::State::bodiesPass(const DrawData& data, const SceneView& view) {
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
    if (!boxScratch.empty()) {
        useLit(kBox, view);
        drawInstanced(kBoxVertices, boxScratch.size());
    }
    if (!data.spheres.empty()) {
        useLit(kSphere, view);
        drawInstanced(kSphereVertices, data.spheres.size());
    }
    glDisable(GL_CULL_FACE);
}

// The height field: heights bound from the solver's SSBO or uploaded from the CPU, drawn as
// an indexed mesh of at most maxWaterMesh vertices a side.
Status Renderer::State::waterPass(const WaterSurface& water, const SceneView& view) {
    if (water.heightBuffer != 0) {
        // Heights written by the solver's compute kernels: make them visible to vertex
        // shader reads, then bind the solver's buffer itself.
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, water.heightBuffer);
        stats.waterFromSolverBuffer = true;
    } else {
        const std::size_t count = static_cast<std::size_t>(water.nx) * water.ny;
        if (Status s = uploadInto(heightBuffer, water.heightsCpu.first(count), 0, "water heights");
            !s) {
            return s;
        }
    }
    const int mx = std::min(water.nx, options.maxWaterMesh);
    const int my = std::min(water.ny, options.maxWaterMesh);
    if (mx != meshX || my != meshY) {
        glBindVertexArray(vao);
        rebuildWaterIndices(waterIndices, mx, my, waterIndexCount);
        meshX = mx;
        meshY = my;
    }
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, waterIndices);
    const gpu::Program& p = useLit(kWater, view);
    p.set("uNx", water.nx);
    p.set("uNy", water.ny);
    p.set("uMeshX", mx);
    p.set("uMeshY", my);
    p.set("uCellM", water.cellSizeM);
    p.set("uBaseM", water.baseHeightM);
    glDrawElements(GL_TRIANGLES, waterIndexCount, GL_UNSIGNED_INT, nullptr);
    ++stats.drawCalls;
    stats.waterVertices = mx * my;
    return {};
}

// The plane y = 0 around the camera target, its grid fading out with distance.
void Renderer::State::groundPass(const Camera& camera, const SceneView& view) {
    const gpu::Program& p = useLit(kGround, view);
    const float dist = glm::length(camera.eye - camera.target);
    const float half = std::max(60.0f, 20.0f * dist);
    p.set("uCenter", camera.target.x, camera.target.z);
    p.set("uHalfSizeM", half);
    p.set("uFadeStartM", std::max(15.0f, 2.5f * dist));
    p.set("uFadeEndM", 0.9f * half);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    ++stats.drawCalls;
}

// Sky last, at the far plane (depth 1): only where nothing else was drawn.
void Renderer::State::skyPass(const SceneView& view) {
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    const gpu::Program& p = useLit(kSky, view);
    setMat4(p, "uInvViewProj", glm::inverse(view.viewProj));
    glDrawArrays(GL_TRIANGLES, 0, 3);
    ++stats.drawCalls;
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
}

// Lines and points over everything (no depth test: contacts lie between bodies), one
// instanced draw each.
Status Renderer::State::overlayPass(const DrawData& data, const SceneView& view) {
    if (data.lines.empty() && data.points.empty()) {
        return {};
    }
    lineScratch.resize(data.lines.size());
    std::transform(data.lines.begin(), data.lines.end(), lineScratch.begin(),
                   [](const OverlayLine& l) { return gpu_layout::pack(l); });
    pointScratch.resize(data.points.size());
    std::transform(data.points.begin(), data.points.end(), pointScratch.begin(),
                   [](const OverlayPoint& p) { return gpu_layout::pack(p); });
    if (Status s = uploadInto(lineBuffer, std::span<const gpu_layout::LineInstance>(lineScratch), 2,
                              "overlay lines");
        !s) {
        return s;
    }
    if (Status s = uploadInto(pointBuffer, std::span<const gpu_layout::PointInstance>(pointScratch),
                              3, "overlay points");
        !s) {
        return s;
    }
    glDisable(GL_DEPTH_TEST);
    for (auto [id, count, widthPx] : {std::tuple{kLines, data.lines.size(), data.lineWidthPx},
                                      std::tuple{kPoints, data.points.size(), data.pointSizePx}}) {
        if (count == 0) {
            continue;
        }
        const gpu::Program& p = programs[id];
        p.use();
        setMat4(p, "uViewProj", view.viewProj);
        p.set("uViewportPx", static_cast<float>(target.width()),
              static_cast<float>(target.height()));
        p.set("uWidthPx", std::max(widthPx * options.renderScale, 1.0f));
        drawInstanced(6, count);
    }
    glEnable(GL_DEPTH_TEST);
    return {};
}

// The MSAA resolve (or copy) into the destination; leaves the destination bound.
void Renderer::State::resolvePass(const Viewport& viewport) {
    target.blitTo(viewport.framebuffer, viewport.x, viewport.y, viewport.width, viewport.height);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
    glViewport(viewport.x, viewport.y, viewport.width, viewport.height);
}

}  // namespace ww::render
