#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "solver/gpu/shader_library.h"
#include "support/gpu_fixture.h"

namespace ww {
namespace {

namespace fs = std::filesystem;

// A scratch override folder, removed at the end of the test.
class ShaderDir {
  public:
    ShaderDir() : m_path(fs::temp_directory_path() / ("ww_shaders_" + std::to_string(::getpid()))) {
        fs::create_directories(m_path);
    }
    ~ShaderDir() { fs::remove_all(m_path); }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(m_path / name) << text;
    }
    std::string path() const { return m_path.string(); }

  private:
    fs::path m_path;
};

const char* kGood =
    "#version 430\nlayout(local_size_x = 64) in;\n"
    "layout(std430, binding = 0) buffer B { float b[]; };\n"
    "void main() { b[gl_GlobalInvocationID.x] += 1.0; }\n";

TEST(ShaderLibrary, MissingOverrideFolderIsAnInputError) {
    auto r = gpu::ShaderLibrary::create("/nonexistent/wavewall/shaders");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
    EXPECT_NE(r.error().message.find("/nonexistent/wavewall/shaders"), std::string::npos);
}

TEST(ShaderLibrary, IncludesExpandWithASourceMap) {
    ShaderDir dir;
    dir.write("a.comp", "#version 430\n#include \"b.glsl\"\nvoid main() {}\n");
    dir.write("b.glsl", "// shared\nconst int K = 3;\n");
    auto lib = gpu::ShaderLibrary::create(dir.path());
    ASSERT_TRUE(lib.ok());
    gpu::SourceMap map;
    auto src = lib->assemble("a.comp", {{"N", "7"}}, map);
    ASSERT_TRUE(src.ok()) << src.error().message;
    EXPECT_EQ(*src, "#version 430\n#define N 7\n// shared\nconst int K = 3;\nvoid main() {}\n");
    ASSERT_EQ(map.files.size(), 2u);
    // Assembled line 4 is line 2 of b.glsl; line 5 is line 3 of a.comp.
    EXPECT_EQ(map.where(4), (fs::path(dir.path()) / "b.glsl").string() + ":2");
    EXPECT_EQ(map.where(5), (fs::path(dir.path()) / "a.comp").string() + ":3");
}

TEST(ShaderLibrary, CompileErrorNamesFileAndLine) {
    WW_REQUIRE_GPU();
    ShaderDir dir;
    // The error is on line 4 of the included file.
    dir.write("broken.comp",
              "#version 430\nlayout(local_size_x = 1) in;\n#include \"inc.glsl\"\n"
              "void main() { f(); }\n");
    dir.write("inc.glsl", "// helper\n\nvoid f() {\n  undeclared_thing = 1;\n}\n");
    auto lib = gpu::ShaderLibrary::create(dir.path());
    ASSERT_TRUE(lib.ok());
    auto prog = lib->build(gpu::ProgramSpec::computeStage("broken.comp"));
    ASSERT_FALSE(prog.ok());
    EXPECT_EQ(prog.error().kind, ErrorKind::kShader);
    const std::string expected = (fs::path(dir.path()) / "inc.glsl").string() + ":4:";
    EXPECT_NE(prog.error().message.find(expected), std::string::npos) << prog.error().message;
}

TEST(ShaderLibrary, FailedReloadKeepsLastGoodProgram) {
    WW_REQUIRE_GPU();
    ShaderDir dir;
    dir.write("live.comp", kGood);
    auto lib = gpu::ShaderLibrary::create(dir.path());
    ASSERT_TRUE(lib.ok());
    const auto spec = gpu::ProgramSpec::computeStage("live.comp");
    auto prog = lib->build(spec);
    ASSERT_TRUE(prog.ok()) << prog.error().message;
    const unsigned before = prog->handle();

    dir.write("live.comp", "#version 430\nlayout(local_size_x = 64) in;\nvoid main() { oops }\n");
    Status st = lib->rebuild(spec, *prog);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("live.comp:3:"), std::string::npos) << st.error().message;
    EXPECT_EQ(prog->handle(), before);
    EXPECT_EQ(prog->localSize()[0], 64);

    dir.write("live.comp", std::string(kGood).replace(std::string(kGood).find("64"), 2, "32"));
    ASSERT_TRUE(lib->rebuild(spec, *prog).ok());
    EXPECT_EQ(prog->localSize()[0], 32);
}

TEST(ShaderLibrary, UnknownFileIsReported) {
    gpu::ShaderLibrary lib;
    gpu::SourceMap map;
    auto src = lib.assemble("no_such_kernel.comp", {}, map);
    ASSERT_FALSE(src.ok());
    EXPECT_NE(src.error().message.find("no_such_kernel.comp"), std::string::npos);
}

}  // namespace
}  // namespace ww
