#include "app/cli/scene_options.h"

#include <cmath>
#include <cstdlib>

namespace ww::app {

namespace {

Error rangeError(const std::string& option, const std::string& what) {
    return inputError("--" + option + " (config key \"" + option + "\") " + what);
}

}  // namespace

SceneOptionValues::SceneOptionValues() {
    const rigid::WorldParams w;
    omega = w.lcp.omega;
    iterations = w.lcp.maxIterations == 0 ? "2n" : std::to_string(w.lcp.maxIterations);
    tolerance = w.lcp.tolerance;
    warmStart = w.warmStart ? "on" : "off";
    friction = w.friction;
    lcpMode = rigid::toString(w.mode);
    lcpSolver = w.lcp.method == lcp::LcpMethod::kJacobi ? "jacobi" : "gauss-seidel";
    erp = w.erp;
    substeps = w.substeps;
}

void registerSceneOptions(OptionTable& t, SceneOptionValues& v) {
    t.add("wall", v.wall, "Wall size COLSxROWS (wall scene)");
    t.add("layout", v.layout, "What stands on the ground (wall scene)", {"wall", "pyramid", "stack"});
    t.add("omega", v.omega, "LCP relaxation: x <- clamp(x - omega*D^-1(Ax+b), lo, hi)");
    t.add("iterations", v.iterations, "LCP iteration cap: N or 2n (n = LCP size)");
    t.add("tolerance", v.tolerance,
          "LCP natural-map residual to stop at (N s, absolute); 0 runs the full count");
    t.add("warm-start", v.warmStart, "Start each LCP solve from last step's impulses",
          {"on", "off"});
    t.add("friction", v.friction, "Coulomb friction coefficient mu of every contact");
    t.add("lcp-mode", v.lcpMode, "One dense LCP for the scene, or one block per island",
          {"dense", "islands"});
    t.add("lcp-solver", v.lcpSolver, "LCP method (Gauss-Seidel runs on the CPU)",
          {"jacobi", "gauss-seidel"});
    t.add("erp", v.erp, "Baumgarte position-error reduction per step (0..1)");
    t.add("substeps", v.substeps, "Sub-steps per time step (wall scene)");
    t.add("dt", v.dt, "Time step in seconds (0 = the scene's default)");
}

Status parseSize(const std::string& text, const char* option, int& a, int& b) {
    const auto x = text.find('x');
    char* end1 = nullptr;
    char* end2 = nullptr;
    if (x != std::string::npos) {
        const std::string sa = text.substr(0, x);
        const std::string sb = text.substr(x + 1);
        const long va = std::strtol(sa.c_str(), &end1, 10);
        const long vb = std::strtol(sb.c_str(), &end2, 10);
        if (!sa.empty() && !sb.empty() && *end1 == '\0' && *end2 == '\0' && va > 0 && vb > 0 &&
            va <= 1 << 16 && vb <= 1 << 16) {
            a = static_cast<int>(va);
            b = static_cast<int>(vb);
            return {};
        }
    }
    return inputError(std::string("--") + option + " '" + text +
                      "' must be AxB with two positive integers, e.g. 10x6");
}

Result<WallSceneSettings> makeWallSettings(const SceneOptionValues& v) {
    WallSceneSettings s;
    if (Status st = parseSize(v.wall, "wall", s.wall.cols, s.wall.rows); !st) {
        return st.error();
    }
    if (s.wall.cols * s.wall.rows > 4096) {
        return rangeError("wall", "has " + std::to_string(s.wall.cols * s.wall.rows) +
                                      " bricks; at most 4096 are supported");
    }
    s.layout = v.layout;
    s.pyramid.baseCount = s.wall.cols;
    s.stack.height = s.wall.rows;
    rigid::WorldParams& w = s.world;
    if (!(v.omega > 0.0f) || !std::isfinite(v.omega)) {
        return rangeError("omega", "must be > 0 (projected Jacobi converges for small positive "
                                   "omega; the wall's default is " +
                                       std::to_string(rigid::WorldParams{}.lcp.omega) + ")");
    }
    w.lcp.omega = v.omega;
    if (v.iterations == "2n") {
        w.lcp.maxIterations = 0;
    } else {
        char* end = nullptr;
        const long n = std::strtol(v.iterations.c_str(), &end, 10);
        if (v.iterations.empty() || *end != '\0' || n < 1 || n > 1000000) {
            return rangeError("iterations", "'" + v.iterations +
                                                "' must be a positive integer or 2n");
        }
        w.lcp.maxIterations = static_cast<int>(n);
    }
    if (!(v.tolerance >= 0.0f) || !std::isfinite(v.tolerance)) {
        return rangeError("tolerance", "must be >= 0");
    }
    w.lcp.tolerance = v.tolerance;
    w.warmStart = v.warmStart == "on";
    if (!(v.friction >= 0.0f) || v.friction > 10.0f) {
        return rangeError("friction", "must be in [0, 10]");
    }
    w.friction = v.friction;
    w.mode = *rigid::parseLcpMode(v.lcpMode);
    w.lcp.method = v.lcpSolver == "jacobi" ? lcp::LcpMethod::kJacobi : lcp::LcpMethod::kGaussSeidel;
    if (!(v.erp >= 0.0f && v.erp <= 1.0f)) {
        return rangeError("erp", "must be in [0, 1]");
    }
    w.erp = v.erp;
    if (v.substeps < 1 || v.substeps > 64) {
        return rangeError("substeps", "must be in [1, 64]");
    }
    w.substeps = v.substeps;
    if (v.dt != 0.0) {
        if (!(v.dt > 0.0) || v.dt > 1.0) {
            return rangeError("dt", "must be in (0, 1] seconds");
        }
        w.dtSeconds = static_cast<float>(v.dt);
    }
    return s;
}

}  // namespace ww::app
