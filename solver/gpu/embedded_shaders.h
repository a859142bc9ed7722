// The GLSL files of shaders/, embedded at build time (see cmake/EmbedShaders.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace ww::gpu {

struct EmbeddedShader {
    std::string_view name;    ///< file name, e.g. "lcp_jacobi.comp"
    std::string_view source;  ///< file contents
};

const std::vector<EmbeddedShader>& embeddedShaders();

}  // namespace ww::gpu
