#include "render/render_target.h"

#include <GL/glew.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

namespace ww::render {

Result<RenderTarget> RenderTarget::create(int width, int height, int samples) {
    if (width <= 0 || height <= 0) {
        return Error{ErrorKind::kInput, "render target size must be positive, got " +
                                            std::to_string(width) + "x" + std::to_string(height)};
    }
    GLint maxSamples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &maxSamples);
    GLint maxSize = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &maxSize);
    if (width > maxSize || height > maxSize) {
        return Error{ErrorKind::kGpuLimit, "render target " + std::to_string(width) + "x" +
                                               std::to_string(height) + " exceeds the GL limit " +
                                               std::to_string(maxSize)};
    }
    RenderTarget t;
    t.m_width = width;
    t.m_height = height;
    t.m_samples = samples > 1 ? std::min(samples, static_cast<int>(maxSamples)) : 0;
    glGenFramebuffers(1, &t.m_fbo);
    glGenRenderbuffers(1, &t.m_color);
    glGenRenderbuffers(1, &t.m_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, t.m_color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, t.m_samples, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, t.m_depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, t.m_samples, GL_DEPTH_COMPONENT24, width,
                                     height);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    GLint previous = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_FRAMEBUFFER, t.m_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t.m_color);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, t.m_depth);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        return Error{
            ErrorKind::kGpuUnavailable, "offscreen framebuffer incomplete (status 0x" + [&] {
                char buf[16];
                std::snprintf(buf, sizeof buf, "%04x", status);
                return std::string(buf);
            }() + ")"};
    }
    return t;
}

RenderTarget::~RenderTarget() {
    if (m_fbo != 0) {
        glDeleteFramebuffers(1, &m_fbo);
        glDeleteRenderbuffers(1, &m_color);
        glDeleteRenderbuffers(1, &m_depth);
    }
}

void RenderTarget::swap(RenderTarget& o) noexcept {
    std::swap(m_fbo, o.m_fbo);
    std::swap(m_color, o.m_color);
    std::swap(m_depth, o.m_depth);
    std::swap(m_width, o.m_width);
    std::swap(m_height, o.m_height);
    std::swap(m_samples, o.m_samples);
}

void RenderTarget::bind() const {
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
    glViewport(0, 0, m_width, m_height);
}

void RenderTarget::blitTo(unsigned dstFramebuffer, int x, int y, int width, int height) const {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, dstFramebuffer);
    // A multisample resolve needs equal sizes (the renderer's scaled targets are single-sampled);
    // a scaled copy filters bilinearly.
    const bool sameSize = width == m_width && height == m_height;
    glBlitFramebuffer(0, 0, m_width, m_height, x, y, x + width, y + height, GL_COLOR_BUFFER_BIT,
                      sameSize ? GL_NEAREST : GL_LINEAR);
    glBindFramebuffer(GL_FRAMEBUFFER, dstFramebuffer);
}

}  // namespace ww::render
