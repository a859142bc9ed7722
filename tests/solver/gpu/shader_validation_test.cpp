// Every shader the program builds, checked by Khronos's reference compiler (glslangValidator,
// Debian's glslang-tools) as well as by the driver: Mesa alone accepts some code other drivers
// refuse. Each program is assembled exactly as ShaderLibrary::build does it (includes
// expanded, its #defines after #version: every variant the C++ code builds, listed below),
// each stage is validated for desktop GLSL at its #version (430: OpenGL 4.3, core profile),
// warnings count as errors, and the vertex and fragment stages of a render program are linked
// together (their interfaces must match). No GL context is needed. Messages map back to
// shaders/<file>:<line> through the library's SourceMap. WAVEWALL_SHADER_DIR validates an
// edited copy instead of the embedded sources.
//
// Plain validation, not `-G` / `--target-env opengl`: those compile to SPIR-V under
// ARB_gl_spirv (OpenGL 4.6), which demands explicit locations for every uniform; the
// program's plain uniforms are valid GLSL 4.30 and set by name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "solver/gpu/embedded_shaders.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_gpu_layout.h"
#include "support/run_command.h"

#ifndef WW_GLSLANG_VALIDATOR
#define WW_GLSLANG_VALIDATOR ""
#endif

namespace ww {
namespace {

namespace fs = std::filesystem;
using Defines = std::vector<std::pair<std::string, std::string>>;

// One program as the code builds it: its stages and defines, and where it is built.
struct Variant {
    gpu::ProgramSpec spec;
    std::string builtBy;
};

Variant compute(std::string file, Defines defines, std::string builtBy) {
    return {gpu::ProgramSpec::computeStage(std::move(file), std::move(defines)),
            std::move(builtBy)};
}

// Every program variant the C++ code builds. A new ProgramSpec belongs here too; the
// coverage test below fails for a shader file no variant uses.
std::vector<Variant> builtVariants() {
    std::vector<Variant> v;
    // solver/cg/cg_gpu.cpp: kLocalSize 256, kElems 4; one program set per operator kind, the
    // stencil also with RECOMPUTE_AP (cg_update then takes the same defines).
    const Defines cgSizes = {{"LOCAL_SIZE", "256"}, {"ELEMS", "4"}};
    for (const char* op : {"OP_STENCIL", "OP_BANDED", "OP_CSR", "OP_DENSE"}) {
        Defines defs = {{op, "1"}};
        defs.insert(defs.end(), cgSizes.begin(), cgSizes.end());
        for (const char* file : {"cg_init.comp", "cg_direction.comp"}) {
            v.push_back(compute(file, defs, "GpuCgSolver::create"));
        }
        if (std::string(op) == "OP_STENCIL") {
            Defines recompute = defs;
            recompute.emplace_back("RECOMPUTE_AP", "1");
            for (const char* file : {"cg_init.comp", "cg_direction.comp", "cg_update.comp"}) {
                v.push_back(compute(file, recompute, "GpuCgSolver::create (recompute A p)"));
            }
        }
    }
    v.push_back(compute("cg_update.comp", cgSizes, "GpuCgSolver::create"));
    v.push_back(compute("cg_jacobi.comp", {{"OP_BANDED", "1"}}, "GpuJacobi::create"));
    // solver/lcp/lcp_gpu.cpp and lcp_gpu_matrix_free.cpp, sizes from lcp_gpu_layout.h.
    namespace gl = lcp::gpu_layout;
    for (int threads : {gl::kBlockThreadsSmall, gl::kBlockThreads}) {
        v.push_back(compute("lcp_jacobi_block.comp",
                            {{"LCP_THREADS", std::to_string(threads)},
                             {"LCP_BLOCK_MAX_N", std::to_string(gl::kBlockMaxN)}},
                            "makeGpuLcpSolver"));
    }
    v.push_back(compute("lcp_jacobi_step.comp",
                        {{"LCP_STEP_ROW_BLOCKS", std::to_string(gl::kStepRowBlocks)},
                         {"LCP_STEP_SLICES", std::to_string(gl::kStepSlices)}},
                        "makeGpuLcpSolver"));
    for (const char* file : {"lcp_mf_gather.comp", "lcp_mf_rows.comp", "lcp_mf_finish.comp"}) {
        v.push_back(compute(file, {{"LCP_MF_THREADS", std::to_string(gl::kMfThreads)}},
                            "GpuMatrixFreeBatch::create"));
    }
    // No defines: the GPU wave backend, SplashGpu, GpuOps (linalg) and `wavewall info`.
    const std::pair<const char*, std::vector<const char*>> plain[] = {
        {"the GPU wave backend (solver/wave/wave_backend_gpu.cpp)",
         {"wave_rhs.comp", "wave_sweep.comp", "wave_explicit.comp", "wave_disturb.comp",
          "wave_retime.comp"}},
        {"SplashGpu::create",
         {"splash_reduce.comp", "splash_sample.comp", "splash_splat.comp", "splash_distribute.comp",
          "splash_spread.comp", "splash_apply.comp", "splash_correct.comp"}},
        {"GpuOps::create",
         {"linalg_elementwise.comp", "linalg_dot.comp", "linalg_matvec.comp",
          "linalg_matvec_t.comp", "linalg_matmat.comp", "linalg_matmat_t.comp"}},
        {"wavewall info and the GPU tests", {"gpu_selftest.comp"}}};
    for (const auto& [builtBy, files] : plain) {
        for (const char* file : files) {
            v.push_back(compute(file, {}, builtBy));
        }
    }
    // app/bench/vector_ops.cpp (kLocal 256, kElems 4) and app/bench/jacobi_rgba.cpp.
    v.push_back(compute("vector_sum.comp", cgSizes, "GpuVectorOps::create"));
    v.push_back(compute("cg_dot.comp", cgSizes, "GpuVectorOps::create"));
    v.push_back(compute("cg_direction_only.comp", {}, "GpuVectorOps::create"));
    v.push_back(compute("jacobi9_rgba.comp", {}, "the jacobi_rgba bench"));
    // render/renderer.cpp's programSpecOf, each also with CHEAP_SHADING (programSpec).
    const std::vector<gpu::ProgramSpec> render = {
        {{}, "render_sky.vert", "render_sky.frag", {}},
        {{}, "render_ground.vert", "render_ground.frag", {}},
        {{}, "render_mesh.vert", "render_mesh.frag", {{"MESH_BOX", "1"}}},
        {{}, "render_mesh.vert", "render_mesh.frag", {{"MESH_SPHERE", "1"}}},
        {{}, "render_mesh.vert", "render_shadow.frag", {{"MESH_BOX", "1"}}},
        {{}, "render_mesh.vert", "render_shadow.frag", {{"MESH_SPHERE", "1"}}},
        {{}, "render_water.vert", "render_water.frag", {}},
        {{}, "render_overlay.vert", "render_overlay.frag", {{"OVERLAY_LINE", "1"}}},
        {{}, "render_overlay.vert", "render_overlay.frag", {{"OVERLAY_POINT", "1"}}}};
    for (const gpu::ProgramSpec& spec : render) {
        v.push_back({spec, "the renderer"});
        gpu::ProgramSpec cheap = spec;
        cheap.defines.emplace_back("CHEAP_SHADING", "1");
        v.push_back({cheap, "the renderer (cheap shading)"});
    }
    return v;
}

std::string describe(const Variant& v) {
    std::string s =
        v.spec.compute.empty() ? v.spec.vertex + " + " + v.spec.fragment : v.spec.compute;
    for (const auto& [k, value] : v.spec.defines) {
        s += " -D" + k + "=" + value;
    }
    return s + " (built by " + v.builtBy + ")";
}

test::CommandResult runValidator(const std::string& args) {
    return test::runShell(std::string(WW_GLSLANG_VALIDATOR) + " " + args);
}

// glslang's "ERROR: 0:LINE: message" and "WARNING: 0:LINE: ..." lines, with LINE (of the
// assembled source) replaced by the file and line it came from.
std::string mapMessages(const std::string& output, const gpu::SourceMap& map) {
    static const std::regex kLine(R"(^(ERROR|WARNING): \d+:(\d+): (.*)$)");
    std::istringstream in(output);
    std::ostringstream out;
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, kLine)) {
            out << map.where(std::stoi(m[2].str())) << ": " << m[1].str() << ": " << m[3].str()
                << "\n";
        } else if (!line.empty()) {
            out << line << "\n";
        }
    }
    return out.str();
}

class ScratchDir {
  public:
    ScratchDir()
        : m_path(fs::path(testing::TempDir()) / ("ww_glslang_" + std::to_string(::getpid()))) {
        fs::create_directories(m_path);
    }
    ~ScratchDir() { fs::remove_all(m_path); }
    const fs::path& path() const { return m_path; }

  private:
    fs::path m_path;
};

bool isStage(const std::string& name) {
    const std::string ext = fs::path(name).extension().string();
    return ext == ".comp" || ext == ".vert" || ext == ".frag";
}

TEST(ShaderValidation, EveryBuiltVariantPassesTheReferenceCompiler) {
    ASSERT_FALSE(std::string(WW_GLSLANG_VALIDATOR).empty())
        << "glslangValidator was not found when this build was configured: install Debian's "
           "glslang-tools (scripts/install-deps.sh) and configure again";
    auto lib = gpu::ShaderLibrary::create("");
    ASSERT_TRUE(lib.ok()) << lib.error().message;
    const ScratchDir dir;
    static const std::regex kVersion(R"(^#version 430( core)?$)");
    int checked = 0;
    int index = 0;
    for (const Variant& variant : builtVariants()) {
        SCOPED_TRACE(describe(variant));
        std::vector<std::string> stageFiles;
        bool stagesOk = true;
        for (const std::string* file :
             {&variant.spec.compute, &variant.spec.vertex, &variant.spec.fragment}) {
            if (file->empty()) {
                continue;
            }
            gpu::SourceMap map;
            auto source = lib->assemble(*file, variant.spec.defines, map);
            ASSERT_TRUE(source.ok()) << source.error().message;
            // The reference compiler validates against the #version the file declares, so that
            // must be the one the program asks the driver for: 4.30, core profile.
            const std::string first = source->substr(0, source->find('\n'));
            EXPECT_TRUE(std::regex_match(first, kVersion))
                << map.where(1) << ": '" << first << "', expected '#version 430 [core]'";
            // The stage comes from the file's extension, as for the driver.
            const fs::path path = dir.path() / (std::to_string(index++) + "_" + *file);
            std::ofstream(path) << *source;
            const test::CommandResult run = runValidator(path.string());
            const bool warned = run.output.find("WARNING:") != std::string::npos;
            if (run.code != 0 || warned) {
                stagesOk = false;
                ADD_FAILURE() << "glslangValidator refuses " << map.files.front()
                              << (run.code == 0 ? " (warnings)" : "") << ":\n"
                              << mapMessages(run.output, map);
            }
            stageFiles.push_back(path.string());
            ++checked;
        }
        if (stagesOk && stageFiles.size() == 2) {
            const test::CommandResult link =
                runValidator("-l " + stageFiles[0] + " " + stageFiles[1]);
            EXPECT_EQ(link.code, 0) << "linking the stages fails:\n" << link.output;
        }
    }
    EXPECT_GT(checked, 60) << "the variant table lost its entries";
}

// Every stage file in shaders/ is built by some variant above, and every include is reached
// by one: a new shader cannot go unvalidated.
TEST(ShaderValidation, TheVariantsCoverEveryShaderFile) {
    const gpu::ShaderLibrary lib;
    std::set<std::string> reached;
    for (const Variant& variant : builtVariants()) {
        for (const std::string* file :
             {&variant.spec.compute, &variant.spec.vertex, &variant.spec.fragment}) {
            if (file->empty()) {
                continue;
            }
            gpu::SourceMap map;
            ASSERT_TRUE(lib.assemble(*file, variant.spec.defines, map).ok()) << *file;
            for (const std::string& path : map.files) {
                reached.insert(fs::path(path).filename().string());
            }
        }
    }
    for (const gpu::EmbeddedShader& shader : gpu::embeddedShaders()) {
        const std::string name(shader.name);
        EXPECT_TRUE(reached.count(name) == 1)
            << "shaders/" << name << " is "
            << (isStage(name) ? "built by no variant of builtVariants(): add the ProgramSpecs "
                                "the code builds from it"
                              : "included by no validated shader");
    }
}

}  // namespace
}  // namespace ww
