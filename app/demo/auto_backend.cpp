#include "app/demo/auto_backend.h"

#include "render/renderer.h"

namespace ww::app {

AutoBackendChoice chooseAutoBackend(std::string_view glRenderer) {
    const std::string name(glRenderer);
    if (render::isSoftwareRenderer(glRenderer)) {
        return {Backend::kCpu, "backend auto: cpu (the only GL is " + name +
                                   ", a software rasterizer: the GPU solvers would run on the "
                                   "same CPU, slower; --backend gpu runs them there)"};
    }
    return {Backend::kGpu, "backend auto: gpu (" + name + ", a hardware GPU)"};
}

AutoBackendChoice autoBackendWithoutGl(std::string_view why) {
    return {Backend::kCpu, "backend auto: cpu (no GPU: " + std::string(why) + ")"};
}

}  // namespace ww::app
