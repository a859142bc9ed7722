#include "app/cli/state_file.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/scenes/state_bytes.h"

namespace ww::app {

namespace {

constexpr char kMagic[8] = {'W', 'W', 'S', 'T', 'A', 'T', 'E', '\n'};
constexpr std::uint32_t kVersion = 2;  // 2: the rigid world's lambda_max start

Error ioError(std::string message) {
    return {ErrorKind::kIo, std::move(message)};
}

}  // namespace

Status saveStateFile(const SimScene& scene, const std::string& path) {
    const std::unique_ptr<SceneState> state = scene.saveState();
    if (!state) {
        return inputError("--snapshot-save: the " + std::string(scene.name()) +
                          " scene cannot save its state");
    }
    const std::string payload = state->serialize();
    const std::string name = scene.name();
    ByteWriter w;
    for (char c : kMagic) {
        w.put(c);
    }
    w.put(kVersion);
    w.putVector(std::vector<char>(name.begin(), name.end()));
    w.put(static_cast<std::uint64_t>(payload.size()));
    const std::string header = w.take();
    const std::string tmp = path + ".partial";
    {
        std::ofstream out(tmp, std::ios::binary);
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
        if (!out) {
            return ioError("--snapshot-save " + path + ": writing failed (disk full?)");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        return ioError("--snapshot-save " + path + ": " + ec.message());
    }
    return {};
}

Status loadStateFile(SimScene& scene, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return ioError("--snapshot-load " + path + ": cannot open it (check the path)");
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ByteReader r(bytes);
    char magic[8] = {};
    for (char& c : magic) {
        if (!r.get(c)) {
            break;
        }
    }
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
        return inputError("--snapshot-load " + path +
                          ": not a wavewall state file (write one with --snapshot-save)");
    }
    std::uint32_t version = 0;
    std::vector<char> name;
    std::uint64_t size = 0;
    if (!r.get(version) || !r.getVector(name) || !r.get(size)) {
        return inputError("--snapshot-load " + path + ": the header is truncated");
    }
    if (version != kVersion) {
        return inputError("--snapshot-load " + path + ": format version " +
                          std::to_string(version) + ", this wavewall reads version " +
                          std::to_string(kVersion));
    }
    const std::string sceneName(name.begin(), name.end());
    if (sceneName != scene.name()) {
        return inputError("--snapshot-load " + path + ": the file holds a " + sceneName +
                          " state; run it with --scene " + sceneName);
    }
    const std::size_t headerBytes =
        sizeof kMagic + sizeof version + sizeof(std::uint64_t) + name.size() + sizeof size;
    if (bytes.size() - headerBytes != size) {
        return inputError("--snapshot-load " + path + ": " +
                          std::to_string(bytes.size() - headerBytes) + " bytes of state, the " +
                          "header says " + std::to_string(size) + " (truncated?)");
    }
    Result<std::unique_ptr<SceneState>> state =
        scene.readState(std::string_view(bytes).substr(headerBytes));
    if (!state) {
        return inputError("--snapshot-load " + path + ": " + state.error().message);
    }
    if (Status s = scene.restoreState(**state); !s) {
        return inputError("--snapshot-load " + path + ": " + s.error().message);
    }
    return {};
}

}  // namespace ww::app
