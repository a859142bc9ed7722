#include "solver/gpu/shader_library.h"

#include <GL/glew.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "solver/gpu/embedded_shaders.h"

namespace ww::gpu {

namespace {

constexpr int kMaxIncludeDepth = 8;

// Rewrites a driver log so each "S:L(C): msg" (Mesa) or "S(L) : msg" (NVIDIA) line reads
// "file:line: msg", using the source map of the assembled text the driver compiled.
std::string mapLog(const std::string& log, const SourceMap& map) {
    static const std::regex kMesa(R"(^(\d+):(\d+)\(\d+\):\s*(.*)$)");
    static const std::regex kNvidia(R"(^(\d+)\((\d+)\)\s*:\s*(.*)$)");
    std::istringstream in(log);
    std::ostringstream out;
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, kMesa) || std::regex_match(line, m, kNvidia)) {
            out << map.where(std::stoi(m[2].str())) << ": " << m[3].str() << "\n";
        } else if (!line.empty()) {
            out << line << "\n";
        }
    }
    return out.str();
}

std::string stageName(GLenum type) {
    switch (type) {
        case GL_COMPUTE_SHADER:
            return "compute";
        case GL_VERTEX_SHADER:
            return "vertex";
        default:
            return "fragment";
    }
}

}  // namespace

Result<ShaderLibrary> ShaderLibrary::create(std::string overrideDir) {
    if (overrideDir.empty()) {
        if (const char* env = std::getenv("WAVEWALL_SHADER_DIR"); env != nullptr) {
            overrideDir = env;
        }
    }
    ShaderLibrary lib;
    if (!overrideDir.empty()) {
        std::error_code ec;
        if (!std::filesystem::is_directory(overrideDir, ec)) {
            return inputError("shader override folder '" + overrideDir +
                              "' does not exist or is not a folder (from --shader-dir or "
                              "WAVEWALL_SHADER_DIR); point it at a copy of shaders/");
        }
        lib.m_overrideDir = std::move(overrideDir);
    }
    return lib;
}

Result<std::string> ShaderLibrary::readFile(const std::string& name, std::string& path) const {
    if (!m_overrideDir.empty()) {
        const std::filesystem::path p = std::filesystem::path(m_overrideDir) / name;
        std::ifstream f(p);
        if (f) {
            std::ostringstream s;
            s << f.rdbuf();
            path = p.string();
            return s.str();
        }
    }
    for (const EmbeddedShader& s : embeddedShaders()) {
        if (s.name == name) {
            path = "shaders/" + name;
            return std::string(s.source);
        }
    }
    return Error{ErrorKind::kShader, "shader file '" + name + "' not found (embedded" +
                                         (m_overrideDir.empty() ? "" : " or in " + m_overrideDir) +
                                         ")"};
}

std::string SourceMap::where(int assembledLine) const {
    if (assembledLine < 1 || assembledLine > static_cast<int>(lines.size())) {
        return "<assembled line " + std::to_string(assembledLine) + ">";
    }
    const Origin& o = lines[static_cast<std::size_t>(assembledLine - 1)];
    return files[static_cast<std::size_t>(o.file)] + ":" + std::to_string(o.line);
}

Result<std::string> ShaderLibrary::assemble(
    const std::string& file, const std::vector<std::pair<std::string, std::string>>& defines,
    SourceMap& map) const {
    map = {};
    std::ostringstream out;
    static const std::regex kInclude(R"(^\s*#\s*include\s+\"([^\"]+)\"\s*$)");
    // Recursive expansion of one file; returns an error message or "".
    auto expand = [&](auto& self, const std::string& name, int depth) -> std::string {
        if (depth > kMaxIncludeDepth) {
            return "includes nested deeper than " + std::to_string(kMaxIncludeDepth) + " at " +
                   name;
        }
        std::string path;
        Result<std::string> text = readFile(name, path);
        if (!text) {
            return text.error().message;
        }
        const int id = static_cast<int>(map.files.size());
        map.files.push_back(path);
        std::istringstream in(*text);
        std::string line;
        int lineNo = 0;
        while (std::getline(in, line)) {
            ++lineNo;
            std::smatch m;
            if (std::regex_match(line, m, kInclude)) {
                std::string err = self(self, m[1].str(), depth + 1);
                if (!err.empty()) {
                    return path + ":" + std::to_string(lineNo) + ": " + err;
                }
                continue;
            }
            out << line << "\n";
            map.lines.push_back({id, lineNo});
            if (depth == 0 && lineNo == 1 && line.rfind("#version", 0) == 0) {
                for (const auto& [k, v] : defines) {
                    out << "#define " << k << " " << v << "\n";
                    map.lines.push_back({id, 0});
                }
            }
        }
        return "";
    };
    std::string err = expand(expand, file, 0);
    if (!err.empty()) {
        return Error{ErrorKind::kShader, err};
    }
    return out.str();
}

Result<Program> ShaderLibrary::build(const ProgramSpec& spec) const {
    struct Stage {
        GLenum type;
        const std::string* file;
    };
    std::vector<Stage> stages;
    if (!spec.compute.empty()) {
        stages.push_back({GL_COMPUTE_SHADER, &spec.compute});
    }
    if (!spec.vertex.empty()) {
        stages.push_back({GL_VERTEX_SHADER, &spec.vertex});
    }
    if (!spec.fragment.empty()) {
        stages.push_back({GL_FRAGMENT_SHADER, &spec.fragment});
    }
    if (stages.empty()) {
        return Error{ErrorKind::kShader, "program spec names no shader stage"};
    }

    std::vector<GLuint> shaders;
    auto cleanup = [&] {
        for (GLuint s : shaders) {
            glDeleteShader(s);
        }
    };
    for (const Stage& st : stages) {
        SourceMap map;
        Result<std::string> src = assemble(*st.file, spec.defines, map);
        if (!src) {
            cleanup();
            return src.error();
        }
        GLuint sh = glCreateShader(st.type);
        shaders.push_back(sh);
        const char* text = src->c_str();
        glShaderSource(sh, 1, &text, nullptr);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (ok == 0) {
            GLint len = 0;
            glGetShaderiv(sh, GL_INFO_LOG_LENGTH, &len);
            std::string log(static_cast<std::size_t>(len > 0 ? len : 1), '\0');
            glGetShaderInfoLog(sh, len, nullptr, log.data());
            cleanup();
            return Error{ErrorKind::kShader, "compiling " + stageName(st.type) + " shader " +
                                                 map.files.front() + " failed:\n" +
                                                 mapLog(log.c_str(), map)};
        }
    }
    GLuint prog = glCreateProgram();
    for (GLuint s : shaders) {
        glAttachShader(prog, s);
    }
    glLinkProgram(prog);
    GLint linked = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &linked);
    if (linked == 0) {
        GLint len = 0;
        glGetProgramiv(prog, GL_INFO_LOG_LENGTH, &len);
        std::string log(static_cast<std::size_t>(len > 0 ? len : 1), '\0');
        glGetProgramInfoLog(prog, len, nullptr, log.data());
        glDeleteProgram(prog);
        cleanup();
        std::string names;
        for (const Stage& st : stages) {
            names += (names.empty() ? "" : " + ") + *st.file;
        }
        return Error{ErrorKind::kShader,
                     "linking " + names + " failed:\n" + std::string(log.c_str())};
    }
    Program program(prog);  // reads the local size while the shaders are still attached
    for (GLuint s : shaders) {
        glDetachShader(prog, s);
    }
    cleanup();
    return program;
}

Status ShaderLibrary::rebuild(const ProgramSpec& spec, Program& program) const {
    Result<Program> fresh = build(spec);
    if (!fresh) {
        return fresh.error();
    }
    program = std::move(fresh).value();
    return {};
}

}  // namespace ww::gpu
