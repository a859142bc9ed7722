// What this build of wavewall is: its version (project(VERSION) in the top-level
// CMakeLists.txt, the one place it is written) and what was compiled in, as
// `wavewall --version` prints it (docs/install.md).
#pragma once

#include <string>

namespace ww::app {

/// The version alone, "MAJOR.MINOR.PATCH".
const char* wavewallVersion();

/// The vector width of the dense LCP kernels' row loops (solver/lcp/lcp_cpu.cpp), fixed when
/// they were compiled (-march, WW_NATIVE): "avx512" (16 rows a step), "avx2" (8 rows, AVX2 and
/// FMA) or "scalar".
const char* lcpSimdLevel();

/// The text of `wavewall --version`: "wavewall VERSION" and one "field: value" line per
/// feature (build type, compiler, gpu, simd, threads, each benchmark peer), with no newline
/// after the last.
std::string versionText();

}  // namespace ww::app
