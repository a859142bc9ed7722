// The scene-agnostic renderer: draws a DrawData (boxes, spheres, water height field,
// ground) as seen by a Camera into a viewport of a framebuffer. Shaped like a Dear ImGui
// backend: init / shutdown / beginFrame / render, all state in one struct, no globals.
//
// Each frame, one function per pass (renderer.cpp): uploadInstances (boxes and spheres into
// instance SSBOs); shadowPass (depth only, into the key light's orthographic shadow map,
// fitted to the casters' bounding sphere); then into a multisampled offscreen target
// bodiesPass, waterPass (whose vertex shader reads heights straight from the solver's SSBO),
// groundPass, skyPass and overlayPass (debug lines and points on top); resolvePass (MSAA
// resolve into the destination framebuffer, 0 = the window). Works under a window context
// and under a headless EGL context alike.
#pragma once

#include <array>

#include <memory>
#include <string>
#include <string_view>

#include "render/camera.h"
#include "render/draw_data.h"
#include "solver/core/result.h"

namespace ww::render {

/// RendererOptions::msaaSamples value that picks the sample count from the GL renderer.
inline constexpr int kAutoMsaa = -1;

/// The pool's walls drawn around a water surface (stone boxes from the ground to a rim this
/// far above the rest level, this thick); render_water.frag shows their inner faces and the
/// tiled floor through the water.
inline constexpr float kPoolRimAboveWaterM = 0.08f;
inline constexpr float kPoolWallThicknessM = 0.25f;
/// The four walls around `water` (its grid spans nx-1 by ny-1 cells, centred on the origin).
std::array<BoxInstance, 4> poolWalls(const WaterSurface& water);

/// True for GL implementations that rasterize on the CPU (Mesa llvmpipe, softpipe, swrast;
/// SwiftShader), from the GL_RENDERER string.
bool isSoftwareRenderer(std::string_view glRenderer);

/// How much the picture may cost: kLow for software rasterizers (kLowShadowMapSize² shadow
/// map, water mesh at most kLowWaterMesh vertices a side, no MSAA, the scene drawn at
/// kLowRenderScale of the viewport per side and upscaled, cheapShading), kHigh otherwise
/// (2048², 512, 4x MSAA, full size, full shading).
enum class RenderQuality { kAuto, kLow, kHigh };
const char* toString(RenderQuality q);

struct RendererOptions;
/// The options of a quality level; kAuto resolves from `glRenderer` (isSoftwareRenderer).
RendererOptions rendererOptionsFor(RenderQuality quality, std::string_view glRenderer);
/// kAuto resolved from `glRenderer`.
RenderQuality resolveQuality(RenderQuality quality, std::string_view glRenderer);

struct RendererOptions {
    /// 0 or 1 = no multisampling; kAutoMsaa = 4 on hardware, off on software rasterizers
    /// (llvmpipe pays for 4× MSAA on the water's small triangles several times over).
    int msaaSamples = 4;
    int shadowMapSize = 2048;  ///< texels per side
    int maxWaterMesh = 512;    ///< water mesh vertices per side at most (bilinear beyond)
    std::string shaderDir;     ///< override folder for live shader editing ("" = embedded)
    /// The scene is drawn at this fraction of the viewport's width and height (clamped to
    /// 0.25-1) and upscaled bilinearly by the resolve; what is drawn into the destination
    /// afterwards (the demo's panel) stays sharp. Below 1 the offscreen target is single-sampled
    /// (a multisample resolve cannot scale).
    float renderScale = 1.0f;
    /// Cheaper fragment shading for CPU rasterizers (the shaders' CHEAP_SHADING): one
    /// shadow-map tap instead of four (bodies, ground); on a water mesh coarser than the grid
    /// the normals per pixel from the nearest grid sample's central differences (four height
    /// fetches) instead of bilinear ones (sixteen); integer powers by multiplication instead of
    /// pow in the water and the ground's horizon; no specular highlight on the ground.
    bool cheapShading = false;
};

/// RenderQuality::kLow's renderScale: a quarter of the pixels to shade.
inline constexpr float kLowRenderScale = 0.5f;
/// RenderQuality::kLow's water mesh, vertices a side at most: llvmpipe shades every triangle
/// in whole 4×4 pixel blocks, so a mesh of one- or two-pixel triangles costs several times its
/// pixels; the normals stay per pixel (cheapShading), so waves shorter than a mesh cell show.
inline constexpr int kLowWaterMesh = 64;
/// RenderQuality::kLow's shadow map, texels a side.
inline constexpr int kLowShadowMapSize = 512;

/// The shadow map is redrawn when a caster (or the casters' bounds, which place the light) has
/// moved by more than this many shadow-map texels since it was drawn: a wall at rest, whose
/// bricks shift by micrometres each step, keeps its shadow map.
inline constexpr float kShadowKeepTexels = 0.25f;

/// Where a frame goes: a rectangle (GL convention, origin bottom-left) of a framebuffer.
struct Viewport {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    unsigned framebuffer = 0;  ///< 0 = the default (window) framebuffer
};

/// What the last frames cost; read by the demo panel and the tests.
struct RenderStats {
    double cpuMs = 0.0;   ///< CPU time of the last render() call (submission)
    double gpuMs = -1.0;  ///< GPU time of the most recent finished frame; −1 if unknown
    int drawCalls = 0;
    int boxes = 0;
    int spheres = 0;
    int waterVertices = 0;
    bool waterFromSolverBuffer = false;  ///< heights bound from the solver's SSBO (no copy)
    int overlayLines = 0;
    int overlayPoints = 0;
    /// The shadow map was kept from an earlier frame: no caster moved by more than
    /// kShadowKeepTexels of its texels since it was drawn.
    bool shadowPassSkipped = false;
    /// Box and sphere instances were uploaded this frame (false: unchanged since the last).
    bool instancesUploaded = false;
    int targetWidth = 0;  ///< the offscreen target the scene was drawn into (renderScale)
    int targetHeight = 0;
};

/// Unit vector towards the key light (the sun) that lights and shadows every frame.
inline glm::vec3 sunDirection() {
    return glm::normalize(glm::vec3(-0.55f, 0.9f, 0.45f));
}

class Renderer {
  public:
    Renderer();
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /// Compiles the shaders and creates GL objects; needs a current GL 4.3 context.
    Status init(const RendererOptions& options = {});
    /// Releases every GL object; safe to call twice. The context must still be current.
    void shutdown();
    bool initialized() const;

    /// Collects GPU timings of earlier frames; call once per frame before render().
    void beginFrame();
    /// Draws `data` from `camera` into `viewport`. A 0×0 viewport (minimized window) draws
    /// nothing and succeeds.
    Status render(const DrawData& data, const Camera& camera, const Viewport& viewport);
    /// Changes the multisampling of the offscreen target (0 or 1 = off) from the next frame.
    void setMsaaSamples(int samples);
    /// Recompiles every program from the shader folder; keeps the old ones on failure.
    Status reloadShaders();

    const RenderStats& stats() const;
    /// The options in effect (kAutoMsaa resolved to a sample count).
    const RendererOptions& options() const;

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace ww::render
