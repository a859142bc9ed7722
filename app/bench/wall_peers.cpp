// The wall against Bullet, ODE and Box3D (see wall_peers.h).
#include "app/bench/wall_peers.h"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "solver/rigid/narrow_phase.h"
#include "solver/rigid/scenes.h"

// Each peer is compiled in by app/bench/CMakeLists.txt where the build found it.
#ifndef WW_HAVE_BULLET
#define WW_HAVE_BULLET 0
#endif
#ifndef WW_HAVE_ODE
#define WW_HAVE_ODE 0
#endif
#ifndef WW_HAVE_BOX3D
#define WW_HAVE_BOX3D 0
#endif

namespace ww::bench {
namespace {

constexpr double kRestSeconds = 30.0;
constexpr double kCollapseSeconds = 5.0;
/// A wall "stands" while no brick has moved farther than this from its start.
constexpr double kStandsDriftM = 0.05;
/// The rest run also reports its drift after this long (a creep that grows over the 30 s).
constexpr double kEarlyDriftSeconds = 10.0;
/// Wall-clock cap of one run (one engine, one wall, one scene), s: the bench reports a slower
/// engine as stopped after the steps it made instead of hanging.
constexpr double kCapSeconds = 120.0;
constexpr double kQuickCapSeconds = 30.0;
/// --quick: steps per run; the sphere, 7.1 m from the wall's face at 20 m/s, hits it at step 22.
constexpr int kQuickSteps = 30;
constexpr float kShotSpeedMps = 20.0f;
constexpr float kShotDistanceM = 8.0f;

enum class Scene { kRest, kCollapse };

double processCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

/// A "Vm...:" line of /proc/self/status, MiB (Linux; 0 where /proc is missing).
double statusMb(const char* key) {
    std::ifstream status("/proc/self/status");
    const std::size_t len = std::strlen(key);
    for (std::string line; std::getline(status, line);) {
        if (line.compare(0, len, key) == 0) {
            return std::atof(line.c_str() + len) / 1024.0;  // kB
        }
    }
    return 0.0;
}

/// Resident memory high-water mark of the process, MiB.
double peakRssMb() {
    return statusMb("VmHWM:");
}

/// Resident memory of the process now, MiB.
double rssMb() {
    return statusMb("VmRSS:");
}

/// Returns freed heap to the system and lowers the high-water mark to the current resident
/// size (Linux >= 4.0), so that the next peakRssMb() is the peak of one run.
void resetPeakRss() {
    malloc_trim(0);
    std::ofstream("/proc/self/clear_refs") << "5";
}

/// Our engine behind the peers' interface.
class OurWall final : public PeerWall {
  public:
    OurWall(std::shared_ptr<const exec::Executor> executor, const rigid::WallParams& wall,
            const rigid::WorldParams& params)
        : m_world(rigid::makeWallWorld(std::move(executor), wall, params)) {}

    void step() override { m_world.step(); }

    void shoot(const PeerShot& shot) override {
        rigid::ShotParams p;
        p.from = shot.from;
        p.velocity = shot.velocityMps;
        p.radiusM = shot.radiusM;
        p.massKg = shot.massKg;
        rigid::shootSphere(m_world, p);
    }

    void brickPoses(std::vector<BrickPose>& out) const override {
        out.clear();
        for (const rigid::Body& b : m_world.bodies()) {
            if (b.kind == rigid::BodyKind::kBox && b.tag >= 0) {
                out.push_back({b.position, b.orientation});
            }
        }
    }

    rigid::Vec3 brickWorldPoint(std::size_t brick, const rigid::Vec3& local) const override {
        std::size_t at = 0;
        for (const rigid::Body& b : m_world.bodies()) {
            if (b.kind == rigid::BodyKind::kBox && b.tag >= 0 && at++ == brick) {
                return b.position + b.rotation * local;
            }
        }
        throw std::out_of_range("brickWorldPoint: no brick " + std::to_string(brick));
    }

  private:
    rigid::World m_world;
};

rigid::WallParams wallParams(const WallSize& size) {
    rigid::WallParams p;
    p.cols = size.cols;
    p.rows = size.rows;
    p.columnGapM = 0.0f;  // exactly touching: the whole wall is one island
    return p;
}

struct Engine {
    std::string name;  ///< the records' backend
    std::string description;
    int threads = 1;
    std::function<std::unique_ptr<PeerWall>(const Options&, const WallSize&, const PeerWallSetup&)>
        make;
};

std::vector<Engine> engines(const Options& opts) {
    const rigid::WorldParams p;
    char ours[320];
    std::snprintf(ours, sizeof ours,
                  "wavewall: rigid::World, default WorldParams: %s, projected %s, omega <= %.2g "
                  "(adaptive), <= %d iterations to %.0e N s, warm start, shock propagation "
                  "(%d sweeps, resting contacts), CPU backend, %d threads",
                  rigid::toString(p.mode),
                  p.lcp.method == lcp::LcpMethod::kJacobi ? "Jacobi" : "Gauss-Seidel",
                  static_cast<double>(p.lcp.omega), p.lcp.maxIterations,
                  static_cast<double>(p.lcp.tolerance), p.shockSweeps, opts.executor->threads());
    std::vector<Engine> list;
    list.push_back({"wavewall-cpu", ours, opts.executor->threads(),
                    [](const Options& o, const WallSize& size, const PeerWallSetup&) {
                        return makeOurWall(o.executor, size);
                    }});
    for (const int cap : opts.peerWallIterations) {
        rigid::WorldParams capped;
        capped.lcp.maxIterations = cap;
        const std::string name = "wavewall-cpu-i" + std::to_string(cap);
        list.push_back({name,
                        name + ": the same with <= " + std::to_string(cap) +
                            " iterations a step (a cold first step still runs " +
                            std::to_string(capped.coldStartIterations) +
                            "; the iteration budget still applies)",
                        opts.executor->threads(),
                        [capped](const Options& o, const WallSize& size, const PeerWallSetup&) {
                            return makeOurWall(o.executor, size, capped);
                        }});
    }
    if (opts.peerWallLocalSteps > 0.0f) {
        // The default cap (0: WorldParams' own) and each --wall-iterations cap, with Jacobi's
        // local step scales (docs/rigid.md, "Local step scales") in place of the global omega.
        std::vector<int> caps{0};
        caps.insert(caps.end(), opts.peerWallIterations.begin(), opts.peerWallIterations.end());
        for (const int cap : caps) {
            rigid::WorldParams local;
            local.localStepOmega = opts.peerWallLocalSteps;
            std::string name = "wavewall-cpu-local";
            char what[64];
            std::snprintf(what, sizeof what, "local step scales, omega %.3g",
                          static_cast<double>(local.localStepOmega));
            std::string description = name + ": the same with " + what;
            if (cap > 0) {
                local.lcp.maxIterations = cap;
                name += "-i" + std::to_string(cap);
                description = name + ": the same with " + what + " and <= " + std::to_string(cap) +
                              " iterations a step";
            }
            list.push_back({name, description, opts.executor->threads(),
                            [local](const Options& o, const WallSize& size, const PeerWallSetup&) {
                                return makeOurWall(o.executor, size, local);
                            }});
        }
    }
#if WW_HAVE_BULLET
    list.push_back({"bullet", bulletDescription(), 1,
                    [](const Options&, const WallSize&, const PeerWallSetup& s) {
                        return makeBulletWall(s);
                    }});
#endif
#if WW_HAVE_ODE
    list.push_back(
        {"ode", odeDescription(), 1,
         [](const Options&, const WallSize&, const PeerWallSetup& s) { return makeOdeWall(s); }});
#endif
#if WW_HAVE_BOX3D
    list.push_back({"box3d", box3dDescription(opts.executor->threads()), opts.executor->threads(),
                    [](const Options& o, const WallSize&, const PeerWallSetup& s) {
                        return makeBox3dWall(s, o.executor->threads());
                    }});
#endif
    return list;
}

/// Aimed horizontally at the wall's middle height, from kShotDistanceM in front of it (+z).
PeerShot shotFor(const PeerWallSetup& s, const WallSize& size) {
    PeerShot shot;
    shot.from = {0.0f, s.brickHalfExtents.y * static_cast<float>(size.rows), kShotDistanceM};
    shot.velocityMps = {0.0f, 0.0f, -kShotSpeedMps};
    return shot;
}

struct Run {
    std::vector<double> stepMs;
    std::vector<double> cpuMs;
    int stepsPlanned = 0;
    bool capped = false;
    double maxDriftM = 0.0;  ///< m; infinity if a brick's position became non-finite
    /// maxDriftM over the first kEarlyDriftSeconds; NaN when the run is shorter.
    double earlyDriftM = std::numeric_limits<double>::quiet_NaN();
    /// The deepest overlap of two bricks or a brick and the ground (deepestOverlapM) over the
    /// steps measured (every step of a collapse, one a simulated second at rest), m.
    double maxOverlapM = 0.0;
    int maxOverlapStep = 0;  ///< the step (1-based) that showed maxOverlapM; 0 = none
    double peakRssMb = 0.0;  ///< MiB, the process's, during the run (the engine built and stepped)
    /// MiB resident before the run: what earlier suites of the same process left (GL driver,
    /// allocator caches); peakRssMb - startRssMb is what this run added.
    double startRssMb = 0.0;
    /// The engine's internal error that ended the run (PeerFailure), at step stepMs.size() + 1;
    /// empty when none.
    std::string failure;
};

Run run(PeerWall& wall, const PeerWallSetup& setup, Scene scene, int steps, double capSeconds,
        const PeerShot& shot) {
    const double dtSeconds = setup.dtSeconds;
    const auto earlySteps = static_cast<int>(std::lround(kEarlyDriftSeconds / dtSeconds));
    const int overlapEvery =
        scene == Scene::kCollapse ? 1 : std::max(1, static_cast<int>(std::lround(1.0 / dtSeconds)));
    std::vector<BrickPose> poses;
    Run r;
    r.stepsPlanned = steps;
    r.stepMs.reserve(static_cast<std::size_t>(steps));
    r.cpuMs.reserve(static_cast<std::size_t>(steps));
    std::vector<rigid::Vec3> start;
    wall.brickCentres(start);
    if (scene == Scene::kCollapse) {
        wall.shoot(shot);
    }
    const Stopwatch total;
    double measuringMs = 0.0;
    for (int s = 0; s < steps; ++s) {
        const double cpu0 = processCpuMs();
        const Stopwatch sw;
        try {
            wall.step();
        } catch (const PeerFailure& e) {
            r.failure = e.what();
            break;
        }
        r.stepMs.push_back(sw.elapsedMs());
        r.cpuMs.push_back(processCpuMs() - cpu0);
        wall.brickPoses(poses);  // read once a step: the drift's centres and the overlap's poses
        for (std::size_t i = 0; i < start.size() && i < poses.size(); ++i) {
            const double d = rigid::length(poses[i].centre - start[i]);
            r.maxDriftM = std::isfinite(d) ? std::max(r.maxDriftM, d)
                                           : std::numeric_limits<double>::infinity();
        }
        if (s + 1 == earlySteps) {
            r.earlyDriftM = r.maxDriftM;
        }
        if ((s + 1) % overlapEvery == 0) {
            const Stopwatch measuring;
            const double overlap = deepestOverlapM(setup, poses);
            if (overlap > r.maxOverlapM || r.maxOverlapStep == 0) {
                r.maxOverlapM = overlap;
                r.maxOverlapStep = s + 1;
            }
            measuringMs += measuring.elapsedMs();
        }
        // (The cap is on the engine's time: the overlap measurement is left out.)
        if (s + 1 < steps && total.elapsedMs() - measuringMs > capSeconds * 1e3) {
            r.capped = true;
            break;
        }
    }
    return r;
}

std::string verdict(const Run& r) {
    const int done = static_cast<int>(r.stepMs.size());
    std::string v = r.maxDriftM <= kStandsDriftM ? "stands" : "falls";
    if (!r.failure.empty()) {
        return "failed at step " + std::to_string(done + 1) + " of " +
               std::to_string(r.stepsPlanned) + " (" + r.failure + ")";
    }
    if (r.capped) {
        v += ", stopped after " + std::to_string(done) + " of " + std::to_string(r.stepsPlanned) +
             " steps (cap)";
    }
    return v;
}

Record toRecord(const Engine& e, const WallSize& size, Scene scene, const Run& r,
                double dtSeconds) {
    Record rec;
    rec.suite = "wall";
    rec.name = scene == Scene::kRest ? "peers-rest" : "peers-collapse";
    rec.size = std::to_string(size.cols) + "x" + std::to_string(size.rows);
    rec.backend = e.name;
    rec.medianMs = median(r.stepMs);
    rec.repeats = static_cast<int>(r.stepMs.size());
    rec.metrics = {{"p95_ms", quantile(r.stepMs, 0.95)},
                   {"max_ms", quantile(r.stepMs, 1.0)},
                   {"cpu_time_p50_ms", quantile(r.cpuMs, 0.5)},
                   {"max_drift_m", r.maxDriftM},
                   {"stands", r.maxDriftM <= kStandsDriftM ? 1.0 : 0.0},
                   {"steps", static_cast<double>(r.stepMs.size())},
                   {"steps_planned", r.stepsPlanned},
                   {"capped", r.capped ? 1.0 : 0.0},
                   {"failed", r.failure.empty() ? 0.0 : 1.0},
                   {"simulated_s", static_cast<double>(r.stepMs.size()) * dtSeconds},
                   {"threads", e.threads},
                   {"peak_rss_mib", r.peakRssMb},
                   {"rss_growth_mib", r.peakRssMb - r.startRssMb}};
    if (!std::isnan(r.earlyDriftM)) {
        rec.metrics.push_back({"max_drift_10s_m", r.earlyDriftM});
    }
    if (r.maxOverlapStep > 0) {
        rec.metrics.push_back({"max_overlap_m", r.maxOverlapM});
        rec.metrics.push_back({"max_overlap_step", r.maxOverlapStep});
    }
    return rec;
}

void printHeader(const std::vector<Engine>& list, bool quick, double capSeconds) {
    std::printf(
        "\n== wall peers: unit cubes in exactly touching columns, awake, dt 1/60 s, mu %.2g; "
        "rest %s (stands: max drift <= %.0f cm), collapse: %.0f kg sphere r %.1f m at %.0f m/s "
        "from %.0f m, %s; cap %.0f s per run ==\n",
        static_cast<double>(rigid::WorldParams{}.friction), quick ? "a few steps" : "30 s",
        kStandsDriftM * 100.0, static_cast<double>(PeerShot{}.massKg),
        static_cast<double>(PeerShot{}.radiusM), static_cast<double>(kShotSpeedMps),
        static_cast<double>(kShotDistanceM), quick ? "a few steps" : "5 s", capSeconds);
    for (const Engine& e : list) {
        std::printf("  %s\n", e.description.c_str());
    }
    for (const char* peer : {"bullet", "ode", "box3d"}) {
        const std::string skip = peerSkipLine(peer);
        if (!skip.empty()) {
            std::printf("%s\n", skip.c_str());
        }
    }
    std::printf(
        "(overlap m: the deepest two bricks, or a brick and the ground, sank into each other, by "
        "our narrow phase, every step of a collapse and once a second at rest; peak MiB: the "
        "process's resident high-water mark during the run; +MiB: its rise over the resident "
        "size before the run)\n");
    std::printf("%-24s %-7s %-9s %7s %9s %9s %9s %11s %11s %9s %8s %6s  %s\n", "engine", "wall",
                "scene", "steps", "p50 ms", "p95 ms", "max ms", "drift@10s m", "max drift m",
                "overlap m", "peak MiB", "+MiB", "verdict");
}

void printRow(const Record& rec, Scene scene, const Run& r) {
    char early[16] = "-";
    if (!std::isnan(r.earlyDriftM)) {
        std::snprintf(early, sizeof early, "%.4f", r.earlyDriftM);
    }
    char overlap[16] = "-";
    if (r.maxOverlapStep > 0) {
        std::snprintf(overlap, sizeof overlap, "%.4f", r.maxOverlapM);
    }
    std::printf("%-24s %-7s %-9s %7zu %9.3f %9.3f %9.3f %11s %11.4f %9s %8.0f %6.0f  %s\n",
                rec.backend.c_str(), rec.size.c_str(), scene == Scene::kRest ? "rest" : "collapse",
                r.stepMs.size(), rec.medianMs, quantile(r.stepMs, 0.95), quantile(r.stepMs, 1.0),
                early, r.maxDriftM, overlap, r.peakRssMb, r.peakRssMb - r.startRssMb,
                verdict(r).c_str());
    std::fflush(stdout);
}

bool isOurs(const Record& r) {
    return r.backend.rfind("wavewall", 0) == 0;
}

// "  WxH scene, wavewall-cpu p50 / peer p50 in this run: bullet 1.23x, ..." under a scene's
// rows, one line per row of ours (nothing without a peer).
void printRatios(const std::vector<Record>& group, Scene scene) {
    for (const Record& ours : group) {
        if (!isOurs(ours)) {
            continue;
        }
        std::string line = "  " + ours.size + (scene == Scene::kRest ? " rest" : " collapse") +
                           ", " + ours.backend + " p50 / peer p50 in this run:";
        int peers = 0;
        for (const Record& peer : group) {
            if (isOurs(peer)) {
                continue;
            }
            char ratio[32] = "-";
            if (peer.medianMs > 0.0 && std::isfinite(ours.medianMs)) {
                std::snprintf(ratio, sizeof ratio, "%.2fx", ours.medianMs / peer.medianMs);
            }
            line += (peers++ == 0 ? " " : ", ") + peer.backend + " " + ratio;
        }
        if (peers > 0) {
            std::printf("%s\n", line.c_str());
        }
    }
    std::fflush(stdout);
}

}  // namespace

void PeerWall::brickCentres(std::vector<rigid::Vec3>& out) const {
    std::vector<BrickPose> poses;
    brickPoses(poses);
    out.resize(poses.size());
    for (std::size_t i = 0; i < poses.size(); ++i) {
        out[i] = poses[i].centre;
    }
}

double deepestOverlapM(const PeerWallSetup& setup, const std::vector<BrickPose>& poses) {
    rigid::NarrowPhaseParams np;
    np.margin = 0.0f;  // touching or overlapping points only
    np.reuseDistance = 0.0f;
    np.reuseAngle = 0.0f;
    np.axisTolerance = 0.0f;  // the least penetrating axis, not a preferred face's
    std::vector<rigid::Body> boxes;
    boxes.reserve(poses.size());
    for (const BrickPose& pose : poses) {
        const rigid::Vec3& c = pose.centre;
        const rigid::Quat& q = pose.rotation;
        if (!(std::isfinite(c.x) && std::isfinite(c.y) && std::isfinite(c.z) &&
              std::isfinite(q.w) && std::isfinite(q.x) && std::isfinite(q.y) &&
              std::isfinite(q.z))) {
            continue;
        }
        rigid::BodyDesc d;
        d.kind = rigid::BodyKind::kBox;
        d.position = c;
        d.orientation = q;
        d.halfExtents = setup.brickHalfExtents;
        boxes.push_back(rigid::makeBody(d));
    }
    rigid::BodyDesc groundDesc;
    groundDesc.kind = rigid::BodyKind::kPlane;
    groundDesc.planeNormal = {0.0f, 1.0f, 0.0f};
    groundDesc.massKg = 0.0f;
    const rigid::Body ground = rigid::makeBody(groundDesc);

    // Two bricks can touch only while their centres are within two circumradii: a grid of
    // cells that wide, the bricks sorted by cell, pairs each brick with those of its own and
    // the neighbouring cells after it in that order (each pair once, from its first brick).
    const float reach = 2.0f * rigid::length(setup.brickHalfExtents);
    constexpr std::int64_t kCellBits = 21;
    constexpr std::int64_t kCellLimit = std::int64_t{1} << (kCellBits - 1);  // cells either side
    auto cellOf = [reach](float v) {
        // A brick flung farther than ~10^6 cells shares the last cell: more candidates only.
        return std::clamp(static_cast<std::int64_t>(std::floor(v / reach)), -kCellLimit + 1,
                          kCellLimit - 2);
    };
    auto keyOf = [](std::int64_t ix, std::int64_t iy, std::int64_t iz) {
        return ((ix + kCellLimit) << (2 * kCellBits)) | ((iy + kCellLimit) << kCellBits) |
               (iz + kCellLimit);
    };
    struct Entry {
        std::int64_t key;
        std::size_t box;
        bool operator<(const Entry& o) const {
            return key < o.key || (key == o.key && box < o.box);
        }
    };
    std::vector<Entry> entries(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const rigid::Vec3& c = boxes[i].position;
        entries[i] = {keyOf(cellOf(c.x), cellOf(c.y), cellOf(c.z)), i};
    }
    std::sort(entries.begin(), entries.end());

    double deepest = 0.0;
    std::vector<rigid::ContactPoint> points;
    auto take = [&deepest, &points] {
        for (const rigid::ContactPoint& p : points) {
            deepest = std::max(deepest, -static_cast<double>(p.separation));
        }
        points.clear();
    };
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const std::size_t ia = entries[k].box;
        const rigid::Body& a = boxes[ia];
        if (a.position.y < 0.5f * reach) {
            rigid::collideBoxPlane(a, ground, np, points);
            take();
        }
        const std::int64_t ix = cellOf(a.position.x), iy = cellOf(a.position.y),
                           iz = cellOf(a.position.z);
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
            for (std::int64_t dy = -1; dy <= 1; ++dy) {
                for (std::int64_t dz = -1; dz <= 1; ++dz) {
                    const std::int64_t key = keyOf(ix + dx, iy + dy, iz + dz);
                    if (key < entries[k].key) {
                        continue;  // that cell's pairs with this one are taken from its side
                    }
                    auto it = std::lower_bound(entries.begin(), entries.end(), Entry{key, 0});
                    for (; it != entries.end() && it->key == key; ++it) {
                        if (!(entries[k] < *it)) {
                            continue;  // the pair is taken from the other brick's side
                        }
                        const rigid::Body& b = boxes[it->box];
                        if (rigid::length(b.position - a.position) > reach) {
                            continue;
                        }
                        // The lower x first (then the lower index): one order for a pair,
                        // whichever brick finds it.
                        const bool aFirst = a.position.x < b.position.x ||
                                            (a.position.x == b.position.x && ia < it->box);
                        rigid::collideBoxBox(aFirst ? a : b, aFirst ? b : a, np, points);
                        take();
                    }
                }
            }
        }
    }
    return deepest;
}

PeerWallSetup peerWallSetup(const WallSize& size) {
    const rigid::WallParams wall = wallParams(size);
    // The bricks' poses come from addWall itself; a one-thread world only reads them.
    const OurWall probe(std::make_shared<const exec::Executor>(1), wall, rigid::WorldParams{});
    PeerWallSetup s;
    probe.brickCentres(s.brickCentres);
    s.brickHalfExtents = wall.brickHalfExtents;
    s.brickMassKg = wall.brickMassKg;
    s.friction = rigid::WorldParams{}.friction;
    s.dtSeconds = rigid::WorldParams{}.dtSeconds;
    return s;
}

std::unique_ptr<PeerWall> makeOurWall(std::shared_ptr<const exec::Executor> executor,
                                      const WallSize& size, const rigid::WorldParams& params) {
    return std::make_unique<OurWall>(std::move(executor), wallParams(size), params);
}

std::string peerSkipLine(const std::string& peer) {
    if (peer == "bullet" && WW_HAVE_BULLET == 0) {
        return "peers skipped: Bullet not found (install libbullet-dev)";
    }
    if (peer == "ode" && WW_HAVE_ODE == 0) {
        return "peers skipped: ODE not found (install libode-dev)";
    }
    if (peer == "box3d" && WW_HAVE_BOX3D == 0) {
        return "peers skipped: Box3D not found (build and install github.com/erincatto/box3d, "
               "then configure with -DWW_BOX3D_ROOT=<its install prefix>; docs/benchmarks.md)";
    }
    return "";
}

void runWallPeers(const Options& opts, Recorder& recorder) {
    const std::vector<Engine> list = engines(opts);
    const double capSeconds = opts.quick ? kQuickCapSeconds : kCapSeconds;
    printHeader(list, opts.quick, capSeconds);
    std::vector<WallSize> walls = opts.peerWalls;
    if (opts.quick && !walls.empty()) {
        walls.resize(1);
    }
    for (const WallSize& size : walls) {
        const PeerWallSetup setup = peerWallSetup(size);
        const PeerShot shot = shotFor(setup, size);
        for (Scene scene : {Scene::kRest, Scene::kCollapse}) {
            const double seconds = scene == Scene::kRest ? kRestSeconds : kCollapseSeconds;
            const int steps =
                opts.quick ? kQuickSteps : static_cast<int>(std::lround(seconds / setup.dtSeconds));
            std::vector<Record> group;
            for (const Engine& e : list) {
                resetPeakRss();
                const double startRss = rssMb();
                std::unique_ptr<PeerWall> wall = e.make(opts, size, setup);
                Run r = run(*wall, setup, scene, steps, capSeconds, shot);
                r.peakRssMb = peakRssMb();
                r.startRssMb = startRss;
                group.push_back(toRecord(e, size, scene, r, setup.dtSeconds));
                printRow(group.back(), scene, r);
            }
            // Our row carries the peers' medians of the same run as its baselines, and the
            // ratios are printed under the rows: the comparison the suite is for.
            for (std::size_t k = 1; k < group.size(); ++k) {
                if (!isOurs(group[k])) {
                    group[0].baselines.push_back({group[k].backend, group[k].medianMs});
                }
            }
            printRatios(group, scene);
            for (Record& rec : group) {
                recorder.add(std::move(rec));
            }
        }
    }
}

}  // namespace ww::bench
