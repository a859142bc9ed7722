#include "app/cli/scene_options.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "app/cli/scene_registry.h"

namespace ww::app {

namespace {

// "; the splash scene's default: 0.1" for each scene with its own default for `key`.
std::string sceneDefaultsText(const std::string& key) {
    std::string text;
    for (const SceneEntry& scene : sceneRegistry()) {
        for (const SceneDefault& d : scene.defaults) {
            if (d.key == key) {
                text += std::string("; the ") + scene.name + " scene's default: " + d.value;
            }
        }
    }
    return text;
}

}  // namespace

void registerSceneOptions(OptionTable& t, SceneOptionValues& v) {
    std::set<std::string> registered;
    for (const SceneEntry& scene : sceneRegistry()) {
        for (const ParamInfo& info : scene.params) {
            if (!registered.insert(info.key).second) {
                continue;
            }
            std::string help = info.unit.empty() ? info.help : info.help + " [" + info.unit + "]";
            help += sceneDefaultsText(info.key);
            visitParam(info.field, v,
                       [&](auto& value) { t.add(info.key, value, help, info.choices); });
        }
    }
    t.add("dt", v.dt,
          "Time step in seconds (0 = the scene's default; for water overrides --dt-ratio)");
    t.add("threads", v.threads,
          "CPU solver threads (default: WAVEWALL_THREADS, else every hardware thread)");
}

Result<std::string> lcpBackendChoice(const std::string& choice, const std::string& scene,
                                     const SceneOptionValues& v) {
    const SceneEntry* entry = findScene(scene);
    const bool readsLcpSolver =
        entry != nullptr && std::any_of(entry->params.begin(), entry->params.end(),
                                        [](const ParamInfo& i) { return i.key == "lcp-solver"; });
    if (!readsLcpSolver || v.lcpSolver != "gauss-seidel" || choice == "cpu") {
        return choice;
    }
    if (choice == "gpu") {
        return inputError(
            "--lcp-solver gauss-seidel (config key \"lcp-solver\") runs on the CPU only: the "
            "GPU LCP backend is projected Jacobi. Use --backend cpu, or --lcp-solver jacobi");
    }
    std::fprintf(stderr,
                 "wavewall: note: --lcp-solver gauss-seidel runs on the CPU only: --backend auto "
                 "chose the CPU\n");
    return std::string("cpu");
}

}  // namespace ww::app
