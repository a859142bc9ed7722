// The desktop demo under a (virtual) display: it starts, renders N frames of each test
// scene with the panel, writes a screenshot and exits 0; the screenshot shows bricks where
// the wall is and a water surface that is not flat after a drop. Run under
// xvfb-run (ctest does so when xvfb-run is installed); skipped locally without a display,
// failed when CI=true.
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "app/demo/demo.h"
#include "app/demo/demo_panel.h"
#include "app/demo/key_bindings.h"
#include "app/demo/pacing.h"
#include "demo_test_scenes.h"
#include "render/capture.h"
#include "support/gpu_fixture.h"
#include "support/seed.h"

namespace ww::demo {
namespace {

#define WW_REQUIRE_DISPLAY()                                            \
    do {                                                                \
        const char* d = std::getenv("DISPLAY");                         \
        if (d == nullptr || *d == '\0') {                               \
            if (::ww::test::runningInCi()) {                            \
                FAIL() << "CI=true but no DISPLAY: run under xvfb-run"; \
            }                                                           \
            GTEST_SKIP() << "no DISPLAY (run under xvfb-run -a)";       \
        }                                                               \
    } while (0)

constexpr int kW = 800;
constexpr int kH = 500;
constexpr int kPanelRight = 460;  // the panel opens at x = 10 with width 440

std::string outPath(const std::string& name) {
    const char* dir = std::getenv("WW_RENDER_TEST_OUT");
    // Without a folder given, one per test run (ctest's process id): two runs of the suite on
    // one machine never count or overwrite each other's files.
    const std::filesystem::path base = dir != nullptr
                                           ? std::filesystem::path(dir)
                                           : std::filesystem::path(testing::TempDir()) /
                                                 ("wavewall-tests-" + std::to_string(::getppid()));
    std::filesystem::create_directories(base);
    return (base / name).string();
}

render::Image loadPng(const std::string& path) {
    auto image = render::readPng(path);
    EXPECT_TRUE(image.ok()) << (image.ok() ? "" : image.error().message);
    return image.ok() ? std::move(image).value() : render::Image{};
}

DemoOptions smallRun(const std::string& screenshot, int frames) {
    DemoOptions o;
    o.frames = frames;
    o.screenshotPath = screenshot;
    o.width = kW;
    o.height = kH;
    o.vsync = false;
    o.printReport = true;
    return o;
}

using Scenes = std::vector<std::unique_ptr<DemoScene>>;

template <typename... S>
Scenes scenesOf() {
    Scenes scenes;
    (scenes.push_back(std::make_unique<S>()), ...);
    return scenes;
}

// runDemo with fresh scenes from `make`. (ctest starts the X server with -noreset: by default
// it resets when its last client disconnects and refuses connections meanwhile, so a run that
// starts just as the previous one closed its window would fail to open the display.)
template <typename Make>
int runOnDisplay(const DemoOptions& options, Make make, DemoReport* report = nullptr) {
    return runDemo(options, make(), report);
}

bool isBrick(glm::u8vec4 p) {
    return p.r > 50 && p.r > p.g * 1.35f && p.r > p.b * 1.6f;
}

TEST(Demo, WallSceneRunsWithPanelAndScreenshotShowsTheWall) {
    WW_REQUIRE_DISPLAY();
    const std::string path = outPath("demo_wall.png");
    std::filesystem::remove(path);
    const test::TestWallScene reference;  // the scene is static: same bricks as the run's
    const std::vector<render::BoxInstance> bricks = reference.m_boxes;
    const CameraHome home = reference.cameraHome();
    DemoReport report;
    ASSERT_EQ(runOnDisplay(smallRun(path, 12), scenesOf<test::TestWallScene>, &report), 0);
    EXPECT_EQ(report.frames, 12);
    EXPECT_EQ(report.screenshot, path);
    EXPECT_FALSE(report.renderer.empty());
    EXPECT_GT(report.frameMs, 0.0);

    const render::Image im = loadPng(path);
    ASSERT_EQ(im.width, kW);
    ASSERT_EQ(im.height, kH);
    // The view is centred in the strip right of the panel (x = 10..450 of 800).
    EXPECT_NEAR(report.lensShiftX, 2.0f * 0.5f * (450.0f + kW) / kW - 1.0f, 0.02f);
    render::Camera cam =
        render::OrbitCamera(home.target, home.distanceM, home.yawRadians, home.pitchRadians)
            .camera();
    cam.lensShiftX = report.lensShiftX;
    int checked = 0;
    for (const render::BoxInstance& b : bricks) {
        const glm::vec3 px = cam.project(b.position + glm::vec3(0, 0, b.halfExtents.z), {kW, kH});
        if (px.x < kPanelRight || px.x >= kW || px.y < 0 || px.y >= kH) {
            continue;  // under the panel or off screen
        }
        const glm::u8vec4 p = im.at(static_cast<int>(px.x), static_cast<int>(px.y));
        EXPECT_TRUE(isBrick(p)) << "brick pixel " << px.x << "," << px.y << " rgb " << int(p.r)
                                << " " << int(p.g) << " " << int(p.b);
        ++checked;
    }
    EXPECT_GE(checked, 10);  // the home view puts most of the wall right of the panel
}

TEST(Demo, HomeViewShowsTheWholeWallBesideThePanel) {
    WW_REQUIRE_DISPLAY();
    // The default window: every brick's front face centre lands right of the panel and on
    // screen, and is drawn as a brick there.
    const std::string path = outPath("demo_wall_home.png");
    const test::TestWallScene reference;
    const CameraHome home = reference.cameraHome();
    DemoOptions o = smallRun(path, 3);
    o.width = 1280;
    o.height = 800;
    DemoReport report;
    ASSERT_EQ(runOnDisplay(o, scenesOf<test::TestWallScene>, &report), 0);
    const render::Image im = loadPng(path);
    ASSERT_EQ(im.width, 1280);
    render::Camera cam =
        render::OrbitCamera(home.target, home.distanceM, home.yawRadians, home.pitchRadians)
            .camera();
    cam.lensShiftX = report.lensShiftX;
    for (const render::BoxInstance& b : reference.m_boxes) {
        const glm::vec3 px =
            cam.project(b.position + glm::vec3(0, 0, b.halfExtents.z), {1280, 800});
        ASSERT_TRUE(px.x >= 450.0f && px.x < 1280.0f && px.y >= 0.0f && px.y < 800.0f)
            << "brick at " << px.x << "," << px.y << " is hidden or off screen";
        const glm::u8vec4 p = im.at(static_cast<int>(px.x), static_cast<int>(px.y));
        EXPECT_TRUE(isBrick(p)) << px.x << "," << px.y;
    }
}

TEST(Demo, PanelIsDrawnAndCanBeHidden) {
    WW_REQUIRE_DISPLAY();
    float withShift = 0.0f;
    auto run = [&withShift](bool panel, const std::string& path) {
        DemoOptions o = smallRun(path, 3);
        o.showPanel = panel;
        DemoReport report;
        EXPECT_EQ(runOnDisplay(o, scenesOf<test::TestWallScene>, &report), 0);
        if (panel) {
            withShift = report.lensShiftX;
        } else {
            EXPECT_EQ(report.lensShiftX, 0.0f);  // no panel, no shift
        }
        return loadPng(path);
    };
    const render::Image with = run(true, outPath("demo_panel_on.png"));
    const render::Image without = run(false, outPath("demo_panel_off.png"));
    ASSERT_EQ(with.width, kW);
    ASSERT_EQ(without.width, kW);
    // Inside the panel's rectangle most pixels change; far right of it, the scene is equal
    // up to the panel-free 3D frame (identical camera and scene).
    int panelChanged = 0;
    int panelTotal = 0;
    for (int y = 40; y < 200; ++y) {
        for (int x = 20; x < 380; ++x) {
            const glm::u8vec4 a = with.at(x, y);
            const glm::u8vec4 b = without.at(x, y);
            panelChanged += (std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b)) > 30;
            ++panelTotal;
        }
    }
    EXPECT_GT(panelChanged, panelTotal / 2);
    // With the panel the view is centred beside it: the scene moves right by
    // lensShift * width / 2 pixels and is otherwise the same picture.
    const int shiftPx = static_cast<int>(std::lround(withShift * 0.5f * kW));
    EXPECT_GT(shiftPx, 150);
    int sceneChanged = 0;
    int sceneTotal = 0;
    for (int y = 0; y < kH; ++y) {
        for (int x = 600; x < kW; ++x) {
            const glm::u8vec4 a = with.at(x, y);
            const glm::u8vec4 b = without.at(x - shiftPx, y);
            sceneChanged += (std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b)) > 40;
            ++sceneTotal;
        }
    }
    // Sub-pixel shifts move edges by a pixel (and the shadow map's texels): a few per cent.
    EXPECT_LT(sceneChanged, sceneTotal / 25) << sceneChanged << " of " << sceneTotal;
}

TEST(Demo, WaterIsNotFlatAfterADrop) {
    WW_REQUIRE_DISPLAY();
    auto run = [](bool drop, const std::string& path) {
        DemoOptions o = smallRun(path, 10);
        o.initialScene = 1;
        auto make = [drop] {
            Scenes scenes = scenesOf<test::TestWallScene>();
            scenes.push_back(std::make_unique<test::TestPoolScene>(drop));
            return scenes;
        };
        EXPECT_EQ(runOnDisplay(o, make), 0);
        return loadPng(path);
    };
    const render::Image flat = run(false, outPath("demo_water_flat.png"));
    const render::Image rippled = run(true, outPath("demo_water.png"));
    ASSERT_EQ(flat.width, kW);
    ASSERT_EQ(rippled.width, kW);
    int changed = 0;
    int total = 0;
    for (int y = 0; y < kH; ++y) {
        for (int x = kPanelRight; x < kW; ++x) {
            const glm::u8vec4 a = flat.at(x, y);
            const glm::u8vec4 b = rippled.at(x, y);
            changed += (std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b)) > 12;
            ++total;
        }
    }
    // Rings 0.6–0.8 s after the drop cover a few m² of the 33 m² pool: well over 2% of the
    // scene part of the frame changes clearly.
    EXPECT_GT(changed, total / 50);
}

TEST(Demo, TraceRecordsEveryFramesPhases) {
    WW_REQUIRE_DISPLAY();
    const std::string path = outPath("demo_trace.json");
    std::filesystem::remove(path);
    DemoOptions o = smallRun("", 4);
    o.tracePath = path;
    ASSERT_EQ(runOnDisplay(o, scenesOf<test::TestWallScene>), 0);
    std::ifstream in(path);
    const nlohmann::json trace = nlohmann::json::parse(in, nullptr, false);
    ASSERT_FALSE(trace.is_discarded()) << path << " is not valid JSON";
    int sim = 0;
    int render = 0;
    int counters = 0;
    for (const auto& e : trace["traceEvents"]) {
        sim += e["name"] == "sim" && e["ph"] == "X";
        render += e["name"] == "render" && e["ph"] == "X";
        counters += e["ph"] == "C";
    }
    EXPECT_EQ(sim, 4);
    EXPECT_EQ(render, 4);
    EXPECT_EQ(counters, 4);
    o.tracePath = "/nonexistent-dir/trace.json";
    EXPECT_EQ(runOnDisplay(o, scenesOf<test::TestWallScene>), 2);
}

// Scenes run on the window's thread with its context current: this one resizes the window
// from inside the loop, as a user dragging its border would.
class ResizingWallScene : public test::TestWallScene {
  public:
    void step() override {
        TestWallScene::step();
        if (++m_calls == 2) {
            glfwSetWindowSize(glfwGetCurrentContext(), 640, 360);
        }
    }

  private:
    int m_calls = 0;
};

TEST(Demo, ResizedWindowRendersAtTheNewSize) {
    WW_REQUIRE_DISPLAY();
    const std::string path = outPath("demo_resized.png");
    DemoOptions o = smallRun(path, 8);
    o.showPanel = false;
    ASSERT_EQ(runOnDisplay(o, scenesOf<ResizingWallScene>), 0);
    const render::Image im = loadPng(path);
    ASSERT_EQ(im.width, 640);
    ASSERT_EQ(im.height, 360);
    // The frame fills the new size: the wall in the middle, sky at the top, no stale
    // (black or garbage) band from the old size.
    EXPECT_TRUE(isBrick(im.at(320, 200)));
    for (int x = 0; x < 640; x += 40) {
        const glm::u8vec4 top = im.at(x, 2);
        EXPECT_GT(top.b, 150) << "sky expected at (" << x << ", 2)";
    }
}

// A wall whose frames are slow (each step sleeps): a synthetic ctrl + click (xdotool sends
// press and release back to back) then falls within one frame. It reports its brick count when
// destroyed. With `holdUntil`, a step also waits (up to a minute) until that flag is set: the
// xdotool tests set it when xdotool has returned, so that their events arrive while the demo
// still has frames to run however slowly the machine starts the window and xdotool (a loaded
// machine can take longer than a run of fixed frames lasts).
class SlowWallScene : public test::TestWallScene {
  public:
    explicit SlowWallScene(std::shared_ptr<std::size_t> bricksLeft,
                           std::shared_ptr<const std::atomic<bool>> holdUntil = nullptr)
        : m_bricksLeft(std::move(bricksLeft)), m_holdUntil(std::move(holdUntil)) {}
    ~SlowWallScene() override { *m_bricksLeft = m_boxes.size(); }
    void step() override {
        TestWallScene::step();
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
        const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (m_holdUntil && !m_holdUntil->load() && std::chrono::steady_clock::now() < giveUp) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }

  private:
    std::shared_ptr<std::size_t> m_bricksLeft;
    std::shared_ptr<const std::atomic<bool>> m_holdUntil;
};

bool haveXdotool() {
    return std::system("command -v xdotool > /dev/null 2>&1") == 0;
}

// Runs an xdotool command line on a thread (once the demo's window is up: the command starts
// with `xdotool search --sync`), expects it to succeed, and sets done() when it has returned.
class XdotoolThread {
  public:
    explicit XdotoolThread(std::string command)
        : m_done(std::make_shared<std::atomic<bool>>(false)),
          m_thread([command = std::move(command), done = m_done] {
              const int rc = std::system(command.c_str());
              EXPECT_EQ(rc, 0) << "xdotool failed: " << command;
              done->store(true);
          }) {}
    ~XdotoolThread() { join(); }
    XdotoolThread(const XdotoolThread&) = delete;
    XdotoolThread& operator=(const XdotoolThread&) = delete;
    void join() {
        if (m_thread.joinable()) {
            m_thread.join();
        }
    }
    std::shared_ptr<const std::atomic<bool>> done() const { return m_done; }

  private:
    std::shared_ptr<std::atomic<bool>> m_done;
    std::thread m_thread;
};

TEST(Demo, ClickWithinOneFrameIsNotLost) {
    WW_REQUIRE_DISPLAY();
    if (!haveXdotool()) {
        if (test::runningInCi()) {
            FAIL() << "CI=true but xdotool is missing (apt-get install xdotool)";
        }
        GTEST_SKIP() << "xdotool not installed";
    }
    auto bricksLeft = std::make_shared<std::size_t>(0);
    const std::size_t bricks = test::TestWallScene().m_boxes.size();
    DemoOptions o = smallRun("", 40);  // 40 frames of >= 120 ms
    o.showPanel = false;
    // Clicks at the window's centre, where the home view shows the wall, once the window is
    // up; xdotool presses and releases within a millisecond or so, far inside one frame (the
    // first step holds until then: both events wait in the queue for the next frame).
    XdotoolThread clicker(
        "timeout 60 xdotool search --sync --name '^wavewall$' mousemove --window %1 400 250 "
        "keydown ctrl click 1 keyup ctrl > /dev/null 2>&1");
    DemoReport report;
    const int code = runDemo(
        o,
        [&] {
            Scenes scenes;
            scenes.push_back(std::make_unique<SlowWallScene>(bricksLeft, clicker.done()));
            return scenes;
        }(),
        &report);
    clicker.join();
    ASSERT_EQ(code, 0);
    EXPECT_EQ(report.picks, 1);
    EXPECT_EQ(*bricksLeft, bricks - 1) << "the click did not remove a brick";
}

// A scene rebuilt at another size moves its home: the view follows it.
class GrowingWallScene : public test::TestWallScene {
  public:
    void step() override {
        TestWallScene::step();
        ++m_calls;
    }
    CameraHome cameraHome() const override {
        CameraHome h = TestWallScene::cameraHome();
        h.distanceM = m_calls >= 3 ? 2.0f * h.distanceM : h.distanceM;
        return h;
    }

  private:
    int m_calls = 0;
};

TEST(Demo, ViewFollowsAMovedHome) {
    WW_REQUIRE_DISPLAY();
    DemoReport report;
    ASSERT_EQ(runOnDisplay(smallRun("", 8), scenesOf<GrowingWallScene>, &report), 0);
    EXPECT_FLOAT_EQ(report.cameraDistanceM, 2.0f * test::TestWallScene().cameraHome().distanceM);
}

// In a 700 px window the panel takes 55 % (385 px), not 440 px: the view beside it is
// centred in the rest without reaching the lens shift's 0.6 limit.
TEST(Demo, PanelScalesWithASmallWindow) {
    WW_REQUIRE_DISPLAY();
    EXPECT_EQ(panelWidthFor(800.0f), 440.0f);
    EXPECT_EQ(panelWidthFor(700.0f), 385.0f);
    DemoOptions o = smallRun("", 3);
    o.width = 700;
    DemoReport report;
    ASSERT_EQ(runOnDisplay(o, scenesOf<test::TestWallScene>, &report), 0);
    // The panel opens at x = 10: right edge 395, the free strip's centre (395 + 700) / 2.
    EXPECT_NEAR(report.lensShiftX, (395.0f + 700.0f) / 700.0f - 1.0f, 0.01f);
}

TEST(StatusNote, ShownForAFewSecondsThenGone) {
    StatusNote note;
    EXPECT_FALSE(note.visibleAt(StatusNote::now()));
    note = "saved shot.png";
    const double t = StatusNote::now();
    EXPECT_TRUE(note.visibleAt(t));
    EXPECT_TRUE(note.visibleAt(t + 0.5 * StatusNote::kSeconds));
    EXPECT_FALSE(note.visibleAt(t + 1.01 * StatusNote::kSeconds));
    EXPECT_EQ(note.text(), "saved shot.png");
}

// The backend is one choice for the demo: G (as the panel's radio) switches every scene, not
// only the one shown.
TEST(Demo, BackendSwitchAppliesToEveryScene) {
    WW_REQUIRE_DISPLAY();
    if (!haveXdotool()) {
        if (test::runningInCi()) {
            FAIL() << "CI=true but xdotool is missing (apt-get install xdotool)";
        }
        GTEST_SKIP() << "xdotool not installed";
    }
    auto unused = std::make_shared<std::size_t>(0);
    DemoOptions o = smallRun("", 30);
    o.showPanel = false;
    XdotoolThread typist(
        "timeout 60 xdotool search --sync --name '^wavewall$' windowfocus --sync %1 key g "
        "> /dev/null 2>&1");
    DemoReport report;
    const int code = runDemo(
        o,
        [&] {
            Scenes scenes;
            scenes.push_back(std::make_unique<SlowWallScene>(unused, typist.done()));
            scenes.push_back(std::make_unique<test::TestPoolScene>());
            return scenes;
        }(),
        &report);
    typist.join();
    ASSERT_EQ(code, 0);
    EXPECT_EQ(report.sceneBackends, (std::vector<std::string>{"gpu", "gpu"}));
}

TEST(Demo, BadSceneIndexIsAUsageError) {
    WW_REQUIRE_DISPLAY();
    DemoOptions o = smallRun("", 1);
    o.initialScene = 5;
    EXPECT_EQ(runOnDisplay(o, scenesOf<test::TestWallScene>), 2);
}

TEST(Demo, ExplicitGpuBackendThatFailsExits3ImplicitFallsBackToCpu) {
    WW_REQUIRE_DISPLAY();
    auto make = [] {
        auto s = std::make_unique<test::TestWallScene>();
        s->m_allowGpu = false;
        Scenes scenes;
        scenes.push_back(std::move(s));
        return scenes;
    };
    DemoOptions o = smallRun("", 2);
    o.backend = Backend::kGpu;
    o.backendExplicit = false;
    DemoReport report;
    EXPECT_EQ(runOnDisplay(o, make, &report), 0);
    EXPECT_EQ(report.frames, 2);
    o.backendExplicit = true;
    DemoReport failed;
    EXPECT_EQ(runOnDisplay(o, make, &failed), 3);
    EXPECT_FALSE(failed.renderer.empty());  // the window was there: 3 came from the backend
    EXPECT_EQ(failed.frames, 0);
}

TEST(Demo, UnwritableScreenshotIsAnError) {
    WW_REQUIRE_DISPLAY();
    EXPECT_EQ(runOnDisplay(smallRun("/nonexistent-dir/shot.png", 1), scenesOf<test::TestWallScene>),
              2);
}

// Real-time pacing on fresh random frame times: frames shorter than maxSteps steps keep the
// simulated time within one dt of the wall time (the accumulator carries the remainder);
// frames longer take maxSteps and drop the rest, and speed() is then maxSteps dt / frame.
TEST(RealTimePacer, FollowsTheClockAndSaysHowMuchSlowerItRuns) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const double dt = std::uniform_real_distribution<double>(1.0 / 240.0, 1.0 / 30.0)(rng);
    // maxSteps dt <= 0.1 s, so that a slow frame (below: at least 0.2 s or 2 maxSteps dt, and
    // counted as at most RealTimePacer::kMaxFrameSeconds = 0.25 s) always owes more than
    // maxSteps steps.
    const int maxSteps = std::uniform_int_distribution<int>(
        2, std::min(8, static_cast<int>(std::floor(0.1 / dt))))(rng);
    std::uniform_real_distribution<double> fast(0.0, 0.95 * maxSteps * dt);

    RealTimePacer pacer;
    double wall = 0.0;
    double simulated = 0.0;
    for (int frame = 0; frame < 500; ++frame) {
        const double seconds = fast(rng);
        wall += seconds;
        const int n = pacer.stepsFor(seconds, dt, maxSteps);
        ASSERT_GE(n, 0);
        ASSERT_LE(n, maxSteps);
        simulated += n * dt;
        // Behind by less than one step, never ahead (1e-9 s: rounding of 500 sums).
        ASSERT_LE(simulated, wall + 1e-9);
        ASSERT_GT(simulated, wall - dt - 1e-9);
    }
    // Within one step over the last second of frames (~1 s averaging).
    EXPECT_NEAR(pacer.speed(), 1.0, 0.05);
    EXPECT_FALSE(pacer.slowerThanRealTime());

    // Frames 2 to 6 times too long for maxSteps steps: maxSteps each, no backlog carried.
    std::uniform_real_distribution<double> slowFactor(2.0, 6.0);
    const double slowFrame = std::min(slowFactor(rng) * maxSteps * dt, 0.2);
    for (int frame = 0; frame < 400; ++frame) {
        ASSERT_EQ(pacer.stepsFor(slowFrame, dt, maxSteps), maxSteps);
    }
    // The fast frames' weight has decayed to exp(-400 frames * slowFrame / 1 s) < 1e-3 or so:
    // 2 % of the expected ratio.
    EXPECT_NEAR(pacer.speed(), maxSteps * dt / slowFrame, 0.02 * maxSteps * dt / slowFrame);
    EXPECT_TRUE(pacer.slowerThanRealTime());
    // Back to fast frames: no burst of the dropped backlog.
    EXPECT_LE(pacer.stepsFor(0.5 * dt, dt, maxSteps), 1);
}

// One table drives the keys and the help: every key maps to the binding that lists it, no key
// is bound twice, and each command has a key.
TEST(KeyBindings, EachKeyHasOneBindingAndEachCommandAKey) {
    std::set<int> keys;
    std::set<KeyCommand> commands;
    for (const KeyBinding& b : keyBindings()) {
        EXPECT_LE(b.firstKey, b.lastKey) << b.keys;
        for (int k = b.firstKey; k <= b.lastKey; ++k) {
            EXPECT_TRUE(keys.insert(k).second) << "key " << k << " bound twice";
            EXPECT_EQ(bindingForKey(k), &b) << b.keys;
        }
        commands.insert(b.command);
        EXPECT_NE(std::string(b.action), "");
    }
    EXPECT_EQ(commands.size(), static_cast<std::size_t>(KeyCommand::kQuit) + 1);
    EXPECT_EQ(bindingForKey(GLFW_KEY_F1)->command, KeyCommand::kHelp);
    EXPECT_EQ(bindingForKey(GLFW_KEY_Z), nullptr);
    EXPECT_FALSE(mouseBindings().empty());
}

// Counts pixels of one overlay text colour (ImGui's text is anti-aliased: a loose match).
int pixelsNear(const render::Image& im, int x0, int y0, int x1, int y1, glm::ivec3 colour) {
    int n = 0;
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
            const glm::u8vec4 p = im.at(x, y);
            n += std::abs(p.r - colour.r) + std::abs(p.g - colour.g) + std::abs(p.b - colour.b) < 40
                     ? 1
                     : 0;
        }
    }
    return n;
}

// Slow steps (120 ms each) under real-time pacing: the view says "slower than real time" in
// orange at its bottom left; under fixed pacing it does not.
TEST(Demo, RealTimePacingShowsTheSlowDownInTheView) {
    WW_REQUIRE_DISPLAY();
    auto unused = std::make_shared<std::size_t>(0);
    const auto slowWall = [&] {
        Scenes scenes;
        scenes.push_back(std::make_unique<SlowWallScene>(unused));
        return scenes;
    };
    const glm::ivec3 orange(255, 153, 102);  // drawViewStatus's slow-down colour
    DemoOptions o = smallRun(outPath("demo_realtime_slow.png"), 12);
    o.showPanel = false;
    o.pacing = Pacing::kRealTime;
    DemoReport report;
    ASSERT_EQ(runOnDisplay(o, slowWall, &report), 0);
    // At most 4 steps of 1/60 s per frame of >= 120 ms a step: well below real time.
    EXPECT_LT(report.speed, 0.6);
    const render::Image slow = loadPng(o.screenshotPath);
    ASSERT_EQ(slow.width, kW);
    EXPECT_GT(pixelsNear(slow, 0, kH - 60, 400, kH, orange), 30) << o.screenshotPath;

    o.pacing = Pacing::kFixed;
    o.screenshotPath = outPath("demo_fixed_slow.png");
    ASSERT_EQ(runOnDisplay(o, slowWall, &report), 0);
    const render::Image fixed = loadPng(o.screenshotPath);
    ASSERT_EQ(fixed.width, kW);
    EXPECT_LT(pixelsNear(fixed, 0, kH - 60, 400, kH, orange), 5) << o.screenshotPath;
}

// F1 and space through the real key path (xdotool): the help overlay is up, the simulation is
// paused and the view says so (yellow line at its bottom left).
TEST(Demo, F1ShowsTheHelpAndSpaceShowsThePause) {
    WW_REQUIRE_DISPLAY();
    if (!haveXdotool()) {
        if (test::runningInCi()) {
            FAIL() << "CI=true but xdotool is missing (apt-get install xdotool)";
        }
        GTEST_SKIP() << "xdotool not installed";
    }
    auto unused = std::make_shared<std::size_t>(0);
    DemoOptions o = smallRun(outPath("demo_help_paused.png"), 30);
    o.showPanel = false;
    XdotoolThread typist(
        "timeout 60 xdotool search --sync --name '^wavewall$' windowfocus --sync %1 key F1 key "
        "space > /dev/null 2>&1");
    DemoReport report;
    const int code = runDemo(
        o,
        [&] {
            Scenes scenes;
            scenes.push_back(std::make_unique<SlowWallScene>(unused, typist.done()));
            return scenes;
        }(),
        &report);
    typist.join();
    ASSERT_EQ(code, 0);
    EXPECT_TRUE(report.helpShown);
    EXPECT_TRUE(report.paused);
    const render::Image shot = loadPng(o.screenshotPath);
    ASSERT_EQ(shot.width, kW);
    const glm::ivec3 yellow(255, 217, 77);  // drawViewStatus's pause colour
    EXPECT_GT(pixelsNear(shot, 0, kH - 60, 400, kH, yellow), 30) << o.screenshotPath;
    // The help window's title bar (ImGui's dark style: active title 41,74,122) at the top
    // middle of the view.
    EXPECT_GT(pixelsNear(shot, 200, 35, 600, 70, glm::ivec3(41, 74, 122)) +
                  pixelsNear(shot, 200, 35, 600, 70, glm::ivec3(10, 10, 10)),
              200)
        << o.screenshotPath;
}

}  // namespace
}  // namespace ww::demo
