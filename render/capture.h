// Reading frames back and writing them as PNG (stb_image_write). Used by the desktop
// demo's screenshot key, by the headless --screenshot path and by the render tests, so all
// three go through the same drawing code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/draw_data.h"
#include "render/renderer.h"
#include "solver/core/result.h"

namespace ww::render {

/// An 8-bit RGBA image, rows top to bottom.
struct Image {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgba;

    /// Pixel (x, y), y from the top.
    glm::u8vec4 at(int x, int y) const {
        const std::size_t k = (static_cast<std::size_t>(y) * width + x) * 4;
        return {rgba[k], rgba[k + 1], rgba[k + 2], rgba[k + 3]};
    }
};

/// Reads the colour of framebuffer `framebuffer` (0 = the window's back buffer) in the
/// rectangle (0, 0, width, height), flipped so that rows run top to bottom.
Image readFramebuffer(unsigned framebuffer, int width, int height);
/// Writes `image` as a PNG file.
Status writePng(const Image& image, const std::string& path);
/// An input error unless `path` ends in ".png" (any case): the option `what` writes PNG files,
/// and a name such as "shot.jpg" or "shot.txt" would hold a PNG under another type's name.
Status checkPngName(const std::string& path, const char* what);
/// Reads a PNG (or any format stb_image knows) as RGBA8; tests use it to check screenshots.
Result<Image> readPng(const std::string& path);

/// Renders `data` from `camera` into a fresh width × height offscreen target and returns
/// the image. Works with a window or a headless EGL context current.
Result<Image> renderToImage(Renderer& renderer, const DrawData& data, const Camera& camera,
                            int width, int height);
/// renderToImage, then writePng.
Status renderToPng(Renderer& renderer, const DrawData& data, const Camera& camera, int width,
                   int height, const std::string& path);

}  // namespace ww::render
