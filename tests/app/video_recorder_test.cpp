// The demo's video recorder without a window: which frames it writes at which simulated
// times (PNG sequence, checked pixel by pixel), a real ffmpeg encode read back with ffprobe
// and ffmpeg, the errors (an ffmpeg that quits, a resized window, bad names and folders), and
// the non-overwriting names of screenshots and traces.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app/demo/video_recorder.h"
#include "render/capture.h"
#include "support/gpu_fixture.h"
#include "support/run_command.h"
#include "support/seed.h"

namespace ww::demo {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the test's temporary directory.
fs::path freshDir(const std::string& name) {
    const fs::path dir = fs::path(testing::TempDir()) /
                         ("wavewall_video_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// A w × h image of one colour that encodes `index` (distinct for index < 4096).
render::Image solid(int w, int h, int index) {
    render::Image im;
    im.width = w;
    im.height = h;
    im.rgba.resize(static_cast<std::size_t>(w) * h * 4);
    for (std::size_t k = 0; k < im.rgba.size(); k += 4) {
        im.rgba[k] = static_cast<std::uint8_t>(index % 16 * 16);
        im.rgba[k + 1] = static_cast<std::uint8_t>(index / 16 % 16 * 16);
        im.rgba[k + 2] = static_cast<std::uint8_t>(index / 256 % 16 * 16);
        im.rgba[k + 3] = 255;
    }
    return im;
}

bool haveFfmpeg() {
    return !findExecutable("ffmpeg").empty() && !findExecutable("ffprobe").empty();
}

// Frames shown at random simulated times (random steps of a random dt per frame, pauses of
// zero steps) go to the PNG sequence once per video tick k / fps up to their time, so tick k
// shows the last frame at or before k / fps. Checked against that rule, evaluated
// independently in double precision, frame by frame, on a fresh seed.
TEST(VideoRecorder, WritesEachFrameOncePerVideoTickOfSimulatedTime) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const double fps = std::uniform_int_distribution<int>(0, 1)(rng) != 0 ? 60.0 : 25.0;
    const double dt = std::uniform_real_distribution<double>(0.004, 0.05)(rng);
    const double start = std::uniform_real_distribution<double>(0.0, 100.0)(rng);
    const fs::path dir = freshDir("ticks");
    VideoRecorderOptions o;
    o.path = (dir / "clip.mp4").string();
    o.fps = fps;
    o.ffmpeg = "none";
    auto rec = VideoRecorder::open(o, 8, 6);
    ASSERT_TRUE(rec) << rec.error().message;
    ASSERT_TRUE((*rec)->writesPngs());
    EXPECT_NE((*rec)->note().find("PNG"), std::string::npos) << (*rec)->note();

    std::vector<double> times;  // the simulated time each added frame shows
    int steps = 0;
    std::uniform_int_distribution<int> stepsPerFrame(0, 4);  // 0: paused
    for (int f = 0; f < 60; ++f) {
        steps += f == 0 ? 0 : stepsPerFrame(rng);
        times.push_back(start + steps * dt);
        ASSERT_TRUE((*rec)->addFrame(solid(8, 6, f), times.back()));
    }
    ASSERT_TRUE((*rec)->close());

    // Expected: for each tick k with k / fps <= last time - start, the last frame shown at
    // or before start + k / fps.
    std::vector<int> expected;
    for (int k = 0;; ++k) {
        const double tk = k / fps;
        if (tk > times.back() - start + 1e-9) {
            break;
        }
        int shown = 0;
        for (int f = 0; f < static_cast<int>(times.size()); ++f) {
            if (times[static_cast<std::size_t>(f)] - start <= tk + 1e-9) {
                shown = f;
            }
        }
        expected.push_back(shown);
    }
    ASSERT_EQ((*rec)->framesWritten(), static_cast<int>(expected.size()));
    for (std::size_t k = 0; k < expected.size(); ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06zu.png", k);
        const auto im = render::readPng((fs::path((*rec)->output()) / name).string());
        ASSERT_TRUE(im) << name;
        const render::Image want = solid(8, 6, expected[k]);
        ASSERT_EQ(im->width, 8);
        EXPECT_EQ(im->at(3, 2), want.at(3, 2))
            << "tick " << k << " should show frame " << expected[k];
    }
}

// A real encode: 48 frames of distinct solid colours at 24 fps, one per tick; ffprobe counts
// 48 frames of the right size and rate, and frame 30 decoded back has frame 30's colour
// within 12 of 255 per channel (yuv420p rounding and the encoder's loss on a flat image).
TEST(VideoRecorder, FfmpegEncodesEveryFrameAtTheVideoRate) {
    if (!haveFfmpeg()) {
        if (test::runningInCi()) {
            FAIL() << "CI=true but ffmpeg is missing (scripts/install-deps.sh installs it)";
        }
        GTEST_SKIP() << "ffmpeg not installed";
    }
    const fs::path dir = freshDir("ffmpeg");
    VideoRecorderOptions o;
    o.path = (dir / "clip.mp4").string();
    o.fps = 24.0;
    auto rec = VideoRecorder::open(o, 64, 48);
    ASSERT_TRUE(rec) << rec.error().message;
    ASSERT_FALSE((*rec)->writesPngs());
    for (int f = 0; f < 48; ++f) {
        ASSERT_TRUE((*rec)->addFrame(solid(64, 48, f * 37 % 4096), f / 24.0));
    }
    ASSERT_TRUE((*rec)->close());
    EXPECT_EQ((*rec)->framesWritten(), 48);

    const test::CommandResult probe = test::runShell(
        "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
        "stream=nb_read_frames,width,height,r_frame_rate -of csv=p=0 '" +
        o.path + "'");
    ASSERT_EQ(probe.code, 0) << probe.output;
    EXPECT_NE(probe.output.find("64,48,24/1,48"), std::string::npos) << probe.output;

    const std::string png = (dir / "frame30.png").string();
    const test::CommandResult grab = test::runShell(
        "ffmpeg -v error -y -i '" + o.path + "' -vf 'select=eq(n\\,30)' -vframes 1 '" + png + "'");
    ASSERT_EQ(grab.code, 0) << grab.output;
    const auto im = render::readPng(png);
    ASSERT_TRUE(im);
    const glm::u8vec4 want = solid(1, 1, 30 * 37 % 4096).at(0, 0);
    const glm::u8vec4 got = im->at(32, 24);
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(got[c], want[c], 12) << "channel " << c;
    }
}

// An ffmpeg that quits at once (/bin/false): writing to it fails with a message and no
// SIGPIPE; closing reports its exit status.
TEST(VideoRecorder, AnEncoderThatQuitsIsAnErrorNotACrash) {
    const fs::path dir = freshDir("false");
    VideoRecorderOptions o;
    o.path = (dir / "clip.mp4").string();
    o.ffmpeg = "/bin/false";
    auto rec = VideoRecorder::open(o, 320, 240);
    ASSERT_TRUE(rec) << rec.error().message;
    Status s;
    // The pipe holds 64 kB; a few 300 kB frames overflow it once the reader is gone.
    for (int f = 0; f < 20 && s.ok(); ++f) {
        ::usleep(20000);
        s = (*rec)->addFrame(solid(320, 240, f), f / 60.0);
    }
    Status closed = (*rec)->close();
    EXPECT_FALSE(s.ok() && closed.ok()) << "an encoder that quit went unnoticed";
    const std::string message = !s.ok() ? s.error().message : closed.error().message;
    EXPECT_NE(message.find("ffmpeg"), std::string::npos) << message;
}

// A frame of another size ends the recording with a message; what came before is kept.
TEST(VideoRecorder, AResizedWindowStopsTheRecordingWithAMessage) {
    const fs::path dir = freshDir("resize");
    VideoRecorderOptions o;
    o.path = (dir / "clip.mp4").string();
    o.ffmpeg = "none";
    auto rec = VideoRecorder::open(o, 8, 6);
    ASSERT_TRUE(rec);
    ASSERT_TRUE((*rec)->addFrame(solid(8, 6, 1), 0.0));
    const Status s = (*rec)->addFrame(solid(10, 6, 2), 1.0 / 60.0);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("changed size"), std::string::npos) << s.error().message;
    // What was recorded before the resize is kept: the first frame fills its tick.
    EXPECT_TRUE((*rec)->close());
    EXPECT_EQ((*rec)->framesWritten(), 1);
}

TEST(VideoRecorder, BadNamesRatesAndFoldersAreRejectedBeforeRecording) {
    const fs::path dir = freshDir("bad");
    auto check = [](const std::string& path, double fps) {
        return checkVideoOptions({path, fps, ""}, "--record");
    };
    EXPECT_TRUE(check((dir / "ok.mp4").string(), 60.0));
    for (const std::string bad : {"clip.txt", "clip", "clip.png"}) {
        const Status s = check((dir / bad).string(), 60.0);
        ASSERT_FALSE(s.ok()) << bad;
        EXPECT_EQ(s.error().kind, ErrorKind::kInput);
        EXPECT_NE(s.error().message.find("--record"), std::string::npos);
        EXPECT_NE(s.error().message.find(".mp4"), std::string::npos) << "says what to use";
    }
    for (double fps : {0.0, -5.0, 1000.0, std::nan("")}) {
        EXPECT_FALSE(check((dir / "ok.mp4").string(), fps).ok()) << fps;
    }
    const Status missing = check((dir / "no" / "such" / "clip.mp4").string(), 60.0);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos)
        << missing.error().message;
    if (::geteuid() != 0) {  // root writes anywhere
        const fs::path locked = dir / "locked";
        fs::create_directories(locked);
        fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
        const Status s = check((locked / "clip.mp4").string(), 60.0);
        fs::permissions(locked, fs::perms::owner_all);
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.error().message.find("not writable"), std::string::npos);
    }
}

TEST(VideoRecorder, NamesNeverOverwriteAndPngFoldersToo) {
    const fs::path dir = freshDir("names");
    const fs::path shot = dir / "wavewall_20261123_120000.png";
    EXPECT_EQ(nonOverwritingPath(shot), shot);
    std::ofstream(shot) << "x";
    EXPECT_EQ(nonOverwritingPath(shot), dir / "wavewall_20261123_120000_2.png");
    std::ofstream(dir / "wavewall_20261123_120000_2.png") << "x";
    EXPECT_EQ(nonOverwritingPath(shot), dir / "wavewall_20261123_120000_3.png");

    // Two PNG-sequence recordings of one name go to two folders.
    VideoRecorderOptions o;
    o.path = (dir / "clip.mp4").string();
    o.ffmpeg = "none";
    auto a = VideoRecorder::open(o, 4, 4);
    auto b = VideoRecorder::open(o, 4, 4);
    ASSERT_TRUE(a && b);
    EXPECT_NE((*a)->output(), (*b)->output());
    EXPECT_TRUE(fs::is_directory((*b)->output()));
}

}  // namespace
}  // namespace ww::demo
