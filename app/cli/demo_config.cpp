#include "app/cli/demo_config.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "app/cli/scene_options.h"
#include "app/cli/scene_registry.h"
#include "app/scenes/splash/splash_demo_scene.h"
#include "app/scenes/wall/wall_demo_scene.h"
#include "app/scenes/water/water_demo_scene.h"

namespace ww::app {

namespace {

std::string formatNumber(float x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(x));
    return text;
}

std::string formatSeconds(float s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", static_cast<double>(s));
    return text;
}

// The keys of a demo config: the scene shown, backend, seed and every scene option.
void registerConfigKeys(OptionTable& t, DemoSceneInputs& in) {
    t.add("scene", in.scene, "Scene shown first", sceneNames());
    t.add("backend", in.backend, "Solver backend", {"cpu", "gpu", "auto"});
    t.add("seed", in.seed, "Random seed (rain)");
    registerSceneOptions(t, in.values);
}

// One scene's value of a key two scenes share, each with its own default: absent when the
// scene is not saved.
struct SharedValue {
    const char* scene;
    std::optional<double> value;
    double own;  ///< the scene's default for the key
};

// A key two scenes share with their own defaults (`damping`: the water's 0, the splash's
// SplashSceneSettings::kDefaultWaveDampingPerS; `iterations`: the wall's 30, the splash's
// kDefaultLcpIterations). While both hold their defaults the key is left out of the file, so
// each keeps its own; otherwise the scene shown decides (shown neither, the one that left its
// default), `set` writes its value and a note names the other's when it differs. `a` is the
// scene whose default is the key's own.
void keepSharedKey(SceneOptionValues& v, const std::string& key, const SharedValue& a,
                   const SharedValue& b, const std::string& shown,
                   const std::function<void(double)>& set, std::vector<std::string>* notes) {
    if (!a.value && !b.value) {
        return;
    }
    const bool aOwn = !a.value || *a.value == a.own;
    const bool bOwn = !b.value || *b.value == b.own;
    if (aOwn && bOwn) {
        set(a.own);
        v.given.erase(key);
        return;
    }
    const bool bDecides = !a.value || (b.value && (shown == b.scene || (shown != a.scene && aOwn)));
    const SharedValue& decides = bDecides ? b : a;
    const SharedValue& other = bDecides ? a : b;
    set(*decides.value);
    v.given.insert(key);
    const double kept = other.value ? *other.value : *decides.value;
    if (notes != nullptr && kept != *decides.value) {
        notes->push_back(std::string("the ") + other.scene + "'s " + key + " " +
                         formatNumber(static_cast<float>(kept)) + " is not kept (" + key +
                         " is one key for the " + a.scene + " and " + b.scene + " scenes)");
    }
}

}  // namespace

Result<demo::SceneSet> makeDemoScenes(const DemoSceneInputs& in,
                                      const gpu::ShaderLibrary* shaders) {
    SceneBuild build;
    build.values = in.values;
    build.seed = in.seed;
    build.initialDrop = in.initialDrop;
    build.recordHistory = true;  // the panel plots the residual per iteration of the last solve
    // Every scene of the registry that has an adapter; an optional one (splash) is left out
    // when its options do not fit or the backend cannot run it, unless it is the one asked for.
    std::vector<std::pair<const SceneEntry*, std::unique_ptr<SimScene>>> built;
    for (const SceneEntry& entry : sceneRegistry()) {
        if (entry.wrap == nullptr) {
            continue;
        }
        Result<std::unique_ptr<SimScene>> scene =
            in.backend == "gpu" && entry.cpuOnly != nullptr
                ? Result<std::unique_ptr<SimScene>>(
                      inputError(std::string("--backend gpu: ") + entry.cpuOnly))
                : makeScene(entry, build);
        if (scene) {
            built.emplace_back(&entry, std::move(scene).value());
        } else if (!entry.optionalInDemo || in.scene == entry.name) {
            return scene.error();
        } else {
            std::fprintf(stderr, "wavewall demo: the %s scene is left out: %s\n", entry.name,
                         scene.error().message.c_str());
        }
    }
    // Each event goes to every scene whose adapter runs a script and that accepts it (reset:
    // all of them); one that none accepts is an error naming it and what each scene said.
    std::vector<std::vector<SceneEvent>> scripts(built.size());
    for (const std::string& text : in.events) {
        Result<SceneEvent> e = parseEvent(text);
        if (!e) {
            return e.error();
        }
        std::string why;
        bool taken = false;
        for (std::size_t i = 0; i < built.size(); ++i) {
            if (!built[i].first->takesEvents) {
                continue;
            }
            if (Status s = EventScript::validate(*built[i].second, *e); s) {
                scripts[i].push_back(*e);
                taken = true;
            } else {
                why += (why.empty() ? "" : "; ") + s.error().message;
            }
        }
        if (!taken) {
            return inputError(why);
        }
    }
    demo::SceneSet set;
    for (std::size_t i = 0; i < built.size(); ++i) {
        if (built[i].first->name == in.scene) {
            set.current = static_cast<int>(i);
        }
        DemoAdapterInputs adapterInputs;
        adapterInputs.shaders = shaders;
        adapterInputs.script = EventScript(std::move(scripts[i]));
        adapterInputs.solveBudgetMs = in.solveBudgetMs;
        Result<std::unique_ptr<demo::DemoScene>> adapter =
            built[i].first->wrap(std::move(built[i].second), std::move(adapterInputs));
        if (!adapter) {
            return adapter.error();
        }
        set.scenes.push_back(std::move(adapter).value());
    }
    return set;
}

SceneOptionValues optionValuesOf(SceneOptionValues base, const WallSceneSettings* wall,
                                 const wave::WaveParams* water, const SplashSceneSettings* splash,
                                 const std::string& shown, std::vector<std::string>* notes) {
    const bool waterShown = shown == "water";
    const rigid::WorldParams defaults;
    SceneOptionValues v = base;
    if (wall != nullptr) {
        readParams(wallParams(), *wall, v);
        v.dt = wall->world.dtSeconds == defaults.dtSeconds ? 0.0f : wall->world.dtSeconds;
    }
    if (water != nullptr) {
        readParams(waterParams(), *water, v);
        if (water->dtRatio <= 0.0f) {
            v.dtRatio = base.dtRatio;  // the step is saved as dt
        }
        // --dt, when set, is the water's step too: the scene shown decides.
        const float waterDt = water->dtRatio > 0.0f ? 0.0f : water->dtSeconds;
        if (waterShown || wall == nullptr) {
            v.dt = waterDt;
        }
        if (notes != nullptr && wall != nullptr) {
            const float wallDt = wall->world.dtSeconds;
            const float wallKept = v.dt == 0.0f ? defaults.dtSeconds : v.dt;
            if (wallKept != wallDt) {
                notes->push_back("the wall's dt " + formatSeconds(wallDt) +
                                 " is not kept (dt is one key for both scenes)");
            }
            if (v.dt != waterDt) {
                notes->push_back("the water's dt is saved as " +
                                 (v.dt == 0.0f ? "its ratio" : formatSeconds(v.dt)) +
                                 " (dt is one key for both scenes)");
            }
        }
    }
    if (splash != nullptr) {
        v.brickDensity = splash->brickDensityKgM3;
        v.brickSize = 2.0f * splash->wall.brickHalfExtents.x;
        v.waterDepth = splash->splash.waterDepthM;
        v.wallX = splash->wallXM;
        v.wallZ = splash->wallZM;
    }
    const auto optionalOf = [](bool present, double value) {
        return present ? std::optional<double>(value) : std::nullopt;
    };
    keepSharedKey(
        v, "damping",
        {"water", optionalOf(water != nullptr, water ? water->damping : 0.0f),
         wave::WaveParams{}.damping},
        {"splash", optionalOf(splash != nullptr, splash ? splash->splash.wave.damping : 0.0f),
         SplashSceneSettings::kDefaultWaveDampingPerS},
        shown, [&v](double x) { v.damping = static_cast<float>(x); }, notes);
    keepSharedKey(
        v, "iterations",
        {"wall", optionalOf(wall != nullptr, wall ? wall->world.lcp.maxIterations : 0),
         static_cast<double>(defaults.lcp.maxIterations)},
        {"splash",
         optionalOf(splash != nullptr, splash ? splash->splash.world.lcp.maxIterations : 0),
         static_cast<double>(SplashSceneSettings::kDefaultLcpIterations)},
        shown,
        [&v](double x) { v.iterations = x == 0.0 ? "2n" : std::to_string(static_cast<int>(x)); },
        notes);
    return v;
}

nlohmann::json sceneConfigJson(const SceneOptionValues& v, const std::string& scene,
                               const std::string& backend, std::uint64_t seed) {
    CLI::App app;
    OptionTable table(app);
    DemoSceneInputs in;
    in.values = v;
    in.scene = scene;
    in.backend = backend;
    in.seed = seed;
    registerConfigKeys(table, in);
    nlohmann::json doc = table.values();
    // No thread count given: the key is left out (not ""), so the file runs on every core of
    // whichever machine reads it, as the demo did.
    if (v.threads.empty()) {
        doc.erase("threads");
    }
    // A key a scene has its own default for, not given: left out, so each scene reading the
    // file keeps its own default.
    for (const SceneEntry& entry : sceneRegistry()) {
        for (const SceneDefault& d : entry.defaults) {
            if (v.given.count(d.key) == 0) {
                doc.erase(d.key);
            }
        }
    }
    return doc;
}

Result<DemoSceneInputs> readDemoConfig(const std::string& path, const DemoSceneInputs& base) {
    DemoSceneInputs in;
    in.values.threads = base.values.threads;
    in.seed = base.seed;
    in.initialDrop = base.initialDrop;
    in.solveBudgetMs = base.solveBudgetMs;
    CLI::App app;
    OptionTable table(app);
    registerConfigKeys(table, in);
    if (Status s = table.applyConfig(path); !s) {
        return s.error();
    }
    in.values.given = table.givenKeys();
    return in;
}

demo::SettingsHooks demoSettingsHooks(const DemoSceneInputs& base,
                                      const gpu::ShaderLibrary* shaders) {
    demo::SettingsHooks hooks;
    hooks.configText = [base](std::span<const std::unique_ptr<demo::DemoScene>> scenes,
                              int current) -> Result<std::string> {
        std::optional<WallSceneSettings> wall;
        const wave::WaveParams* water = nullptr;
        const SplashSceneSettings* splash = nullptr;
        std::uint64_t seed = base.seed;
        for (const auto& scene : scenes) {
            if (auto* w = dynamic_cast<WallDemoScene*>(scene.get()); w != nullptr) {
                wall = w->scene().settings();
                wall->world = w->scene().world().params();  // the panel edits the live world
            } else if (auto* s = dynamic_cast<WaterDemoScene*>(scene.get()); s != nullptr) {
                water = &s->scene().model().params();
                seed = s->scene().settings().seed;
            } else if (auto* p = dynamic_cast<SplashDemoScene*>(scene.get()); p != nullptr) {
                splash = &p->scene().settings();
            }
        }
        const std::string shown = scenes[static_cast<std::size_t>(current)]->name();
        std::vector<std::string> notes;
        const SceneOptionValues v =
            optionValuesOf(base.values, wall ? &*wall : nullptr, water, splash, shown, &notes);
        nlohmann::json doc = sceneConfigJson(
            v, shown, backendName(scenes[static_cast<std::size_t>(current)]->backend()), seed);
        for (const std::string& note : notes) {
            std::fprintf(stderr, "wavewall demo: save as config: %s\n", note.c_str());
        }
        return doc.dump(2) + "\n";
    };
    hooks.loadConfig = [base, shaders](const std::string& path) -> Result<demo::SceneSet> {
        Result<DemoSceneInputs> in = readDemoConfig(path, base);
        if (!in) {
            return in.error();
        }
        return makeDemoScenes(*in, shaders);
    };
    return hooks;
}

}  // namespace ww::app
