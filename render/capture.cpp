#include "render/capture.h"

#include <GL/glew.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

// Static implementations: internal to this file, so they never clash with another copy of
// stb linked into the same program (libstb, a test's own).
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

#include "render/render_target.h"

namespace ww::render {

Image readFramebuffer(unsigned framebuffer, int width, int height) {
    Image image;
    image.width = width;
    image.height = height;
    image.rgba.resize(static_cast<std::size_t>(width) * height * 4);
    GLint previous = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    if (framebuffer == 0) {
        glReadBuffer(GL_BACK);
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous));
    // GL rows run bottom to top; images top to bottom.
    const std::size_t row = static_cast<std::size_t>(width) * 4;
    std::vector<std::uint8_t> tmp(row);
    for (int y = 0; y < height / 2; ++y) {
        std::uint8_t* a = image.rgba.data() + static_cast<std::size_t>(y) * row;
        std::uint8_t* b = image.rgba.data() + static_cast<std::size_t>(height - 1 - y) * row;
        std::memcpy(tmp.data(), a, row);
        std::memcpy(a, b, row);
        std::memcpy(b, tmp.data(), row);
    }
    for (std::size_t k = 3; k < image.rgba.size(); k += 4) {
        image.rgba[k] = 255;  // the window's alpha is meaningless; PNGs stay opaque
    }
    return image;
}

Status checkPngName(const std::string& path, const char* what) {
    const std::string ext = std::filesystem::path(path).extension().string();
    std::string lower(ext);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == ".png") {
        return {};
    }
    const std::string stem = std::filesystem::path(path).replace_extension().string();
    return inputError(std::string(what) + " '" + path + "': the image is written as PNG; give a " +
                      "name that ends in .png (e.g. " + stem + ".png)");
}

Status writePng(const Image& image, const std::string& path) {
    if (image.width <= 0 || image.height <= 0 ||
        image.rgba.size() < static_cast<std::size_t>(image.width) * image.height * 4) {
        return Error{ErrorKind::kInput, "cannot write an empty image to " + path};
    }
    const int ok = stbi_write_png(path.c_str(), image.width, image.height, 4, image.rgba.data(),
                                  image.width * 4);
    if (ok == 0) {
        return Error{ErrorKind::kIo, "could not write PNG " + path +
                                         " (does the folder exist and is it writable?)"};
    }
    return {};
}

Result<Image> readPng(const std::string& path) {
    Image image;
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
    if (data == nullptr) {
        return Error{ErrorKind::kIo, "could not read PNG " + path + ": " + stbi_failure_reason()};
    }
    image.rgba.assign(data, data + static_cast<std::size_t>(image.width) * image.height * 4);
    stbi_image_free(data);
    return image;
}

Result<Image> renderToImage(Renderer& renderer, const DrawData& data, const Camera& camera,
                            int width, int height) {
    auto target = RenderTarget::create(width, height, 0);
    if (!target) {
        return target.error();
    }
    renderer.beginFrame();
    Status s = renderer.render(data, camera, {0, 0, width, height, target->framebuffer()});
    if (!s) {
        return s.error();
    }
    Image image = readFramebuffer(target->framebuffer(), width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return image;
}

Status renderToPng(Renderer& renderer, const DrawData& data, const Camera& camera, int width,
                   int height, const std::string& path) {
    auto image = renderToImage(renderer, data, camera, width, height);
    if (!image) {
        return image.error();
    }
    return writePng(*image, path);
}

}  // namespace ww::render
