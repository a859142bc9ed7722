#include "solver/gpu/gl_objects.h"

#include <GL/glew.h>

#include <atomic>
#include <cassert>

#include "solver/gpu/gpu_context.h"

namespace ww::gpu {

namespace {
std::atomic<long> g_buffers{0};
std::atomic<long> g_programs{0};
std::atomic<long> g_queries{0};
std::atomic<long> g_dispatches{0};
std::atomic<long> g_readbacks{0};
}  // namespace

TrafficCounts trafficCounts() {
    return {g_dispatches.load(std::memory_order_relaxed), g_readbacks.load(std::memory_order_relaxed)};
}

LiveObjectCounts liveObjectCounts() {
    return {g_buffers.load(), g_programs.load(), g_queries.load()};
}

// ---- Buffer ----------------------------------------------------------------------------

Result<Buffer> Buffer::create(std::size_t bytes, const void* data, const char* what) {
    const GpuContext* ctx = GpuContext::current();
    if (ctx == nullptr) {
        return Error{ErrorKind::kGpuUnavailable, std::string(what) + ": no current GPU context"};
    }
    const std::int64_t limit = ctx->info().maxSsboBytes;
    if (limit > 0 && static_cast<std::int64_t>(bytes) > limit) {
        return Error{ErrorKind::kGpuLimit,
                     std::string(what) + " needs " + std::to_string(bytes >> 20) +
                         " MiB but the GPU's largest shader storage block is " +
                         std::to_string(limit >> 20) +
                         " MiB (GL_MAX_SHADER_STORAGE_BLOCK_SIZE); use a smaller problem "
                         "or --backend cpu"};
    }
    Buffer b;
    glCreateBuffers(1, &b.m_name);
    // Always allocate at least 4 bytes so zero-length problems still bind a valid buffer.
    const std::size_t allocBytes = bytes > 0 ? bytes : 4;
    glGetError();
    glNamedBufferData(b.m_name, static_cast<GLsizeiptr>(allocBytes), data, GL_DYNAMIC_DRAW);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        return Error{ErrorKind::kGpuLimit, std::string(what) + ": GPU out of memory allocating " +
                                               std::to_string(bytes) + " bytes"};
    }
    b.m_bytes = bytes;
    ++g_buffers;
    return b;
}

Result<Buffer> Buffer::createStaging(std::size_t bytes, const char* what) {
    if (GpuContext::current() == nullptr) {
        return Error{ErrorKind::kGpuUnavailable, std::string(what) + ": no current GPU context"};
    }
    if (!(GLEW_VERSION_4_4 || GLEW_ARB_buffer_storage) || glNamedBufferStorage == nullptr ||
        glMapNamedBufferRange == nullptr) {
        return Error{ErrorKind::kGpuUnavailable,
                     std::string(what) + ": the context has no persistent buffer mapping"};
    }
    Buffer b;
    glCreateBuffers(1, &b.m_name);
    ++g_buffers;
    const std::size_t allocBytes = bytes > 0 ? bytes : 4;
    constexpr GLbitfield kFlags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glGetError();
    glNamedBufferStorage(b.m_name, static_cast<GLsizeiptr>(allocBytes), nullptr, kFlags);
    if (glGetError() != GL_NO_ERROR) {
        return Error{ErrorKind::kGpuLimit, std::string(what) + ": cannot allocate " +
                                               std::to_string(bytes) + " mappable bytes"};
    }
    b.m_mapped =
        glMapNamedBufferRange(b.m_name, 0, static_cast<GLsizeiptr>(allocBytes), kFlags);
    if (b.m_mapped == nullptr) {
        return Error{ErrorKind::kGpuLimit, std::string(what) + ": cannot map " +
                                               std::to_string(bytes) + " bytes"};
    }
    b.m_bytes = bytes;
    return b;
}

Fence::~Fence() {
    if (m_sync != nullptr) {
        glDeleteSync(static_cast<GLsync>(m_sync));
    }
}

void Fence::place() {
    if (m_sync != nullptr) {
        glDeleteSync(static_cast<GLsync>(m_sync));
    }
    m_sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

void Fence::wait() {
    if (m_sync == nullptr) {
        return;
    }
    // Flush once, then wait in 1 s slices (a lost context would otherwise hang here forever:
    // give up after a minute and let the next GL call report the error).
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    for (int i = 0; i < 60; ++i) {
        const GLenum r = glClientWaitSync(static_cast<GLsync>(m_sync), flags, 1000000000ull);
        if (r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED || r == GL_WAIT_FAILED) {
            break;
        }
        flags = 0;
    }
    glDeleteSync(static_cast<GLsync>(m_sync));
    m_sync = nullptr;
}

Buffer::~Buffer() {
    if (m_mapped != nullptr) {
        glUnmapNamedBuffer(m_name);
    }
    if (m_name != 0) {
        glDeleteBuffers(1, &m_name);
        --g_buffers;
    }
}

void Buffer::upload(const void* data, std::size_t bytes, std::size_t offset) {
    assert(offset + bytes <= m_bytes);
    glNamedBufferSubData(m_name, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes),
                         data);
}

void Buffer::download(void* data, std::size_t bytes, std::size_t offset) const {
    assert(offset + bytes <= m_bytes);
    glGetNamedBufferSubData(m_name, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes),
                            data);
    g_readbacks.fetch_add(1, std::memory_order_relaxed);
}

void Buffer::clear() {
    glClearNamedBufferData(m_name, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
}

void Buffer::copyFrom(const Buffer& src, std::size_t bytes, std::size_t srcOffset,
                      std::size_t dstOffset) {
    assert(srcOffset + bytes <= src.m_bytes && dstOffset + bytes <= m_bytes);
    glCopyNamedBufferSubData(src.m_name, m_name, static_cast<GLintptr>(srcOffset),
                             static_cast<GLintptr>(dstOffset), static_cast<GLsizeiptr>(bytes));
}

void bindStorage(unsigned binding, unsigned bufferName) {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, bufferName);
}

void Buffer::bind(unsigned binding) const {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, m_name);
}

void Buffer::bindRange(unsigned binding, std::size_t offset, std::size_t bytes) const {
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, m_name, static_cast<GLintptr>(offset),
                      static_cast<GLsizeiptr>(bytes));
}

// ---- Program ---------------------------------------------------------------------------

Program::Program(unsigned name) : m_name(name) {
    ++g_programs;
    GLint shaders = 0;
    glGetProgramiv(m_name, GL_ATTACHED_SHADERS, &shaders);
    GLuint attached[4] = {};
    GLsizei count = 0;
    glGetAttachedShaders(m_name, 4, &count, attached);
    for (GLsizei i = 0; i < count; ++i) {
        GLint type = 0;
        glGetShaderiv(attached[i], GL_SHADER_TYPE, &type);
        if (type == GL_COMPUTE_SHADER) {
            glGetProgramiv(m_name, GL_COMPUTE_WORK_GROUP_SIZE, m_localSize.data());
        }
    }
}

Program::~Program() {
    if (m_name != 0) {
        glDeleteProgram(m_name);
        --g_programs;
    }
}

void Program::use() const {
    glUseProgram(m_name);
}

int Program::location(const char* name) const {
    auto it = m_locations.find(name);
    if (it != m_locations.end()) {
        return it->second;
    }
    const int loc = glGetUniformLocation(m_name, name);
    m_locations.emplace(name, loc);
    return loc;
}

void Program::set(const char* name, int v) const {
    glProgramUniform1i(m_name, location(name), v);
}
void Program::set(const char* name, unsigned v) const {
    glProgramUniform1ui(m_name, location(name), v);
}
void Program::set(const char* name, float v) const {
    glProgramUniform1f(m_name, location(name), v);
}
void Program::set(const char* name, float x, float y) const {
    glProgramUniform2f(m_name, location(name), x, y);
}
void Program::set(const char* name, float x, float y, float z) const {
    glProgramUniform3f(m_name, location(name), x, y, z);
}
void Program::set(const char* name, float x, float y, float z, float w) const {
    glProgramUniform4f(m_name, location(name), x, y, z, w);
}
void Program::setMat4(const char* name, const float* m) const {
    glProgramUniformMatrix4fv(m_name, location(name), 1, GL_FALSE, m);
}

// ---- dispatch --------------------------------------------------------------------------

namespace {

Status checkGroups(std::uint32_t gx, std::uint32_t gy, std::uint32_t gz) {
    const GpuContext* ctx = GpuContext::current();
    if (ctx != nullptr) {
        const auto& maxCount = ctx->info().maxWorkgroupCount;
        const std::uint32_t g[3] = {gx, gy, gz};
        for (int i = 0; i < 3; ++i) {
            if (g[i] > static_cast<std::uint32_t>(maxCount[i])) {
                return Error{ErrorKind::kGpuLimit,
                             "dispatch of " + std::to_string(g[i]) + " workgroups in dimension " +
                                 std::to_string(i) + " exceeds the GPU's limit of " +
                                 std::to_string(maxCount[i]) + "; use a smaller problem"};
            }
        }
    }
    return {};
}

}  // namespace

Status dispatch(const Program& program, std::uint32_t gx, std::uint32_t gy, std::uint32_t gz) {
    if (Status s = checkGroups(gx, gy, gz); !s) {
        return s;
    }
    if (gx == 0 || gy == 0 || gz == 0) {
        return {};
    }
    program.use();
    glDispatchCompute(gx, gy, gz);
    g_dispatches.fetch_add(1, std::memory_order_relaxed);
    return {};
}

Status dispatchIndirect(const Program& program, const Buffer& args, std::size_t byteOffset,
                        std::uint32_t gx, std::uint32_t gy, std::uint32_t gz) {
    if (Status s = checkGroups(gx, gy, gz); !s) {
        return s;
    }
    assert(byteOffset % 4 == 0 && byteOffset + 12 <= args.bytes());
    program.use();
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, args.handle());
    glDispatchComputeIndirect(static_cast<GLintptr>(byteOffset));
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
    g_dispatches.fetch_add(1, std::memory_order_relaxed);
    return {};
}

void indirectBarrier() {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                    GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_UNIFORM_BARRIER_BIT |
                    GL_COMMAND_BARRIER_BIT);
}

void barrier() {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                    GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_UNIFORM_BARRIER_BIT);
}

void finish() {
    glFinish();
}

// ---- TimerQuery ------------------------------------------------------------------------

TimerQuery::TimerQuery() {
    glGenQueries(1, &m_name);
    ++g_queries;
}

TimerQuery::~TimerQuery() {
    if (m_name != 0) {
        glDeleteQueries(1, &m_name);
        --g_queries;
    }
}

void TimerQuery::begin() {
    glBeginQuery(GL_TIME_ELAPSED, m_name);
}
void TimerQuery::end() {
    glEndQuery(GL_TIME_ELAPSED);
}

bool TimerQuery::available() const {
    GLint ready = 0;
    glGetQueryObjectiv(m_name, GL_QUERY_RESULT_AVAILABLE, &ready);
    return ready != 0;
}

double TimerQuery::elapsedMs() const {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(m_name, GL_QUERY_RESULT, &ns);
    return static_cast<double>(ns) * 1e-6;
}

}  // namespace ww::gpu
