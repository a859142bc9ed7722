// The GPU compute context: an OpenGL 4.3+ core context, either adopted from a window the
// desktop app created (GLFW) or created headless through EGL (no X server needed).
//
// Headless creation tries, in order, Mesa's surfaceless platform
// (EGL_PLATFORM_SURFACELESS_MESA; software llvmpipe too) and then each device of
// EGL_EXT_platform_device (how NVIDIA servers run headless). Every failure is returned as
// an Error that lists what was tried and why each attempt failed; nothing here crashes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "solver/core/result.h"

namespace ww::gpu {

/// What the driver reports about itself; limits are what our kernels must respect.
struct GpuInfo {
    std::string vendor;
    std::string renderer;
    std::string version;
    std::string platform;  ///< "egl-surfaceless", "egl-device N" or "window"
    int major = 0;
    int minor = 0;
    std::int64_t maxSsboBytes = 0;  ///< GL_MAX_SHADER_STORAGE_BLOCK_SIZE
    std::array<int, 3> maxWorkgroupSize{};
    std::array<int, 3> maxWorkgroupCount{};
    int maxWorkgroupInvocations = 0;
    int maxSharedBytes = 0;  ///< GL_MAX_COMPUTE_SHARED_MEMORY_SIZE
    bool timerQueries = true;

    std::string summary() const;  ///< one line: renderer, GL version, key limits
    /// The GL rasterizes on the CPU (isSoftwareRenderer of `renderer`).
    bool software() const;
};

/// True for GL implementations that rasterize on the CPU (Mesa llvmpipe, softpipe, swrast;
/// SwiftShader), from the GL_RENDERER string.
bool isSoftwareRenderer(std::string_view glRenderer);

/// Which headless platform to use; kAuto tries surfaceless first, then devices.
enum class HeadlessPlatform { kAuto, kSurfaceless, kDevice };

/// The EGL vendor files libglvnd would load, and where it looks for them (for error messages:
/// a GPU server without its driver's vendor file gets no hardware EGL).
std::string eglVendorFiles();

struct HeadlessOptions {
    HeadlessPlatform platform = HeadlessPlatform::kAuto;
    int deviceIndex = -1;  ///< with kDevice: which EGL device; -1 = try each
    int glMajor = 4;       ///< minimum GL version required (core profile)
    int glMinor = 3;
    bool debug = false;  ///< request a debug context
};

class GpuContext {
  public:
    /// Creates a headless context through EGL and makes it current on this thread.
    static Result<std::unique_ptr<GpuContext>> createHeadless(const HeadlessOptions& options = {});
    /// Wraps the context that is current on this thread (e.g. a GLFW window's) after
    /// checking it is GL 4.3+ with compute shaders. Does not own the context.
    static Result<std::unique_ptr<GpuContext>> adoptCurrent();

    ~GpuContext();
    GpuContext(const GpuContext&) = delete;
    GpuContext& operator=(const GpuContext&) = delete;

    const GpuInfo& info() const { return m_info; }
    /// Makes this context current on the calling thread (headless contexts only).
    void makeCurrent();
    /// Blocks until all submitted GPU work is done (glFinish).
    void finish();

    /// The context that was created or adopted last and is still alive; nullptr if none.
    static GpuContext* current();

  private:
    GpuContext() = default;
    struct Egl;
    std::unique_ptr<Egl> m_egl;  ///< null for adopted contexts
    GpuInfo m_info;
};

}  // namespace ww::gpu
