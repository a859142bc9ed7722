// `wavewall headless`: runs a scene for N fixed steps with no window and no display server,
// applies scripted events, checks invariants, and writes the summary, trace, CSV, snapshot and
// screenshot outputs (docs/cli.md). Outputs are validated before the first step; the trace is
// flushed even when the run is interrupted with Ctrl-C.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "app/cli/commands.h"
#include "app/cli/gpu_session.h"
#include "app/cli/headless_run.h"
#include "app/cli/memory_probe.h"
#include "app/cli/scene_options.h"
#include "app/cli/scene_registry.h"
#include "app/cli/state_file.h"
#include "app/cli/thread_option.h"
#include "app/cli/trace_recorder.h"
#include "render/capture.h"
#include "solver/core/timer.h"
#include "solver/io/matrix_market.h"

namespace ww::app {

namespace {

constexpr int kDiagnosticsEvery = 32;

std::atomic<bool> g_interrupted{false};

extern "C" void onSigint(int) {
    g_interrupted = true;
}

struct HeadlessValues {
    std::string scene = "wall";
    std::string backend = "auto";
    std::string shaderDir;
    std::string config;
    int steps = 600;
    int warmUpSteps = 1000;
    std::uint64_t seed = 1;
    bool check = false;
    std::vector<std::string> events;
    std::string trace, csv, summaryJson, snapshot, screenshot;
    std::string snapshotSave, snapshotLoad;
    int screenshotWidth = 1280;
    int screenshotHeight = 720;
    SceneOptionValues sceneValues;
};

// Mean of the values between fractions `from` and `to` of the vector.
double meanOf(const std::vector<double>& v, double from, double to) {
    const auto a = static_cast<std::size_t>(from * static_cast<double>(v.size()));
    const auto b = std::max(a + 1, static_cast<std::size_t>(to * static_cast<double>(v.size())));
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t i = a; i < b && i < v.size(); ++i, ++n) {
        sum += v[i];
    }
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

int runHeadless(HeadlessValues& v, OptionTable& table) {
    if (!v.config.empty()) {
        if (Status s = table.applyConfig(v.config); !s) {
            return reportError(s.error());
        }
    }
    v.sceneValues.given = table.givenKeys();
    // A value the config file gave and a later check refuses is reported at its line.
    const auto fail = [&table](const Error& e) { return reportError(table.locate(e)); };
    if (v.steps < 1 || v.steps > 100000000) {
        return fail(inputError("--steps must be in [1, 100000000]"));
    }
    if (v.warmUpSteps < 0 || v.warmUpSteps > 100000000) {
        return fail(inputError("--warm-up-steps must be in [0, 100000000]"));
    }
    Result<EventScript> script = EventScript::parse(v.events);
    if (!script) {
        return fail(script.error());
    }
    const std::pair<const std::string*, const char*> outputs[] = {
        {&v.summaryJson, "--summary-json"},
        {&v.snapshot, "--snapshot"},
        {&v.snapshotSave, "--snapshot-save"},
        {&v.screenshot, "--screenshot"}};
    for (const auto& [path, what] : outputs) {
        if (!path->empty()) {
            if (Status s = io::checkWritable(*path, what); !s) {
                return fail(s.error());
            }
        }
    }
    if (!v.screenshot.empty()) {
        if (Status s = render::checkPngName(v.screenshot, "--screenshot"); !s) {
            return fail(s.error());
        }
    }

    // Diagnostics that read the whole state (the water's energy) are evaluated every step when
    // something reads every step (--check, --trace, --csv), else every kDiagnosticsEvery steps
    // (at 2048 x 1024 the energy took longer than the step itself, and on the GPU it reads the
    // heights back).
    const bool everyStep = v.check || !v.trace.empty() || !v.csv.empty();
    Result<std::unique_ptr<SimScene>> made =
        makeScene(v.scene, v.sceneValues, v.seed, everyStep ? 1 : kDiagnosticsEvery);
    if (!made) {
        return fail(made.error());
    }
    SimScene& scene = **made;
    if (Status s = script->validate(scene); !s) {
        return fail(s.error());
    }

    // The screenshot renders through GL even when the simulation runs on the CPU.
    Result<std::string> backendChoice = lcpBackendChoice(v.backend, v.scene, v.sceneValues);
    if (!backendChoice) {
        return fail(backendChoice.error());
    }
    GpuSession gpu;
    Result<Backend> backend = selectBackend(*backendChoice, v.shaderDir, gpu);
    if (!backend) {
        return fail(backend.error());
    }
    if (!v.screenshot.empty()) {
        if (Status s = ensureGlContext(gpu, "--screenshot"); !s) {
            return fail(s.error());
        }
    }
    if (Status s = scene.setBackend(*backend, &gpu.shaders); !s) {
        return fail(s.error());
    }
    if (!v.snapshotLoad.empty()) {
        if (Status s = loadStateFile(scene, v.snapshotLoad); !s) {
            return fail(s.error());
        }
    }
    const std::string renderer =
        gpu.available() ? gpu::GpuContext::current()->info().renderer : "none";

    Result<TraceRecorder> trace =
        TraceRecorder::create(v.trace, v.csv, scene.name(), backendName(*backend));
    if (!trace) {
        return fail(trace.error());
    }

    g_interrupted = false;
    auto previous = std::signal(SIGINT, onSigint);

    // The per-step times are sized for the whole run up front (phases once the first step
    // names them), so that their growth is not counted as memory growth after warm-up.
    std::vector<double> stepMs(static_cast<std::size_t>(v.steps));
    std::vector<std::vector<double>> phaseMs;
    std::vector<std::string> phaseNames;
    std::vector<std::string> violations;
    int stepsRun = 0;
    StepRecord rec;
    MemoryWatch memory(v.warmUpSteps, v.steps);
    Stopwatch runClock;
    for (int step = 0; step < v.steps && !g_interrupted; ++step) {
        for (const std::string& error : script->apply(scene, step)) {
            violations.push_back("step " + std::to_string(step) + ": " + error);
        }
        const double startUs = runClock.elapsedMs() * 1000.0;
        scene.step(rec);
        const auto at = static_cast<std::size_t>(stepsRun);
        stepMs[at] = rec.stepMs;
        if (phaseNames.empty()) {
            forEachPhase(rec.phases, [&](const char* name, double) { phaseNames.push_back(name); });
            phaseMs.assign(phaseNames.size(), std::vector<double>(stepMs.size()));
        }
        StepTrace st;
        st.step = step;
        st.startUs = startUs;
        st.stepMs = rec.stepMs;
        double t = startUs;
        std::size_t i = 0;
        forEachPhase(rec.phases, [&](const char* name, double ms) {
            if (i < phaseMs.size()) {
                phaseMs[i][at] = ms;
            }
            ++i;
            st.phases.push_back({name, t, ms * 1000.0});
            t += ms * 1000.0;
        });
        forEachStat(rec.stats, [&](const StatDescriptor& d, double value) {
            st.values.emplace_back(d.name, value);
        });
        trace->record(std::move(st));
        ++stepsRun;
        memory.afterStep(stepsRun);

        const std::size_t before = violations.size();
        scene.checkInvariants(rec, violations);
        if (v.check && violations.size() > before) {
            break;
        }
    }
    std::signal(SIGINT, previous);
    stepMs.resize(static_cast<std::size_t>(stepsRun));
    for (std::vector<double>& p : phaseMs) {
        p.resize(stepMs.size());
    }
    if (Status s = trace->flush(); !s) {
        return fail(s.error());
    }
    if (g_interrupted) {
        std::fprintf(stderr, "wavewall: interrupted after %d steps; outputs written\n", stepsRun);
    }

    nlohmann::json phases = nlohmann::json::object();
    for (std::size_t i = 0; i < phaseNames.size(); ++i) {
        phases[phaseNames[i]] = quantile(phaseMs[i], 0.5);
    }
    double meanMs = 0;
    for (double x : stepMs) {
        meanMs += x;
    }
    meanMs /= static_cast<double>(std::max<std::size_t>(1, stepMs.size()));
    nlohmann::json summary = {
        {"scene", scene.name()},
        {"backend", backendName(scene.backend())},
        {"threads", resolveThreadCount(v.sceneValues.threads).value()},
        {"steps", stepsRun},
        {"seed", v.seed},
        {"hash", scene.stateHash()},
        {"renderer", renderer},
        {"step_ms",
         {{"mean", meanMs},
          {"p50", quantile(stepMs, 0.5)},
          {"p95", quantile(stepMs, 0.95)},
          {"max", stepMs.empty() ? 0.0 : *std::max_element(stepMs.begin(), stepMs.end())}}},
        {"phase_ms", phases},
        {"violations", violations},
        {"interrupted", g_interrupted.load()},
        // For soak runs: the mean step time of the first and last tenth of the run (drift);
        // rss_kb and heap_kb (memory_probe.h) are added below.
        {"step_ms_drift",
         {{"first_tenth_mean", meanOf(stepMs, 0.0, 0.1)},
          {"last_tenth_mean", meanOf(stepMs, 0.9, 1.0)}}}};
    summary.update(memory.summary());
    const nlohmann::json sceneSummary = scene.summary();
    summary.update(sceneSummary);

    std::printf("wavewall headless: scene %s, backend %s (%s), %d steps, seed %llu\n", scene.name(),
                backendName(scene.backend()), renderer.c_str(), stepsRun,
                static_cast<unsigned long long>(v.seed));
    std::printf("  step ms   mean %.3f  p50 %.3f  p95 %.3f  max %.3f\n", meanMs,
                quantile(stepMs, 0.5), quantile(stepMs, 0.95),
                summary["step_ms"]["max"].get<double>());
    std::printf("  phase ms (p50)");
    for (std::size_t i = 0; i < phaseNames.size(); ++i) {
        std::printf("  %s %.3f", phaseNames[i].c_str(), quantile(phaseMs[i], 0.5));
    }
    std::printf("\n");
    for (const auto& [key, value] : sceneSummary.items()) {
        std::printf("  %-16s %s\n", key.c_str(), value.dump().c_str());
    }
    std::printf("  hash      %s\n", scene.stateHash().c_str());

    if (!v.summaryJson.empty()) {
        if (Status s = writeJsonFile(v.summaryJson, summary); !s) {
            return fail(s.error());
        }
    }
    if (!v.snapshot.empty()) {
        if (Status s = writeJsonFile(v.snapshot, scene.snapshot()); !s) {
            return fail(s.error());
        }
    }
    if (!v.snapshotSave.empty()) {
        if (Status s = saveStateFile(scene, v.snapshotSave); !s) {
            return fail(s.error());
        }
    }
    if (!v.screenshot.empty()) {
        if (Status st = renderSceneToPng(scene, v.shaderDir, v.screenshotWidth, v.screenshotHeight,
                                         v.screenshot);
            !st) {
            return fail(st.error());
        }
        std::printf("  screenshot %s\n", v.screenshot.c_str());
    }

    if (!violations.empty()) {
        std::fprintf(stderr, "wavewall: %zu violation(s); first: %s\n", violations.size(),
                     violations.front().c_str());
        return kExitCheckFailed;
    }
    return kExitOk;
}

}  // namespace

CommandAction registerHeadlessCommand(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("headless",
                           "Run a scene with no window: fixed steps, scripted events, invariant "
                           "checks, summary, traces and an offscreen screenshot");
    auto v = std::make_shared<HeadlessValues>();
    auto table = std::make_shared<OptionTable>(*cmd);
    table->add("scene", v->scene, "Scene to run", sceneNames());
    table->add("backend", v->backend,
               "Solver backend (auto: the GPU on a hardware GPU, the CPU on a software rasterizer "
               "or without GL; docs/cli.md)",
               {"cpu", "gpu", "auto"});
    table->add("steps", v->steps, "Number of fixed time steps");
    table->add("seed", v->seed, "Random seed (rain, perturbations)");
    table->add("warm-up-steps", v->warmUpSteps,
               "Steps before memory is sampled for the summary's rss_kb/heap_kb (soak runs: at "
               "least one full cycle of the scripted events)");
    table->add("shader-dir", v->shaderDir, "Load shaders from this folder (live editing)");
    registerSceneOptions(*table, v->sceneValues);
    cmd->add_option("--config", v->config, "JSON file with option keys (flags override it)");
    cmd->add_flag("--check", v->check,
                  "Verify invariants every step; exit 1 at the first violation");
    cmd->add_option("--event", v->events,
                    "STEP:ACTION[:ARGS], e.g. 60:shoot, 120:remove:3,0, "
                    "10:drop:0.5,0.5, 0:rain:on (repeatable)");
    cmd->add_option("--trace", v->trace, "Chrome trace JSON (Perfetto, chrome://tracing)");
    cmd->add_option("--csv", v->csv, "Per-step CSV");
    cmd->add_option("--summary-json", v->summaryJson, "Summary as JSON");
    cmd->add_option("--snapshot", v->snapshot, "Final state as JSON");
    cmd->add_option("--snapshot-save", v->snapshotSave,
                    "Final state as a binary state file that --snapshot-load continues from "
                    "(bit for bit, with the same options)");
    cmd->add_option("--snapshot-load", v->snapshotLoad,
                    "Start from a state file written by --snapshot-save (scene events then "
                    "count from this run's first step)");
    cmd->add_option("--screenshot", v->screenshot, "Final frame rendered offscreen to PNG");
    cmd->add_option("--screenshot-size", v->screenshotWidth, "Screenshot width in pixels")
        ->check(CLI::Range(16, 8192));
    return [v, table]() { return runHeadless(*v, *table); };
}

}  // namespace ww::app
