#include "app/cli/state_file.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/scenes/state_bytes.h"

namespace ww::app {

namespace {

constexpr char kMagic[8] = {'W', 'W', 'S', 'T', 'A', 'T', 'E', '\n'};
// 2: the rigid world's lambda_max start; 3: the checksum; 4: the contact cache's manifold
// anchors; 5: the checksum covers the version too, so a changed version byte reads as a
// corrupted file rather than as an older format.
constexpr std::uint32_t kVersion = 5;
constexpr std::size_t kChecksumAt = sizeof kMagic + sizeof kVersion;
constexpr std::size_t kBodyAt = kChecksumAt + sizeof(std::uint64_t);

Error ioError(std::string message) {
    return {ErrorKind::kIo, std::move(message)};
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

namespace {

// The checksum of a version-5 file: the version's four bytes, then everything after the
// checksum.
std::uint64_t fileChecksum(std::uint32_t version, std::string_view body) {
    char v[sizeof version];
    std::memcpy(v, &version, sizeof version);
    return fnv1a64(body, fnv1a64(std::string_view(v, sizeof v)));
}

}  // namespace

std::string encodeStateFile(std::string_view sceneName, std::string_view payload) {
    ByteWriter body;
    body.putVector(std::vector<char>(sceneName.begin(), sceneName.end()));
    body.put(static_cast<std::uint64_t>(payload.size()));
    std::string tail = body.take();
    tail.append(payload);
    ByteWriter head;
    for (char c : kMagic) {
        head.put(c);
    }
    head.put(kVersion);
    head.put(fileChecksum(kVersion, tail));
    return head.take() + tail;
}

Status saveStateFile(const SimScene& scene, const std::string& path) {
    const std::unique_ptr<SceneState> state = scene.saveState();
    if (!state) {
        return inputError("--snapshot-save: the " + std::string(scene.name()) +
                          " scene cannot save its state");
    }
    const std::string bytes = encodeStateFile(scene.name(), state->serialize());
    const std::string tmp = path + ".partial";
    {
        std::ofstream out(tmp, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
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

Status loadStateBytes(SimScene& scene, std::string_view bytes, const std::string& source) {
    const std::string what = "--snapshot-load " + source + ": ";
    ByteReader r(bytes);
    char magic[8] = {};
    for (char& c : magic) {
        if (!r.get(c)) {
            break;
        }
    }
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
        return inputError(what +
                          "not a wavewall state file, or one whose first bytes are corrupted "
                          "(write one with --snapshot-save)");
    }
    std::uint32_t version = 0;
    std::uint64_t checksum = 0;
    if (!r.get(version) || !r.get(checksum)) {
        return inputError(what + "the header is truncated");
    }
    const std::string corrupted = what + "the file is corrupted: its checksum does not match its " +
                                  std::to_string(bytes.size()) +
                                  " bytes (truncated or changed since --snapshot-save wrote it; "
                                  "save it again)";
    // Everything after the checksum is covered by it, so nothing there is read before it
    // matches: a corrupted size or name never reaches an allocation or the scene.
    const std::string_view body = bytes.substr(kBodyAt);
    if (version != kVersion) {
        // A file of this version whose version bytes alone changed still matches the checksum
        // written for this version: it is corrupted, not old.
        if (fileChecksum(kVersion, body) == checksum) {
            return inputError(what + "the file is corrupted: its version field reads " +
                              std::to_string(version) + " but its contents are a version " +
                              std::to_string(kVersion) +
                              " file's (changed since --snapshot-save wrote it; save it again)");
        }
        // Versions 3 and 4 had the same header with a checksum over everything after it only.
        if ((version == 3 || version == 4) && fnv1a64(body) != checksum) {
            return inputError(corrupted);
        }
        if (version == 1 || version == 2) {
            return inputError(what + "format version " + std::to_string(version) +
                              ", written before state files carried a checksum; this wavewall "
                              "reads version " +
                              std::to_string(kVersion) +
                              ": write the state again with --snapshot-save (if this wavewall "
                              "wrote it, the file is corrupted)");
        }
        if (version == 3 || version == 4) {
            return inputError(what + "format version " + std::to_string(version) + ", written " +
                              (version == 3 ? "before the contact cache held its manifolds"
                                            : "before the checksum covered the version") +
                              "; this wavewall reads version " + std::to_string(kVersion) +
                              ": write the state again with --snapshot-save");
        }
        return inputError(what + "format version " + std::to_string(version) +
                          ", this wavewall reads version " + std::to_string(kVersion) +
                          " (a newer wavewall's file, or a corrupted one)");
    }
    if (fileChecksum(kVersion, body) != checksum) {
        return inputError(corrupted);
    }
    ByteReader b(body);
    std::vector<char> name;
    std::uint64_t size = 0;
    if (!b.getVector(name) || !b.get(size)) {
        return inputError(what + "the header is truncated");
    }
    const std::string sceneName(name.begin(), name.end());
    if (sceneName != scene.name()) {
        return inputError(what + "the file holds a " + sceneName + " state; run it with --scene " +
                          sceneName);
    }
    const std::size_t payloadAt = sizeof(std::uint64_t) + name.size() + sizeof size;
    if (body.size() - payloadAt != size) {
        return inputError(what + std::to_string(body.size() - payloadAt) +
                          " bytes of state, the header says " + std::to_string(size) +
                          " (truncated?)");
    }
    Result<std::unique_ptr<SceneState>> state = scene.readState(body.substr(payloadAt));
    if (!state) {
        return inputError(what + state.error().message);
    }
    if (Status s = scene.restoreState(**state); !s) {
        return inputError(what + s.error().message);
    }
    return {};
}

Status loadStateFile(SimScene& scene, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return ioError("--snapshot-load " + path + ": cannot open it (check the path)");
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return loadStateBytes(scene, bytes, path);
}

}  // namespace ww::app
