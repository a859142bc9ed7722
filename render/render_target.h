// An offscreen framebuffer: colour (RGBA8) + depth, optionally multisampled. The renderer
// draws into a multisampled one and resolves into the window or into a single-sample one
// that capture reads back.
#pragma once

#include "solver/core/result.h"

namespace ww::render {

class RenderTarget {
  public:
    RenderTarget() = default;
    /// Creates a width × height target with `samples` MSAA samples (0 or 1 = none).
    /// Samples are clamped to what the driver supports.
    static Result<RenderTarget> create(int width, int height, int samples);
    ~RenderTarget();
    RenderTarget(RenderTarget&& other) noexcept { swap(other); }
    RenderTarget& operator=(RenderTarget&& other) noexcept {
        RenderTarget tmp(static_cast<RenderTarget&&>(other));
        swap(tmp);
        return *this;
    }
    RenderTarget(const RenderTarget&) = delete;
    RenderTarget& operator=(const RenderTarget&) = delete;

    /// Binds as the draw framebuffer and sets the viewport to the whole target.
    void bind() const;
    /// Resolves (MSAA) or copies colour into framebuffer `dst` at (x, y, width, height),
    /// scaling bilinearly when the sizes differ (single-sampled targets only).
    void blitTo(unsigned dstFramebuffer, int x, int y, int width, int height) const;

    unsigned framebuffer() const { return m_fbo; }
    int width() const { return m_width; }
    int height() const { return m_height; }
    int samples() const { return m_samples; }
    bool valid() const { return m_fbo != 0; }

  private:
    void swap(RenderTarget& o) noexcept;
    unsigned m_fbo = 0;
    unsigned m_color = 0;  ///< renderbuffer
    unsigned m_depth = 0;  ///< renderbuffer
    int m_width = 0;
    int m_height = 0;
    int m_samples = 0;
};

}  // namespace ww::render
