// Records the demo's frames as a video that plays at the simulation's rate.
//
// Each rendered frame comes with the simulated time it shows; video frame k (simulated time
// k / fps after the first) shows the last frame at or before its time: a slow machine that
// renders one frame per three steps still makes a video that plays in real (simulated) time,
// a paused simulation records nothing, and a scene stepping faster than the video rate has
// frames dropped. The frames go to ffmpeg through a pipe (raw RGBA on its standard input;
// the container follows the file's extension), or, when ffmpeg is not installed, to a
// numbered PNG sequence beside the file (the note says so).
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "render/capture.h"
#include "solver/core/result.h"

namespace ww::demo {

struct VideoRecorderOptions {
    std::string path;   ///< the video file (.mp4, .mkv, .webm, .mov)
    double fps = 60.0;  ///< video frames per simulated second
    /// The ffmpeg executable: empty searches PATH; "none" (or one that is not there) writes
    /// the PNG sequence instead.
    std::string ffmpeg;
};

/// Checks `options` before anything runs: a known video extension, fps in [1, 240], and a
/// folder that exists and can be written. The error names `what` (the flag).
Status checkVideoOptions(const VideoRecorderOptions& options, const std::string& what);

/// The first executable `name` on PATH (or `name` itself if it holds a '/' and is
/// executable); empty when there is none.
std::string findExecutable(const std::string& name);

/// `path`, or, if that exists, the first free `stem_2.ext`, `stem_3.ext`, ...
std::filesystem::path nonOverwritingPath(const std::filesystem::path& path);

class VideoRecorder {
  public:
    /// Starts a recording of width × height frames (checkVideoOptions first).
    static Result<std::unique_ptr<VideoRecorder>> open(const VideoRecorderOptions& options,
                                                       int width, int height);
    ~VideoRecorder();
    VideoRecorder(const VideoRecorder&) = delete;
    VideoRecorder& operator=(const VideoRecorder&) = delete;

    /// Adds the frame that shows simulated time `simSeconds` (any origin; times must not
    /// decrease). Video tick k (time k / fps after the first frame) shows the last frame at
    /// or before it; the frame is held until the next one says how many ticks it covers.
    /// A frame of another size, or a write that fails (ffmpeg quit, disk full), is an error.
    Status addFrame(const render::Image& image, double simSeconds);
    /// Finishes the file: closes the pipe and waits for ffmpeg (its failure is an error).
    Status close();

    int framesWritten() const { return m_frames; }
    /// Where the frames went: the video file, or the PNG folder.
    const std::string& output() const { return m_output; }
    bool writesPngs() const { return m_png; }
    /// How the recording is made, for the panel and the console ("ffmpeg -> x.mp4 at 60 fps",
    /// or why it is a PNG sequence).
    const std::string& note() const { return m_note; }

  private:
    VideoRecorder() = default;
    Status writeFrame(const render::Image& image);
    Status writeTicksBefore(double ticks);

    int m_width = 0;
    int m_height = 0;
    double m_fps = 60.0;
    double m_startSeconds = 0.0;
    bool m_started = false;
    long long m_ticks = 0;     ///< video ticks written so far
    render::Image m_held;      ///< the last frame added, written once the next one arrives
    double m_heldTicks = 0.0;  ///< its time in ticks since the first frame
    int m_frames = 0;
    std::FILE* m_pipe = nullptr;  ///< ffmpeg's stdin; null for the PNG sequence
    int m_child = -1;             ///< ffmpeg's process id
    std::string m_output;
    std::string m_note;
    bool m_closed = false;
    bool m_png = false;
};

}  // namespace ww::demo
