// Loads, assembles and compiles the project's GLSL programs.
//
// Sources come from the copies embedded at build time, or — for live editing — from an
// override folder (--shader-dir or the WAVEWALL_SHADER_DIR environment variable): a file
// present there replaces the embedded one of the same name. `#include "name.glsl"` lines are
// expanded in place and a SourceMap remembers where each assembled line came from, so the
// driver's messages map back to real files (Mesa ignores the source-string number of #line,
// so the map, not #line, is what makes this work everywhere); compile and link errors are
// reported as `path:line: message` with the driver's log.
// rebuild() keeps the last good program when a live edit fails to compile.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "solver/core/result.h"
#include "solver/gpu/gl_objects.h"

namespace ww::gpu {

/// What a program is made of: a compute stage, or a vertex and a fragment stage, plus
/// `#define NAME VALUE` lines inserted after `#version`.
struct ProgramSpec {
    std::string compute;
    std::string vertex;
    std::string fragment;
    std::vector<std::pair<std::string, std::string>> defines;

    static ProgramSpec computeStage(std::string file,
                                    std::vector<std::pair<std::string, std::string>> defs = {}) {
        return {std::move(file), {}, {}, std::move(defs)};
    }
};

/// Origin of each line of an assembled shader source.
struct SourceMap {
    std::vector<std::string> files;  ///< paths, in the order first included
    struct Origin {
        int file = 0;  ///< index into files
        int line = 0;  ///< 1-based line in that file; 0 for inserted #define lines
    };
    std::vector<Origin> lines;  ///< lines[k] is the origin of assembled line k + 1

    /// "path:line" of an assembled line, or "<assembled line N>" if out of range.
    std::string where(int assembledLine) const;
};

class ShaderLibrary {
  public:
    /// Uses embedded sources only.
    ShaderLibrary() = default;
    /// Uses `overrideDir` (if not empty) before the embedded sources. Fails if the folder
    /// does not exist. An empty argument falls back to $WAVEWALL_SHADER_DIR.
    static Result<ShaderLibrary> create(std::string overrideDir);

    /// The assembled source of one file (includes expanded, defines inserted); `map` tells
    /// for each assembled line (1-based) the file and line it came from.
    Result<std::string> assemble(const std::string& file,
                                 const std::vector<std::pair<std::string, std::string>>& defines,
                                 SourceMap& map) const;
    /// Compiles and links; errors name file and line.
    Result<Program> build(const ProgramSpec& spec) const;
    /// Rebuilds `program` from `spec`; on failure `program` is left as it was.
    Status rebuild(const ProgramSpec& spec, Program& program) const;

    const std::string& overrideDir() const { return m_overrideDir; }

  private:
    Result<std::string> readFile(const std::string& name, std::string& path) const;
    std::string m_overrideDir;
};

}  // namespace ww::gpu
