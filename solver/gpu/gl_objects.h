// A small typed RAII layer over the GL objects the compute backend uses: shader storage
// buffers, compute/graphics programs and GL_TIME_ELAPSED timer queries. All are move-only
// and release their GL name on destruction. GL types stay out of this header so that solver
// code using the GPU never includes GL itself.
//
// Every call assumes a current GpuContext on the calling thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "solver/core/result.h"

namespace ww::gpu {

/// A shader storage buffer. Contents are undefined after create() unless data is given.
class Buffer {
  public:
    Buffer() = default;
    /// Allocates `bytes` (checked against the context's max SSBO size) and uploads `data`
    /// if it is not null. `what` names the buffer in error messages.
    static Result<Buffer> create(std::size_t bytes, const void* data = nullptr,
                                 const char* what = "buffer");
    /// A host-visible staging buffer, mapped for writing for its whole life (immutable storage,
    /// persistent and coherent: GL 4.4 or ARB_buffer_storage): the host writes into mapped()
    /// and copyFrom() moves the bytes into device buffers by DMA, without the driver's copy of
    /// glBufferSubData. kGpuUnavailable where the context has no buffer storage.
    static Result<Buffer> createStaging(std::size_t bytes, const char* what = "staging buffer");
    template <typename T>
    static Result<Buffer> fromSpan(std::span<const T> values, const char* what = "buffer") {
        return create(values.size_bytes(), values.data(), what);
    }
    ~Buffer();
    Buffer(Buffer&& other) noexcept { swap(other); }
    Buffer& operator=(Buffer&& other) noexcept {
        Buffer tmp(std::move(other));
        swap(tmp);
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    void upload(const void* data, std::size_t bytes, std::size_t offset = 0);
    template <typename T>
    void upload(std::span<const T> values, std::size_t offsetBytes = 0) {
        upload(values.data(), values.size_bytes(), offsetBytes);
    }
    /// Reads back (synchronizes with the GPU): use outside iteration loops only.
    void download(void* data, std::size_t bytes, std::size_t offset = 0) const;
    template <typename T>
    std::vector<T> download(std::size_t count, std::size_t offsetBytes = 0) const {
        std::vector<T> out(count);
        download(out.data(), count * sizeof(T), offsetBytes);
        return out;
    }
    /// Sets every byte to zero on the GPU.
    void clear();
    /// Copies `bytes` from `src` into this buffer on the GPU.
    void copyFrom(const Buffer& src, std::size_t bytes, std::size_t srcOffset = 0,
                  std::size_t dstOffset = 0);
    /// Binds to an indexed GL_SHADER_STORAGE_BUFFER binding point.
    void bind(unsigned binding) const;
    void bindRange(unsigned binding, std::size_t offset, std::size_t bytes) const;

    unsigned handle() const { return m_name; }
    /// The persistent mapping of a staging buffer, else null.
    void* mapped() const { return m_mapped; }
    std::size_t bytes() const { return m_bytes; }
    bool valid() const { return m_name != 0; }

  private:
    void swap(Buffer& o) noexcept {
        std::swap(m_name, o.m_name);
        std::swap(m_bytes, o.m_bytes);
        std::swap(m_mapped, o.m_mapped);
    }
    unsigned m_name = 0;
    std::size_t m_bytes = 0;
    void* m_mapped = nullptr;
};

/// A point in the GL command stream (glFenceSync) that the host can wait for: here, that the
/// GPU has finished reading a staging buffer before the host writes it again.
class Fence {
  public:
    Fence() = default;
    ~Fence();
    Fence(Fence&& other) noexcept : m_sync(std::exchange(other.m_sync, nullptr)) {}
    Fence& operator=(Fence&& other) noexcept {
        std::swap(m_sync, other.m_sync);
        return *this;
    }
    Fence(const Fence&) = delete;
    Fence& operator=(const Fence&) = delete;
    /// Places the fence after the commands issued so far (replacing an earlier one).
    void place();
    /// Waits until the GPU has passed the fence (returns at once when none is placed).
    void wait();

  private:
    void* m_sync = nullptr;
};

/// A linked GL program (compute, or vertex + fragment). Uniform locations are cached.
class Program {
  public:
    Program() = default;
    explicit Program(unsigned name);
    ~Program();
    Program(Program&& other) noexcept { swap(other); }
    Program& operator=(Program&& other) noexcept {
        Program tmp(std::move(other));
        swap(tmp);
        return *this;
    }
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;

    void use() const;
    /// Uniform setters: the program must be in use. Unknown names are ignored (the driver
    /// may optimize unused uniforms away).
    void set(const char* name, int v) const;
    void set(const char* name, unsigned v) const;
    void set(const char* name, float v) const;
    void set(const char* name, float x, float y) const;
    void set(const char* name, float x, float y, float z) const;
    void set(const char* name, float x, float y, float z, float w) const;
    void setMat4(const char* name, const float* columnMajor16) const;

    /// Compute programs: the local workgroup size declared in the shader.
    std::array<int, 3> localSize() const { return m_localSize; }
    unsigned handle() const { return m_name; }
    bool valid() const { return m_name != 0; }

  private:
    int location(const char* name) const;
    void swap(Program& o) noexcept {
        std::swap(m_name, o.m_name);
        std::swap(m_localSize, o.m_localSize);
        m_locations.swap(o.m_locations);
    }
    unsigned m_name = 0;
    std::array<int, 3> m_localSize{1, 1, 1};
    mutable std::unordered_map<std::string, int> m_locations;
};

/// Dispatches `program` (already in use or not) with the given workgroup counts, after
/// checking them against the context's limits. Returns kGpuLimit if they exceed them.
Status dispatch(const Program& program, std::uint32_t groupsX, std::uint32_t groupsY = 1,
                std::uint32_t groupsZ = 1);
/// Dispatches `program` with the workgroup counts the GPU reads from `args` at byteOffset (three
/// uints, written by earlier dispatches: glDispatchComputeIndirect), so that a kernel can turn
/// later dispatches into empty ones without a readback. groupsX/Y/Z are the most the buffer
/// will hold, checked against the context's limits as dispatch() checks its counts.
Status dispatchIndirect(const Program& program, const Buffer& args, std::size_t byteOffset,
                        std::uint32_t groupsX, std::uint32_t groupsY = 1,
                        std::uint32_t groupsZ = 1);
/// barrier(), and SSBO writes made visible to the commands that read dispatch arguments.
void indirectBarrier();
/// Binds a GL buffer that another object owns (by its name, e.g. WaveModel's heights) to an
/// indexed GL_SHADER_STORAGE_BUFFER binding point.
void bindStorage(unsigned binding, unsigned bufferName);
/// Number of workgroups of size `local` needed to cover `count` items.
inline std::uint32_t groupsFor(std::size_t count, int local) {
    return static_cast<std::uint32_t>((count + local - 1) / local);
}
/// Makes SSBO writes of earlier dispatches visible to later shader reads and to buffer
/// reads/copies (glMemoryBarrier with the storage, buffer-update and vertex-attribute bits).
void barrier();
/// Waits until every command issued so far has completed (glFinish).
void finish();

/// Measures GPU time of the commands between begin() and end() (GL_TIME_ELAPSED).
class TimerQuery {
  public:
    TimerQuery();
    ~TimerQuery();
    TimerQuery(TimerQuery&& other) noexcept : m_name(std::exchange(other.m_name, 0u)) {}
    TimerQuery& operator=(TimerQuery&& other) noexcept {
        std::swap(m_name, other.m_name);
        return *this;
    }
    TimerQuery(const TimerQuery&) = delete;
    TimerQuery& operator=(const TimerQuery&) = delete;

    void begin();
    void end();
    bool available() const;
    /// Elapsed GPU milliseconds; waits for the result if it is not yet available.
    double elapsedMs() const;

  private:
    unsigned m_name = 0;
};

/// Number of GL buffers and programs alive (created here and not yet destroyed); used by
/// leak tests.
struct LiveObjectCounts {
    long buffers = 0;
    long programs = 0;
    long queries = 0;
};
LiveObjectCounts liveObjectCounts();

/// Work issued since the process started: compute dispatches (dispatch()) and GPU-to-host
/// transfers (Buffer::download). A caller takes the difference over a step; the counts do not
/// depend on the hardware.
struct TrafficCounts {
    long dispatches = 0;
    long readbacks = 0;
};
TrafficCounts trafficCounts();

}  // namespace ww::gpu
