// app::EventScript (app/scenes/event_script.h): the one place scripted events are applied.
// `wavewall headless` and runSceneSteps (the demo's no-display run) must give the same state for
// the same script, and a scripted reset must rebuild the scene in both.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/headless_run.h"
#include "app/cli/scene_registry.h"
#include "app/scenes/event_script.h"
#include "app/small_scenes.h"

namespace ww::app {
namespace {

using test::smallScenes;

std::unique_ptr<SimScene> make(const std::string& name) {
    Result<std::unique_ptr<SimScene>> made = makeScene(name, smallScenes(), 7);
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made ? std::move(made).value() : nullptr;
}

std::string hashAfter(const std::string& name, int steps, const std::vector<std::string>& events) {
    std::unique_ptr<SimScene> scene = make(name);
    Result<EventScript> script = EventScript::parse(events);
    EXPECT_TRUE(script.ok()) << script.error().message;
    EXPECT_TRUE(script->validate(*scene).ok());
    const SceneRunStats run = runSceneSteps(*scene, steps, *script);
    EXPECT_TRUE(run.violations.empty()) << run.violations.front();
    return scene->stateHash();
}

// The final hash `wavewall headless` prints for the same scene, options and events.
std::string headlessHash(const std::string& name, int steps,
                         const std::vector<std::string>& events) {
    std::string cmd = WW_WAVEWALL_EXE
                      " headless --backend cpu --seed 7 --wall 4x3 --grid 32x32"
                      " --scene " +
                      name + " --steps " + std::to_string(steps);
    for (const std::string& e : events) {
        cmd += " --event " + e;
    }
    cmd += " 2>&1";
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    std::array<char, 4096> buf{};
    while (p != nullptr && fgets(buf.data(), buf.size(), p) != nullptr) {
        out += buf.data();
    }
    const int status = p != nullptr ? pclose(p) : -1;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    const auto at = out.find("  hash      ");
    EXPECT_NE(at, std::string::npos) << out;
    return at == std::string::npos ? "" : out.substr(at + 12, out.find('\n', at) - at - 12);
}

TEST(EventScript, SortsByStepKeepingTheOrderWithinAStep) {
    Result<EventScript> s =
        EventScript::parse({"30:shoot", "10:remove:1,0", "10:push:2,0", "0:reset"});
    ASSERT_TRUE(s.ok()) << s.error().message;
    std::vector<std::string> order;
    for (const SceneEvent& e : s->events()) {
        order.push_back(std::to_string(e.step) + ":" + e.action);
    }
    EXPECT_EQ(order, (std::vector<std::string>{"0:reset", "10:remove", "10:push", "30:shoot"}));
}

TEST(EventScript, MalformedOrUnknownEventsAreInputErrorsNamingThem) {
    Result<EventScript> bad = EventScript::parse({"10:shoot", "x:shoot"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'x:shoot'"), std::string::npos) << bad.error().message;

    std::unique_ptr<SimScene> wall = make("wall");
    Result<EventScript> resetWithArgs = EventScript::parse({"5:reset:now"});
    ASSERT_TRUE(resetWithArgs.ok());
    const Status s = resetWithArgs->validate(*wall);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::kInput);
    EXPECT_NE(s.error().message.find("reset takes no arguments"), std::string::npos);

    Result<EventScript> waterOnWall = EventScript::parse({"5:drop:0.5,0.5"});
    ASSERT_TRUE(waterOnWall.ok());
    EXPECT_FALSE(waterOnWall->validate(*wall).ok());
    // Every scene has reset.
    for (const char* name : {"wall", "water"}) {
        EXPECT_TRUE(EventScript::parse({"5:reset"})->validate(*make(name)).ok()) << name;
    }
}

TEST(EventScript, AppliesDueEventsOnceAndReportsFailuresWithoutStopping) {
    std::unique_ptr<SimScene> wall = make("wall");
    EventScript script = *EventScript::parse({"2:remove:99,99", "2:shoot", "5:shoot"});
    std::vector<std::string> applied;
    ScriptHooks hooks;
    hooks.applied = [&](const SceneEvent& e) { applied.push_back(e.text); };
    EXPECT_TRUE(script.apply(*wall, 1, hooks).empty());
    EXPECT_EQ(script.position(), 0u);
    const std::vector<std::string> errors = script.apply(*wall, 3, hooks);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("no brick at column 99"), std::string::npos) << errors[0];
    EXPECT_EQ(applied, std::vector<std::string>{"2:shoot"});
    EXPECT_EQ(script.position(), 2u);
    EXPECT_TRUE(script.apply(*wall, 3, hooks).empty());  // nothing twice
    EXPECT_EQ(applied.size(), 1u);
    script.seek(0);
    EXPECT_EQ(script.apply(*wall, 10, hooks).size(), 1u);
    EXPECT_EQ(applied, (std::vector<std::string>{"2:shoot", "2:shoot", "5:shoot"}));
}

// A reset at step K of an N-step run leaves the state of a fresh scene run N - K steps: the
// shot before it is gone. Fails when reset is ignored (or only applied by some callers).
TEST(EventScript, ResetRebuildsTheSceneInRunSceneSteps) {
    const std::vector<std::pair<std::string, std::string>> scenes = {{"wall", "5:shoot"},
                                                                     {"water", "3:drop:0.3,0.6"}};
    for (const auto& [name, event] : scenes) {
        const std::string fresh = hashAfter(name, 20, {});
        EXPECT_EQ(hashAfter(name, 60, {event, "40:reset"}), fresh) << name;
        EXPECT_NE(hashAfter(name, 60, {event}), hashAfter(name, 60, {event, "40:reset"})) << name;
    }
}

TEST(EventScript, HeadlessCommandAndRunSceneStepsAgreeOnAScriptWithReset) {
    for (const auto& [name, event] : std::vector<std::pair<std::string, std::string>>{
             {"wall", "5:shoot"}, {"water", "3:drop:0.3,0.6"}}) {
        const std::vector<std::string> script = {event, "40:reset", "45:" + event.substr(2)};
        EXPECT_EQ(headlessHash(name, 60, script), hashAfter(name, 60, script)) << name;
    }
}

}  // namespace
}  // namespace ww::app
