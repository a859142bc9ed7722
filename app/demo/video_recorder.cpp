#include "app/demo/video_recorder.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

extern char** environ;

namespace ww::demo {

namespace {

constexpr std::array kVideoExtensions = {".mp4", ".mkv", ".webm", ".mov", ".avi"};

Error ioError(std::string message) {
    return {ErrorKind::kIo, std::move(message)};
}

std::string fpsText(double fps) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", fps);
    return text;
}

}  // namespace

Status checkVideoOptions(const VideoRecorderOptions& options, const std::string& what) {
    const std::filesystem::path path(options.path);
    const std::string ext = path.extension().string();
    if (std::find(kVideoExtensions.begin(), kVideoExtensions.end(), ext) ==
        kVideoExtensions.end()) {
        return inputError(what + " '" + options.path +
                          "': not a video file name; end it in .mp4, .mkv, .webm, .mov or .avi");
    }
    if (!(options.fps >= 1.0 && options.fps <= 240.0)) {
        return inputError(what + ": the video rate " + fpsText(options.fps) +
                          " fps is outside [1, 240]");
    }
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        return ioError(what + " '" + options.path + "': the folder '" + dir.string() +
                       "' does not exist; create it or choose another path");
    }
    if (::access(dir.c_str(), W_OK) != 0) {
        return ioError(what + " '" + options.path + "': the folder '" + dir.string() +
                       "' is not writable; choose another path");
    }
    return {};
}

std::string findExecutable(const std::string& name) {
    if (name.empty()) {
        return {};
    }
    if (name.find('/') != std::string::npos) {
        return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
    }
    const char* pathEnv = std::getenv("PATH");
    std::string dirs = pathEnv != nullptr ? pathEnv : "/usr/bin:/bin";
    std::size_t begin = 0;
    while (begin <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
        const std::string dir = dirs.substr(begin, end - begin);
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        begin = end + 1;
    }
    return {};
}

std::filesystem::path nonOverwritingPath(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        return path;
    }
    const std::filesystem::path dir = path.parent_path();
    const std::string stem = path.stem().string();
    const std::string ext = path.extension().string();
    for (int k = 2;; ++k) {
        std::filesystem::path candidate = dir / (stem + "_" + std::to_string(k) + ext);
        if (!std::filesystem::exists(candidate, ec)) {
            return candidate;
        }
    }
}

Result<std::unique_ptr<VideoRecorder>> VideoRecorder::open(const VideoRecorderOptions& options,
                                                           int width, int height) {
    if (Status s = checkVideoOptions(options, "recording"); !s) {
        return s.error();
    }
    if (width <= 0 || height <= 0) {
        return inputError("recording: the frame size " + std::to_string(width) + "x" +
                          std::to_string(height) + " is empty");
    }
    std::unique_ptr<VideoRecorder> r(new VideoRecorder());
    r->m_width = width;
    r->m_height = height;
    r->m_fps = options.fps;

    const std::string ffmpeg =
        options.ffmpeg == "none"
            ? std::string()
            : findExecutable(options.ffmpeg.empty() ? std::string("ffmpeg") : options.ffmpeg);
    if (ffmpeg.empty()) {
        // No ffmpeg: a numbered PNG sequence in a fresh folder beside the file.
        const std::filesystem::path video(options.path);
        const std::filesystem::path dir =
            nonOverwritingPath(video.parent_path() / (video.stem().string() + "_frames"));
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) {
            return ioError("recording: cannot create the frame folder '" + dir.string() +
                           "': " + ec.message());
        }
        r->m_output = dir.string();
        r->m_png = true;
        r->m_note = (options.ffmpeg == "none" ? std::string("PNG frames asked for")
                                              : std::string("ffmpeg not found on PATH")) +
                    ": writing numbered PNG frames to " + r->m_output + "/ at " +
                    fpsText(options.fps) +
                    " fps of simulated time (install ffmpeg to record a video file)";
        return r;
    }

    // ffmpeg reads raw RGBA frames on stdin; odd sizes are padded to even for yuv420p.
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    const std::string rate = fpsText(options.fps);
    std::vector<std::string> args = {ffmpeg,
                                     "-hide_banner",
                                     "-loglevel",
                                     "error",
                                     "-y",
                                     "-f",
                                     "rawvideo",
                                     "-pix_fmt",
                                     "rgba",
                                     "-video_size",
                                     size,
                                     "-framerate",
                                     rate,
                                     "-i",
                                     "pipe:0",
                                     "-vf",
                                     "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                     "-pix_fmt",
                                     "yuv420p",
                                     options.path};
    std::vector<char*> argv;
    for (std::string& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);

    int fds[2];
    if (::pipe(fds) != 0) {
        return ioError(std::string("recording: cannot create a pipe to ffmpeg: ") +
                       std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    // ffmpeg gets a process group of its own: Ctrl-C at a terminal signals the whole
    // foreground group, and ffmpeg would quit on it mid-recording; the demo closes its pipe
    // instead (docs/demo.md), and ffmpeg then finishes the file.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    pid_t child = -1;
    const int rc = posix_spawn(&child, ffmpeg.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    if (rc != 0) {
        ::close(fds[1]);
        return ioError("recording: cannot start " + ffmpeg + ": " + std::strerror(rc));
    }
    // A write to a pipe whose reader quit must fail with EPIPE, not kill the demo.
    std::signal(SIGPIPE, SIG_IGN);
    r->m_pipe = ::fdopen(fds[1], "wb");
    r->m_child = child;
    r->m_output = options.path;
    r->m_note =
        "ffmpeg -> " + options.path + " (" + size + " at " + rate + " fps of simulated time)";
    return r;
}

VideoRecorder::~VideoRecorder() {
    if (!m_closed) {
        (void)close();
    }
}

Status VideoRecorder::writeFrame(const render::Image& image) {
    if (m_pipe != nullptr) {
        const std::size_t bytes = image.rgba.size();
        if (std::fwrite(image.rgba.data(), 1, bytes, m_pipe) != bytes) {
            return ioError("recording " + m_output + ": ffmpeg stopped taking frames after " +
                           std::to_string(m_frames) + " (" + std::strerror(errno) +
                           "); see its message above");
        }
    } else {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06d.png", m_frames);
        if (Status s = render::writePng(image, (std::filesystem::path(m_output) / name).string());
            !s) {
            return s;
        }
    }
    ++m_frames;
    return {};
}

Status VideoRecorder::addFrame(const render::Image& image, double simSeconds) {
    if (m_closed) {
        return ioError("recording " + m_output + ": already finished");
    }
    if (image.width != m_width || image.height != m_height) {
        return inputError("recording " + m_output + ": the window changed size from " +
                          std::to_string(m_width) + "x" + std::to_string(m_height) + " to " +
                          std::to_string(image.width) + "x" + std::to_string(image.height) +
                          "; the recording stops (start a new one at the new size)");
    }
    if (!m_started) {
        m_started = true;
        m_startSeconds = simSeconds;
    }
    // Sample and hold: tick k (simulated time k / fps) shows the last frame at or before it,
    // so the held frame fills every tick before this frame's time, and this frame is held.
    if (Status s = writeTicksBefore((simSeconds - m_startSeconds) * m_fps); !s) {
        return s;
    }
    m_held = image;
    m_heldTicks = (simSeconds - m_startSeconds) * m_fps;
    return {};
}

// Writes the held frame for the ticks k < `ticks` not written yet. Ticks within 1e-6 of a
// frame's time count as at it (rounding of k / fps against sums of dt).
Status VideoRecorder::writeTicksBefore(double ticks) {
    while (!m_held.rgba.empty() && static_cast<double>(m_ticks) < ticks - 1e-6) {
        if (Status s = writeFrame(m_held); !s) {
            return s;
        }
        ++m_ticks;
    }
    return {};
}

Status VideoRecorder::close() {
    if (m_closed) {
        return {};
    }
    m_closed = true;
    // The last frame fills the ticks up to its own time.
    Status written = writeTicksBefore(std::floor(m_heldTicks + 1e-6) + 1.0);
    m_held = {};
    if (m_pipe == nullptr) {
        return written;
    }
    std::fclose(m_pipe);
    m_pipe = nullptr;
    int status = 0;
    if (::waitpid(m_child, &status, 0) < 0) {
        return ioError("recording " + m_output + ": lost track of ffmpeg: " + std::strerror(errno));
    }
    if (!written) {
        return written;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return ioError("recording " + m_output + ": ffmpeg failed (exit " +
                       std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                       "); see its message above");
    }
    return {};
}

}  // namespace ww::demo
