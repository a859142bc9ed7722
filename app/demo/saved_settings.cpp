#include "app/demo/saved_settings.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "app/demo/video_recorder.h"

namespace ww::demo {

namespace {

std::filesystem::path executableDir() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : exe.parent_path();
}

bool holdsJson(const std::filesystem::path& dir) {
    return !listPresets(dir.string()).empty();
}

}  // namespace

std::string timestampedPath(const std::string& dir, const char* what, const char* ext) {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", std::localtime(&now));
    const std::string name = std::string("wavewall") + what + "_" + stamp + ext;
    return nonOverwritingPath(std::filesystem::path(dir) / name).string();
}

Result<std::string> writeNewConfigFile(const std::string& dir, const std::string& text) {
    const std::string path = timestampedPath(dir, "_config", ".json");
    // "x": fail rather than replace a file that appeared since the name was chosen.
    std::FILE* f = std::fopen(path.c_str(), "wx");
    if (f == nullptr) {
        return Error{ErrorKind::kIo, "could not write the config " + path + ": " +
                                         std::strerror(errno) +
                                         " (the output folder is set with --output-dir)"};
    }
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int writeErrno = errno;
    if (std::fclose(f) != 0 || !written) {
        std::remove(path.c_str());
        return Error{ErrorKind::kIo, "could not write the config " + path + ": " +
                                         std::strerror(written ? errno : writeErrno)};
    }
    return path;
}

std::string findAssetsDir(std::string* tried) {
    std::vector<std::filesystem::path> candidates;
    if (const char* env = std::getenv("WAVEWALL_ASSETS_DIR"); env != nullptr && *env != '\0') {
        candidates.emplace_back(env);
    } else if (const std::filesystem::path exe = executableDir(); !exe.empty()) {
        candidates = {exe / "assets", exe / ".." / "share" / "wavewall" / "assets",
                      exe / ".." / "assets", exe / ".." / ".." / "assets"};
    }
    std::string looked;
    for (const std::filesystem::path& dir : candidates) {
        looked += (looked.empty() ? "" : ", ") + dir.lexically_normal().string();
        if (holdsJson(dir)) {
            return dir.lexically_normal().string();
        }
    }
    if (tried != nullptr) {
        *tried = looked;
    }
    return {};
}

std::vector<std::string> listPresets(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".json" && it->is_regular_file(ec)) {
            files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace ww::demo
