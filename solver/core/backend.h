// Which processor runs a solver. Scenes switch backends at run time and keep their state.
#pragma once

#include <optional>
#include <string_view>

namespace ww {

enum class Backend { kCpu, kGpu };

inline const char* backendName(Backend b) {
    return b == Backend::kCpu ? "cpu" : "gpu";
}

inline std::optional<Backend> parseBackend(std::string_view s) {
    if (s == "cpu") {
        return Backend::kCpu;
    }
    if (s == "gpu") {
        return Backend::kGpu;
    }
    return std::nullopt;
}

}  // namespace ww
