// libFuzzer target: the state file loader (`wavewall headless --snapshot-load`) must restore a
// state or return an Error for any bytes — never crash, hang or allocate without bound. Each
// input goes in twice: as a whole file (header, version and checksum checks), and as the
// payload of a well-formed file for each scene, so that the mutations the checksum would
// refuse still reach each scene's state reader and restore. Small scenes of every kind, built
// once on the CPU backend; a refused input leaves its scene as it was, an accepted one
// replaces its state, and either way the next input starts from some valid state.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/scene_registry.h"
#include "app/cli/state_file.h"

namespace {

std::vector<std::unique_ptr<ww::app::SimScene>> makeScenes() {
    ww::app::SceneOptionValues v;
    v.wall = "4x3";
    v.grid = "16x16";
    v.poolSize = 6;
    v.threads = "1";
    std::vector<std::unique_ptr<ww::app::SimScene>> scenes;
    for (const char* name : {"wall", "water", "splash"}) {
        auto scene = ww::app::makeScene(name, v, 1);
        if (!scene) {
            std::fprintf(stderr, "fuzz_state_file: %s\n", scene.error().message.c_str());
            std::abort();
        }
        scenes.push_back(std::move(scene).value());
    }
    return scenes;
}

void require(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_state_file: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::vector<std::unique_ptr<ww::app::SimScene>> scenes = makeScenes();
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const auto& scene : scenes) {
        const ww::Status asFile = ww::app::loadStateBytes(*scene, bytes, "fuzz");
        require(asFile.ok() || !asFile.error().message.empty(), "an error without a message");
        const std::string wrapped = ww::app::encodeStateFile(scene->name(), bytes);
        const ww::Status asPayload = ww::app::loadStateBytes(*scene, wrapped, "fuzz");
        require(asPayload.ok() || !asPayload.error().message.empty(), "an error without a message");
        // A restored state must be one the scene can step from and hash.
        (void)scene->stateHash();
    }
    return 0;
}
