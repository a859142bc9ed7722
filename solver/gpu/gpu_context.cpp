#include "solver/gpu/gpu_context.h"

// clang-format off
#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
// clang-format on

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

namespace ww::gpu {

namespace {

GpuContext* g_current = nullptr;

const char* eglErrorName(EGLint code) {
    switch (code) {
        case EGL_SUCCESS:
            return "EGL_SUCCESS";
        case EGL_NOT_INITIALIZED:
            return "EGL_NOT_INITIALIZED";
        case EGL_BAD_ACCESS:
            return "EGL_BAD_ACCESS";
        case EGL_BAD_ALLOC:
            return "EGL_BAD_ALLOC";
        case EGL_BAD_ATTRIBUTE:
            return "EGL_BAD_ATTRIBUTE";
        case EGL_BAD_CONFIG:
            return "EGL_BAD_CONFIG";
        case EGL_BAD_CONTEXT:
            return "EGL_BAD_CONTEXT";
        case EGL_BAD_DISPLAY:
            return "EGL_BAD_DISPLAY";
        case EGL_BAD_MATCH:
            return "EGL_BAD_MATCH";
        case EGL_BAD_PARAMETER:
            return "EGL_BAD_PARAMETER";
        case EGL_BAD_SURFACE:
            return "EGL_BAD_SURFACE";
        default:
            return "EGL error";
    }
}

std::string eglFailure(const char* what) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s failed (%s)", what, eglErrorName(eglGetError()));
    return buf;
}

bool hasExtension(const char* list, const char* name) {
    if (list == nullptr) {
        return false;
    }
    const std::size_t len = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += len) {
        const bool startOk = p == list || p[-1] == ' ';
        const bool endOk = p[len] == ' ' || p[len] == '\0';
        if (startOk && endOk) {
            return true;
        }
    }
    return false;
}

std::string glString(GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return s != nullptr ? s : "";
}

// Loads entry points with GLEW and checks the context can run our compute kernels.
// Under EGL, glewInit() reports GLEW_ERROR_NO_GLX_DISPLAY although the core entry points
// are loaded (GLEW probes GLX after loading GL); that code is success there, and the
// entry points we need are verified one by one instead.
Status initGlAndQueryInfo(bool isEgl, int needMajor, int needMinor, GpuInfo& info) {
    glewExperimental = GL_TRUE;
    const GLenum glewStatus = glewInit();
    const bool glewOk = glewStatus == GLEW_OK || (isEgl && glewStatus == GLEW_ERROR_NO_GLX_DISPLAY);
    if (!glewOk) {
        return Error{ErrorKind::kGpuUnavailable,
                     std::string("glewInit failed: ") +
                         reinterpret_cast<const char*>(glewGetErrorString(glewStatus))};
    }
    glGetError();  // GLEW may leave GL_INVALID_ENUM behind on core profiles

    struct Entry {
        const char* name;
        const void* ptr;
    };
    const Entry needed[] = {
        {"glDispatchCompute", reinterpret_cast<const void*>(glDispatchCompute)},
        {"glMemoryBarrier", reinterpret_cast<const void*>(glMemoryBarrier)},
        {"glBindBufferBase", reinterpret_cast<const void*>(glBindBufferBase)},
        {"glBufferData", reinterpret_cast<const void*>(glBufferData)},
        {"glGetBufferSubData", reinterpret_cast<const void*>(glGetBufferSubData)},
        {"glCreateShader", reinterpret_cast<const void*>(glCreateShader)},
        {"glGetProgramiv", reinterpret_cast<const void*>(glGetProgramiv)},
        {"glClearBufferData", reinterpret_cast<const void*>(glClearBufferData)},
        {"glCopyBufferSubData", reinterpret_cast<const void*>(glCopyBufferSubData)},
        {"glGetIntegeri_v", reinterpret_cast<const void*>(glGetIntegeri_v)},
    };
    for (const Entry& e : needed) {
        if (e.ptr == nullptr) {
            return Error{ErrorKind::kGpuUnavailable,
                         std::string("GL entry point ") + e.name + " is missing"};
        }
    }

    info.vendor = glString(GL_VENDOR);
    info.renderer = glString(GL_RENDERER);
    info.version = glString(GL_VERSION);
    glGetIntegerv(GL_MAJOR_VERSION, &info.major);
    glGetIntegerv(GL_MINOR_VERSION, &info.minor);
    if (info.major * 10 + info.minor < needMajor * 10 + needMinor) {
        std::ostringstream msg;
        msg << "GL " << info.major << "." << info.minor << " (" << info.renderer
            << ") is older than the required " << needMajor << "." << needMinor;
        return Error{ErrorKind::kGpuUnavailable, msg.str()};
    }
    GLint64 ssbo = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
    info.maxSsboBytes = ssbo;
    for (GLuint i = 0; i < 3; ++i) {
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &info.maxWorkgroupSize[i]);
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &info.maxWorkgroupCount[i]);
    }
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &info.maxWorkgroupInvocations);
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &info.maxSharedBytes);
    GLint timerBits = 0;
    glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &timerBits);
    info.timerQueries = timerBits > 0;
    if (glGetError() != GL_NO_ERROR) {
        return Error{ErrorKind::kGpuUnavailable, "querying GL limits raised a GL error"};
    }
    return {};
}

}  // namespace

bool isSoftwareRenderer(std::string_view glRenderer) {
    for (std::string_view name : {"llvmpipe", "softpipe", "swrast", "SwiftShader"}) {
        if (glRenderer.find(name) != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

bool GpuInfo::software() const {
    return isSoftwareRenderer(renderer);
}

std::string GpuInfo::summary() const {
    std::ostringstream s;
    s << renderer << " | GL " << major << "." << minor << " via " << platform << " | max SSBO "
      << (maxSsboBytes >> 20) << " MiB, workgroup " << maxWorkgroupInvocations
      << " invocations, shared " << (maxSharedBytes >> 10) << " KiB";
    return s.str();
}

// The display stays initialized for the life of the process: EGL returns the same display
// for the same platform and device anyway, and re-initializing it loads the driver again
// (about 150 ms on llvmpipe). Contexts are created and destroyed freely on it.
struct GpuContext::Egl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;

    ~Egl() {
        if (display != EGL_NO_DISPLAY && context != EGL_NO_CONTEXT) {
            if (eglGetCurrentContext() == context) {
                eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            }
            eglDestroyContext(display, context);
        }
    }
};

namespace {

// Creates a GL core context of at least the requested version on an initialized display
// and makes it current without a surface. Returns an empty string on success.
std::string makeSurfacelessContext(EGLDisplay display, const HeadlessOptions& options,
                                   EGLContext& out) {
    const char* exts = eglQueryString(display, EGL_EXTENSIONS);
    if (!hasExtension(exts, "EGL_KHR_surfaceless_context")) {
        return "display lacks EGL_KHR_surfaceless_context";
    }
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
        return eglFailure("eglBindAPI(EGL_OPENGL_API)");
    }
    EGLConfig config = nullptr;
    if (!hasExtension(exts, "EGL_KHR_no_config_context")) {
        const EGLint attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLint count = 0;
        if (eglChooseConfig(display, attrs, &config, 1, &count) != EGL_TRUE || count == 0) {
            return "no EGL config supports desktop OpenGL";
        }
    }
    const EGLint ctxAttrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                               options.glMajor,
                               EGL_CONTEXT_MINOR_VERSION,
                               options.glMinor,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               EGL_CONTEXT_OPENGL_DEBUG,
                               options.debug ? EGL_TRUE : EGL_FALSE,
                               EGL_NONE};
    EGLContext ctx = eglCreateContext(display, config, EGL_NO_CONTEXT, ctxAttrs);
    if (ctx == EGL_NO_CONTEXT) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "eglCreateContext(GL %d.%d core)", options.glMajor,
                      options.glMinor);
        return eglFailure(buf);
    }
    if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx) != EGL_TRUE) {
        std::string why = eglFailure("eglMakeCurrent(surfaceless)");
        eglDestroyContext(display, ctx);
        return why;
    }
    out = ctx;
    return {};
}

}  // namespace

Result<std::unique_ptr<GpuContext>> GpuContext::createHeadless(const HeadlessOptions& options) {
    std::vector<std::string> tried;
    const char* clientExts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (clientExts == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     "no EGL client extensions: libEGL has no platform support (install "
                     "libegl-mesa0 and libgl1-mesa-dri)"};
    }
    auto getPlatformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (getPlatformDisplay == nullptr) {
        return Error{ErrorKind::kGpuUnavailable, "EGL lacks eglGetPlatformDisplayEXT"};
    }

    // Each candidate display: (label, platform, native display).
    struct Candidate {
        std::string label;
        EGLenum platform;
        void* native;
        bool softwareDevice = false;  ///< an EGL device that says it is Mesa's software one
    };
    std::vector<Candidate> candidates;
    const bool wantSurfaceless = options.platform != HeadlessPlatform::kDevice;
    const bool wantDevice = options.platform != HeadlessPlatform::kSurfaceless;
    if (wantSurfaceless) {
        if (hasExtension(clientExts, "EGL_MESA_platform_surfaceless")) {
            candidates.push_back({"egl-surfaceless", EGL_PLATFORM_SURFACELESS_MESA, nullptr});
        } else {
            tried.push_back("egl-surfaceless: EGL_MESA_platform_surfaceless not offered");
        }
    }
    if (wantDevice) {
        auto queryDevices =
            reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        if (!hasExtension(clientExts, "EGL_EXT_platform_device") || queryDevices == nullptr) {
            tried.push_back("egl-device: EGL_EXT_platform_device not offered");
        } else {
            EGLDeviceEXT devices[16];
            EGLint count = 0;
            queryDevices(16, devices, &count);
            auto queryDeviceString = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
                eglGetProcAddress("eglQueryDeviceStringEXT"));
            const auto isSoftwareDevice = [&](EGLDeviceEXT d) {
                const char* ext =
                    queryDeviceString != nullptr ? queryDeviceString(d, EGL_EXTENSIONS) : nullptr;
                return ext != nullptr && hasExtension(ext, "EGL_MESA_device_software");
            };
            if (options.deviceIndex >= 0) {
                if (options.deviceIndex >= count) {
                    tried.push_back("egl-device " + std::to_string(options.deviceIndex) +
                                    ": only " + std::to_string(count) + " EGL devices exist");
                } else {
                    candidates.push_back({"egl-device " + std::to_string(options.deviceIndex),
                                          EGL_PLATFORM_DEVICE_EXT, devices[options.deviceIndex],
                                          isSoftwareDevice(devices[options.deviceIndex])});
                }
            } else {
                for (EGLint i = 0; i < count; ++i) {
                    candidates.push_back({"egl-device " + std::to_string(i),
                                          EGL_PLATFORM_DEVICE_EXT, devices[i],
                                          isSoftwareDevice(devices[i])});
                }
                if (count == 0) {
                    tried.push_back("egl-device: eglQueryDevicesEXT found no devices");
                }
            }
        }
    }

    // A software rasterizer is kept only while no candidate gives a hardware GPU: where Mesa is
    // installed beside a GPU's own driver (the usual desktop), Mesa answers the surfaceless
    // platform first, with llvmpipe, and the GPU is one of the EGL devices.
    std::unique_ptr<GpuContext> softwareFallback;
    for (const Candidate& c : candidates) {
        if (c.softwareDevice && softwareFallback) {
            continue;  // another software rasterizer
        }
        auto egl = std::make_unique<Egl>();
        egl->display = getPlatformDisplay(c.platform, c.native, nullptr);
        if (egl->display == EGL_NO_DISPLAY) {
            tried.push_back(c.label + ": " + eglFailure("eglGetPlatformDisplayEXT"));
            continue;
        }
        EGLint major = 0;
        EGLint minor = 0;
        if (eglInitialize(egl->display, &major, &minor) != EGL_TRUE) {
            tried.push_back(c.label + ": " + eglFailure("eglInitialize"));
            continue;
        }
        std::string why = makeSurfacelessContext(egl->display, options, egl->context);
        if (!why.empty()) {
            tried.push_back(c.label + ": " + why);
            continue;
        }
        std::unique_ptr<GpuContext> ctx(new GpuContext());
        ctx->m_info.platform = c.label;
        Status st = initGlAndQueryInfo(true, options.glMajor, options.glMinor, ctx->m_info);
        if (!st) {
            tried.push_back(c.label + ": " + st.error().message);
            continue;  // egl's destructor releases the display
        }
        ctx->m_egl = std::move(egl);
        g_current = ctx.get();
        if (!ctx->m_info.software()) {
            return ctx;  // a fallback, if any, is not current and goes
        }
        if (!softwareFallback) {
            softwareFallback = std::move(ctx);
        }
    }
    if (softwareFallback) {
        softwareFallback->makeCurrent();
        return softwareFallback;
    }

    std::string message = "no OpenGL " + std::to_string(options.glMajor) + "." +
                          std::to_string(options.glMinor) +
                          " core context could be created headless. Tried:";
    if (tried.empty()) {
        tried.push_back("nothing: no EGL platform was selected");
    }
    for (const std::string& t : tried) {
        message += "\n  - " + t;
    }
    message += "\nEGL vendor files (glvnd): " + eglVendorFiles();
    message +=
        "\nUse --backend cpu, or install Mesa (libegl-mesa0, libgl1-mesa-dri), or the GPU "
        "driver's EGL library with its vendor file.";
    return Error{ErrorKind::kGpuUnavailable, message};
}

std::string eglVendorFiles() {
    // Where libglvnd looks: __EGL_VENDOR_LIBRARY_FILENAMES (a list of files, used alone), else
    // __EGL_VENDOR_LIBRARY_DIRS, else /etc/glvnd/egl_vendor.d and /usr/share/glvnd/egl_vendor.d.
    const auto split = [](const char* list) {
        std::vector<std::string> out;
        std::string item;
        for (const char* c = list; *c != '\0'; ++c) {
            if (*c == ':') {
                out.push_back(item);
                item.clear();
            } else {
                item += *c;
            }
        }
        out.push_back(item);
        return out;
    };
    namespace fs = std::filesystem;
    std::vector<std::string> found;
    std::string where;
    std::error_code ec;
    const char* files = std::getenv("__EGL_VENDOR_LIBRARY_FILENAMES");
    const char* dirs = std::getenv("__EGL_VENDOR_LIBRARY_DIRS");
    if (files != nullptr && *files != '\0') {
        where = "__EGL_VENDOR_LIBRARY_FILENAMES";
        for (const std::string& f : split(files)) {
            found.push_back(f + (fs::is_regular_file(f, ec) ? "" : " (missing)"));
        }
    } else {
        const bool fromEnv = dirs != nullptr && *dirs != '\0';
        where = fromEnv ? "__EGL_VENDOR_LIBRARY_DIRS"
                        : "/etc/glvnd/egl_vendor.d, /usr/share/glvnd/egl_vendor.d";
        const std::vector<std::string> list =
            fromEnv ? split(dirs)
                    : std::vector<std::string>{"/etc/glvnd/egl_vendor.d",
                                               "/usr/share/glvnd/egl_vendor.d"};
        for (const std::string& d : list) {
            for (const auto& e : fs::directory_iterator(d, ec)) {
                if (e.path().extension() == ".json") {
                    found.push_back(e.path().string());
                }
            }
        }
    }
    std::string out;
    for (const std::string& f : found) {
        out += (out.empty() ? "" : ", ") + f;
    }
    return (out.empty() ? std::string("none") : out) + " (from " + where + ")";
}

Result<std::unique_ptr<GpuContext>> GpuContext::adoptCurrent() {
    std::unique_ptr<GpuContext> ctx(new GpuContext());
    ctx->m_info.platform = "window";
    Status st = initGlAndQueryInfo(false, 4, 3, ctx->m_info);
    if (!st) {
        return st.error();
    }
    g_current = ctx.get();
    return ctx;
}

GpuContext::~GpuContext() {
    if (g_current == this) {
        g_current = nullptr;
    }
}

void GpuContext::makeCurrent() {
    if (m_egl) {
        eglMakeCurrent(m_egl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_egl->context);
    }
    g_current = this;
}

void GpuContext::finish() {
    glFinish();
}

GpuContext* GpuContext::current() {
    return g_current;
}

}  // namespace ww::gpu
