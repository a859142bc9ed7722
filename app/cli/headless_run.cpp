#include "app/cli/headless_run.h"

#include <algorithm>
#include <cstdio>

#include "render/capture.h"

namespace ww::app {

Status renderSceneToPng(const SimScene& scene, const std::string& shaderDir, int width, int height,
                        const std::string& path) {
    render::Renderer renderer;
    render::RendererOptions options;
    options.shaderDir = shaderDir;
    if (Status s = renderer.init(options); !s) {
        return s;
    }
    render::DrawData data;
    scene.fillDrawData(data);
    const auto [center, radius] = scene.viewBounds();
    render::OrbitCamera camera;
    camera.frame(center, radius);
    return render::renderToPng(renderer, data, camera.camera(), width, height, path);
}

SceneRunStats runSceneSteps(SimScene& scene, int steps, EventScript script, bool stopAtViolation) {
    SceneRunStats run;
    run.stepMs.reserve(static_cast<std::size_t>(std::max(steps, 0)));
    StepRecord rec;
    for (int step = 0; step < steps; ++step) {
        for (const std::string& error : script.apply(scene, step)) {
            run.violations.push_back("step " + std::to_string(step) + ": " + error);
        }
        scene.step(rec);
        ++run.steps;
        run.stepMs.push_back(rec.stepMs);
        if (run.phaseNames.empty()) {
            forEachPhase(rec.phases,
                         [&](const char* name, double) { run.phaseNames.push_back(name); });
            run.phaseMs.resize(run.phaseNames.size());
        }
        std::size_t i = 0;
        forEachPhase(rec.phases, [&](const char*, double ms) {
            if (i < run.phaseMs.size()) {
                run.phaseMs[i++].push_back(ms);
            }
        });
        const std::size_t before = run.violations.size();
        scene.checkInvariants(rec, run.violations);
        if (stopAtViolation && run.violations.size() > before) {
            break;
        }
    }
    return run;
}

void printSceneRun(const char* command, SimScene& scene, const SceneRunStats& run,
                   const std::string& renderer, std::uint64_t seed) {
    double meanMs = 0;
    for (double x : run.stepMs) {
        meanMs += x;
    }
    meanMs /= static_cast<double>(std::max<std::size_t>(1, run.stepMs.size()));
    const double maxMs =
        run.stepMs.empty() ? 0.0 : *std::max_element(run.stepMs.begin(), run.stepMs.end());
    std::printf("%s: scene %s, backend %s (%s), %d steps, seed %llu\n", command, scene.name(),
                backendName(scene.backend()), renderer.c_str(), run.steps,
                static_cast<unsigned long long>(seed));
    std::printf("  step ms   mean %.3f  p50 %.3f  p95 %.3f  max %.3f\n", meanMs,
                quantile(run.stepMs, 0.5), quantile(run.stepMs, 0.95), maxMs);
    std::printf("  phase ms (p50)");
    for (std::size_t i = 0; i < run.phaseNames.size(); ++i) {
        std::printf("  %s %.3f", run.phaseNames[i].c_str(), quantile(run.phaseMs[i], 0.5));
    }
    std::printf("\n");
    const nlohmann::json summary = scene.summary();
    for (const auto& [key, value] : summary.items()) {
        std::printf("  %-16s %s\n", key.c_str(), value.dump().c_str());
    }
    std::printf("  hash      %s\n", scene.stateHash().c_str());
    for (const std::string& v : run.violations) {
        std::printf("  violation %s\n", v.c_str());
    }
}

}  // namespace ww::app
