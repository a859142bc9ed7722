// World stepping: collide, assemble, solve, integrate (see world.h).
#include "solver/rigid/world.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <span>
#include <string_view>

#include "solver/core/hash.h"
#include "solver/core/timer.h"
#include "solver/exec/float_mode.h"
#include "solver/lcp/lcp_omega.h"

namespace ww::rigid {

namespace {

/// Pairs per chunk of the narrow phase: a chunk's pairs, frames and warm starts are ~10 us
/// of work, so that chunk hand-offs stay cheap and a pile's pairs spread over many threads.
constexpr std::ptrdiff_t kNarrowPhaseChunkPairs = 64;
/// What one pair costs, in the executor's work units (multiply-adds): a box-box test with
/// its clipping is a few hundred.
constexpr std::ptrdiff_t kNarrowPhasePairWork = 256;
/// Bodies per chunk of the position update, and posed contacts per chunk of the impulses'
/// write-back: fixed sizes, so that the chunking never depends on the thread count.
constexpr std::ptrdiff_t kIntegrateChunkBodies = 128;
constexpr std::ptrdiff_t kImpulseChunkContacts = 256;
/// Shock propagation's sweeps stop after one in which no row's update changed that row's
/// velocity by more than this, m/s (ShockParams::tolerance; docs/rigid.md, "The tolerance and
/// the shock pass's sweeps"): a thousandth of what a standing wall's bricks move. Stopped sooner
/// (1e-7, 1e-6 m/s), the pass leaves the next step's warm start further from solving its LCP, and
/// resting walls of 40 x 25 and 64 x 64 run Jacobi iterations again that they otherwise skip.
constexpr float kShockTolerance = 1.0e-8f;

}  // namespace

const char* toString(LcpMode m) {
    return m == LcpMode::kDense ? "dense" : "islands";
}

std::optional<LcpMode> parseLcpMode(std::string_view s) {
    if (s == "dense") {
        return LcpMode::kDense;
    }
    if (s == "islands") {
        return LcpMode::kIslands;
    }
    return std::nullopt;
}

const char* toString(LcpOperator o) {
    switch (o) {
        case LcpOperator::kDense:
            return "dense";
        case LcpOperator::kMatrixFree:
            return "matrix-free";
        case LcpOperator::kAuto:
            return "auto";
    }
    return "?";
}

std::optional<LcpOperator> parseLcpOperator(std::string_view s) {
    if (s == "dense") {
        return LcpOperator::kDense;
    }
    if (s == "matrix-free") {
        return LcpOperator::kMatrixFree;
    }
    if (s == "auto") {
        return LcpOperator::kAuto;
    }
    return std::nullopt;
}

float defaultWallOmega(lcp::LcpMethod method) {
    return method == lcp::LcpMethod::kJacobi ? 0.3f : lcp::kGaussSeidelOmega;
}

lcp::LcpOptions defaultWallLcpOptions() {
    lcp::LcpOptions o;
    o.method = lcp::LcpMethod::kJacobi;
    o.omega = defaultWallOmega(o.method);
    // With shock propagation (WorldParams::shockSweeps) a resting wall needs no more than ~10:
    // the cap is for piles in motion. 30 holds what 50 held once the collision gives the solver
    // every contact (spinning corners, face manifolds for tilted bricks): twelve 40 x 25 shots
    // all within --check, median deepest overlap 0.11 m against 0.12 m at 50, the 10 000-brick
    // collapses clean over 900 steps, 18 % off a collapse step (docs/rigid.md, "What the 30
    // iterations buy in a collapse").
    o.maxIterations = 30;
    o.tolerance = 1.0e-4f;
    o.checkEvery = 10;
    // Chebyshev acceleration of the wall's Jacobi (docs/rigid.md, "The wall at scale"): the
    // slow modes of tall touching columns are what plain Jacobi leaves unsolved each step, and
    // rho is the spectral radius the acceleration is tuned for: the taller the column, the
    // closer its slowest mode is to 1. Rest for 60 s (docs/rigid.md, "Chebyshev's rho"):
    // 20 x 20 drifts 16 cm at rho 0.99 and 6.4 mm at 0.999, 40 x 25 falls (30 m) at 0.99 and
    // leans 8.8 cm at 0.999. Gauss-Seidel ignores it.
    o.chebyshevRho = 0.999f;
    return o;
}

World::World(std::shared_ptr<const exec::Executor> executor, WorldParams params)
    : m_params(params), m_ex(std::move(executor)), m_solver(lcp::makeCpuLcpSolver(m_ex)) {}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

int World::addBody(const BodyDesc& desc) {
    m_bodies.push_back(makeBody(desc));
    m_broad.invalidate();
    return static_cast<int>(m_bodies.size()) - 1;
}

void World::removeBody(int i) {
    m_bodies.erase(m_bodies.begin() + i);
    const std::size_t mode = lcp::RowOperator::kBodyFloats * static_cast<std::size_t>(i);
    if (mode < m_lambdaModes.size()) {
        m_lambdaModes.erase(m_lambdaModes.begin() + static_cast<std::ptrdiff_t>(mode),
                            m_lambdaModes.begin() +
                                static_cast<std::ptrdiff_t>(mode + lcp::RowOperator::kBodyFloats));
    }
    if (static_cast<std::size_t>(i) < m_lambdaOfBody.size()) {
        m_lambdaOfBody.erase(m_lambdaOfBody.begin() + i);
    }
    m_cache.removeBody(i);
    m_broad.invalidate();
    m_contacts.clear();
    // Whatever rested on it may now fall.
    for (int k = 0; k < bodyCount(); ++k) {
        wake(k);
    }
}

void World::restoreState(const State& state) {
    m_bodies = state.bodies;
    m_cache = state.cache;
    m_steps = state.steps;
    m_lambdaModes = state.lambdaModes;
    m_lambdaOfBody = state.lambdaOfBody;
    m_broad.invalidate();
    m_contacts.clear();
    m_blockCount = 0;
}

void World::wake(int i) {
    m_bodies[i].asleep = false;
    m_bodies[i].slowSeconds = 0.0f;
}

void World::reserve(int bodies, int contacts) {
    m_bodies.reserve(bodies);
    m_contacts.reserve(contacts);
    m_jac.reserve(3 * static_cast<std::size_t>(contacts));
    m_x.reserve(3 * static_cast<std::size_t>(contacts));
    m_blockIds.reserve(contacts);
}

Status World::setBackend(Backend backend, const gpu::ShaderLibrary* shaders) {
    if (backend == Backend::kCpu) {
        m_solver = lcp::makeCpuLcpSolver(m_ex);
    } else {
        if (shaders == nullptr) {
            return Error{ErrorKind::kGpuUnavailable,
                         "rigid::World::setBackend(gpu) needs a "
                         "shader library and a current GL context"};
        }
        auto r = lcp::makeGpuLcpSolver(*shaders, m_ex);
        if (!r) {
            return r.error();
        }
        if (std::string why = (*r)->unsupported(m_params.lcp); !why.empty()) {
            return inputError("rigid::World::setBackend(gpu): " + why +
                              " (switch the LCP method to Jacobi first)");
        }
        m_solver = std::move(r).value();
    }
    m_backend = backend;
    return {};
}

const StepStats& World::step() {
    const exec::FlushSubnormals flush;  // as the water's step (solver/exec/float_mode.h)
    Stopwatch total;
    m_stats = StepStats{};
    m_stats.bodies = bodyCount();
    const int substeps = std::max(1, m_params.substeps);
    const float h = m_params.dtSeconds / static_cast<float>(substeps);
    for (int s = 0; s < substeps; ++s) {
        substep(h);
    }
    for (const Body& b : m_bodies) {
        if (!b.isStatic()) {
            m_stats.maxSpeed = std::max(m_stats.maxSpeed, length(b.linearVelocity));
            m_stats.sleepingBodies += b.asleep ? 1 : 0;
        }
    }
    ++m_steps;
    m_stats.totalMs = total.elapsedMs();
    return m_stats;
}

void World::substep(float h) {
    if (!m_params.sleep) {
        for (Body& b : m_bodies) {
            b.asleep = false;  // sleeping was switched off: everything moves again
        }
    }
    Stopwatch sw;
    collide(h);
    if (m_params.sleep) {
        wakeTouchedIslands();
    }
    m_stats.collideMs += sw.elapsedMs();
    assembleAndSolve(h);  // adds assembleMs and solveMs
    sw.restart();
    integrate(h);
    if (m_params.sleep) {
        updateSleep(h);
    }
    m_stats.integrateMs += sw.elapsedMs();
}

void World::wakeTouchedIslands() {
    m_islandBuilder.build(m_bodies, m_contacts, m_sleepIslands, m_ex.get());
    m_contactAwake.assign(m_contacts.size(), 1);
    const IslandSet& set = m_sleepIslands;
    for (int k = 0; k < set.count(); ++k) {
        const std::span<const int> ids = set.contactsOf(k);
        bool awake = false;
        for (int c : ids) {
            for (int b : {m_contacts[c].bodyA, m_contacts[c].bodyB}) {
                awake = awake || (!m_bodies[b].isStatic() && !m_bodies[b].asleep);
            }
        }
        for (int c : ids) {
            m_contactAwake[c] = awake ? 1 : 0;
            for (int b : {m_contacts[c].bodyA, m_contacts[c].bodyB}) {
                if (awake && m_bodies[b].asleep) {
                    wake(b);
                }
            }
        }
    }
}

void World::updateSleep(float h) {
    const float lin2 = m_params.sleepLinearSpeed * m_params.sleepLinearSpeed;
    const float ang2 = m_params.sleepAngularSpeed * m_params.sleepAngularSpeed;
    for (Body& b : m_bodies) {
        if (!b.isStatic() && !b.asleep) {
            const bool slow = dot(b.linearVelocity, b.linearVelocity) < lin2 &&
                              dot(b.angularVelocity, b.angularVelocity) < ang2;
            b.slowSeconds = slow ? b.slowSeconds + h : 0.0f;
        }
    }
    // An island sleeps as a whole, once all its bodies have been slow long enough. Bodies
    // without contacts are in flight and stay awake.
    const IslandSet& set = m_sleepIslands;
    for (int k = 0; k < set.count(); ++k) {
        const std::span<const int> ids = set.contactsOf(k);
        if (ids.empty() || m_contactAwake[ids[0]] == 0) {
            continue;  // asleep already
        }
        bool ready = true;
        for (int c : ids) {
            for (int b : {m_contacts[c].bodyA, m_contacts[c].bodyB}) {
                ready = ready && (m_bodies[b].isStatic() ||
                                  m_bodies[b].slowSeconds >= m_params.sleepSeconds);
            }
        }
        if (!ready) {
            continue;
        }
        for (int c : ids) {
            for (int b : {m_contacts[c].bodyA, m_contacts[c].bodyB}) {
                if (!m_bodies[b].isStatic()) {
                    m_bodies[b].asleep = true;
                    m_bodies[b].linearVelocity = {};
                    m_bodies[b].angularVelocity = {};
                }
            }
        }
    }
}

void World::collide(float h) {
    const NarrowPhaseParams& np = m_params.collision;
    m_broad.findPairs(m_bodies, np.margin, h, m_pairs, m_ex.get());
    m_stats.pairs = std::max(m_stats.pairs, static_cast<int>(m_pairs.size()));
    // The pairs in fixed chunks over the executor's threads: each chunk collides its pairs,
    // frames and warm-starts their contacts into its own list, and the lists are joined in
    // chunk order, so m_contacts comes out in pair order whatever the thread count.
    const auto pairCount = static_cast<std::ptrdiff_t>(m_pairs.size());
    const std::ptrdiff_t chunks = exec::chunkCount(pairCount, kNarrowPhaseChunkPairs);
    const auto uChunks = static_cast<std::size_t>(chunks);
    if (m_chunkContacts.size() < uChunks) {
        m_chunkContacts.resize(uChunks);
    }
    m_chunkPenetration.assign(uChunks, 0.0f);
    m_chunkWarm.assign(uChunks, 0);
    m_chunkReused.assign(uChunks, 0);
    m_chunkRestingPoints.assign(uChunks, 0);
    m_chunkRestingCold.assign(uChunks, 0);
    // Resting: no point of the body faster than half a step of free fall (0.08 m/s at 60 Hz),
    // the shock pass's rule; a standing wall's bricks move ~1e-5 m/s.
    const float restingSpeed = 0.5f * length(m_params.gravity) * h;
    // Per body, once (a body is in several pairs): whether it rests, and its speculative margin
    // as a pair's first and second body.
    const auto bodies = static_cast<std::ptrdiff_t>(m_bodies.size());
    m_bodyResting.resize(m_bodies.size());
    m_bodyMargin.resize(2 * m_bodies.size());
    exec::forRanges(
        m_ex.get(), bodies, kIntegrateChunkBodies,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(last);
                 ++i) {
                const Body& b = m_bodies[i];
                m_bodyResting[i] = b.isStatic() || fastestPointSpeed(b) <= restingSpeed ? 1 : 0;
                m_bodyMargin[2 * i] = speculativeMargin(b, np.margin, h);
                m_bodyMargin[2 * i + 1] = speculativeMargin(b, 0.0f, h);
            }
        },
        40 * bodies);
    m_points.resize(static_cast<std::size_t>(m_ex->threads()));
    // Run on this thread alone, the chunks come in order: each appends straight to m_contacts
    // and there is nothing to join (a 40 x 25 collapse's join copied 2 MB a step).
    const std::ptrdiff_t narrowWork = pairCount * kNarrowPhasePairWork;
    const bool inOrder = m_ex->runsInOrder(chunks, narrowWork);
    if (inOrder) {
        m_contacts.clear();
    }
    m_ex->forEachChunk(
        chunks,
        [&](std::ptrdiff_t chunk, int worker) {
            const auto uc = static_cast<std::size_t>(chunk);
            std::vector<Contact>& out = inOrder ? m_contacts : m_chunkContacts[uc];
            std::vector<ContactPoint>& points = m_points[static_cast<std::size_t>(worker)];
            if (!inOrder) {
                out.clear();
            }
            float maxPen = 0.0f;
            const std::ptrdiff_t end = std::min(pairCount, (chunk + 1) * kNarrowPhaseChunkPairs);
            int warm = 0;
            int reused = 0;
            int restingPoints = 0;
            int restingCold = 0;
            std::size_t cacheAt = 0;  // the pairs come sorted: one walk over the cache
            for (std::ptrdiff_t q = chunk * kNarrowPhaseChunkPairs; q < end; ++q) {
                const auto [i, j] = m_pairs[static_cast<std::size_t>(q)];
                const Body& bi = m_bodies[i];
                const Body& bj = m_bodies[j];
                NarrowPhaseParams pairParams = np;
                pairParams.margin = m_bodyMargin[2 * static_cast<std::size_t>(i)] +
                                    m_bodyMargin[2 * static_cast<std::size_t>(j) + 1];
                // Box-box and box-plane pairs of resting bodies keep their manifold while their
                // relative pose holds (contacts.h). A moving pair is made afresh: its
                // speculative points (the margin grows with speed) are what keeps debris out of
                // the bricks it falls on (docs/rigid.md, "What we tried": moving pairs kept too).
                const auto flat = [](const Body& b) {
                    return b.kind == BodyKind::kBox || b.kind == BodyKind::kPlane;
                };
                const bool restingPair = m_bodyResting[static_cast<std::size_t>(i)] != 0 &&
                                         m_bodyResting[static_cast<std::size_t>(j)] != 0;
                const bool keepable = m_params.keepManifolds && flat(bi) && flat(bj) && restingPair;
                const std::size_t first = out.size();
                // The pair's cache entries, found by the walk (the pairs come sorted).
                const std::span<const ContactCache::Entry> cached =
                    m_cache.pairEntries(i, j, cacheAt);
                if (keepable && reuseManifold(cached, i, j, bi, bj, pairParams,
                                              m_params.warmStartFactor, out)) {
                    reused += static_cast<int>(out.size() - first);
                    if (m_params.warmStart) {
                        warm += static_cast<int>(out.size() - first);
                    } else {
                        for (std::size_t k = first; k < out.size(); ++k) {
                            out[k].impulse[0] = out[k].impulse[1] = out[k].impulse[2] = 0.0f;
                            out[k].warmStarted = false;
                        }
                    }
                } else {
                    points.clear();
                    rigid::collide(bi, bj, pairParams, points);
                    TangentMemo memo;
                    for (const ContactPoint& cp : points) {
                        // In place (makeContact's contact, without a copy from the stack).
                        Contact& c = out.emplace_back();
                        setContactPoint(c, i, j, cp, memo);
                        if (keepable) {
                            anchorContact(c, bi, bj);
                        }
                    }
                    // Without warmStartMovingPairs a moving pair's points stay cold
                    // (makeContact: zero, not warm started): the resting-load guess sets them.
                    if (m_params.warmStart && (m_params.warmStartMovingPairs || restingPair)) {
                        warm += ContactCache::warmStartPair(cached,
                                                            std::span<Contact>(out).subspan(first),
                                                            m_params.warmStartFactor);
                    }
                }
                for (std::size_t k = first; k < out.size(); ++k) {
                    maxPen = std::max(maxPen, -out[k].separation);
                    restingPoints += restingPair ? 1 : 0;
                    restingCold += restingPair && !out[k].warmStarted ? 1 : 0;
                }
            }
            m_chunkPenetration[uc] = maxPen;
            m_chunkWarm[uc] = warm;
            m_chunkReused[uc] = reused;
            m_chunkRestingPoints[uc] = restingPoints;
            m_chunkRestingCold[uc] = restingCold;
        },
        narrowWork);
    float maxPen = 0.0f;
    int warm = 0;
    int reused = 0;
    for (std::size_t c = 0; c < uChunks; ++c) {
        maxPen = std::max(maxPen, m_chunkPenetration[c]);
        warm += m_chunkWarm[c];
        reused += m_chunkReused[c];
    }
    m_restingPoints = 0;
    m_restingCold = 0;
    for (std::size_t c = 0; c < uChunks; ++c) {
        m_restingPoints += m_chunkRestingPoints[c];
        m_restingCold += m_chunkRestingCold[c];
    }
    if (!inOrder) {
        // The chunks' contacts in chunk order, each chunk copied to its place on any thread (a
        // 10 000-brick wall's contacts are ~20 MB).
        m_chunkAt.resize(uChunks + 1);
        m_chunkAt[0] = 0;
        for (std::size_t c = 0; c < uChunks; ++c) {
            m_chunkAt[c + 1] = m_chunkAt[c] + m_chunkContacts[c].size();
        }
        m_contacts.resize(m_chunkAt[uChunks]);
        exec::forChunks(
            m_ex.get(), static_cast<std::ptrdiff_t>(uChunks),
            [&](std::ptrdiff_t c) {
                const std::vector<Contact>& from = m_chunkContacts[static_cast<std::size_t>(c)];
                std::copy(from.begin(), from.end(),
                          m_contacts.begin() +
                              static_cast<std::ptrdiff_t>(m_chunkAt[static_cast<std::size_t>(c)]));
            },
            static_cast<std::ptrdiff_t>(m_chunkAt[uChunks] * sizeof(Contact) / 16));
    }
    if (m_params.warmStart) {
        m_stats.warmStarted = warm;
    }
    m_stats.reusedContacts = reused;
    if (m_params.restingLoadGuess) {
        guessRestingImpulses(m_bodies, m_contacts, m_params.gravity, h, m_restingLoad, m_ex.get());
    }
    m_stats.contacts = std::max(m_stats.contacts, static_cast<int>(m_contacts.size()));
    m_stats.maxPenetration = std::max(m_stats.maxPenetration, maxPen);
}

float World::estimateBlocksLambdaMax(float denseBound) {
    float lambda = 0.0f;
    m_lambdaModes.resize(lcp::RowOperator::kBodyFloats * m_bodies.size(), 0.0f);
    m_lambdaOfBody.resize(m_bodies.size(), 0.0f);
    m_denseContacts.clear();
    m_denseJac.clear();
    for (int k = 0; k < m_blockCount; ++k) {
        if (m_blocks[k].matrixFree()) {
            // From the Ritz vector of the bodies' last estimate (plus the hash start), which
            // settles in a few steps, and back into m_lambdaModes.
            constexpr std::size_t kU = lcp::RowOperator::kBodyFloats;
            const std::vector<int>& slots = m_blockBodies[static_cast<std::size_t>(k)];
            m_lambdaStart.resize(kU * slots.size());
            for (std::size_t slot = 0; slot < slots.size(); ++slot) {
                std::copy_n(m_lambdaModes.begin() + static_cast<std::ptrdiff_t>(
                                                        kU * static_cast<std::size_t>(slots[slot])),
                            kU, m_lambdaStart.begin() + static_cast<std::ptrdiff_t>(kU * slot));
            }
            bool settled = m_steps % kLambdaRefreshSteps != 0 &&
                           std::any_of(m_lambdaStart.begin(), m_lambdaStart.end(),
                                       [](float v) { return v != 0.0f; });
            if (settled) {
                const std::span<const int> ids = blockContacts(k);
                constexpr std::ptrdiff_t kChunk = 4096;
                const auto count = static_cast<std::ptrdiff_t>(ids.size());
                settled = exec::reduceChunks(
                    m_ex.get(), exec::chunkCount(count, kChunk), true,
                    [&](std::ptrdiff_t c) {
                        const std::span<const int> part = ids.subspan(
                            static_cast<std::size_t>(c * kChunk),
                            static_cast<std::size_t>(std::min(kChunk, count - c * kChunk)));
                        return std::all_of(part.begin(), part.end(), [&](int id) {
                            return m_contacts[static_cast<std::size_t>(id)].reused;
                        });
                    },
                    // A contact record (~190 bytes) read per id: a per-contact pass's work.
                    [](bool acc, bool all) { return acc && all; }, 16 * count);
            }
            if (settled) {
                // Its bodies' last full estimate (0 for a body without one: estimate anew).
                float kept = 0.0f;
                bool known = true;
                for (const int body : slots) {
                    const float l = m_lambdaOfBody[static_cast<std::size_t>(body)];
                    known = known && l > 0.0f;
                    kept = std::max(kept, l);
                }
                if (known) {
                    lambda = std::max(lambda, kept);
                    continue;
                }
            }
            lcp::LanczosOptions o;
            o.maxSteps = kLambdaSteps;
            o.minSteps = kLambdaMinSteps;
            o.stopRise = kLambdaStopRise;
            o.start = m_lambdaStart;
            o.ritzVector = true;
            const lcp::LanczosResult r =
                lcp::lanczosLambdaMax(m_blocks[k].op, o, m_lanczos, m_ex.get());
            lambda = std::max(lambda, r.lambda);
            m_stats.lambdaSteps += r.steps;
            for (const int body : slots) {
                m_lambdaOfBody[static_cast<std::size_t>(body)] = r.lambda;
            }
            if (m_lanczos.ritz.size() == m_lambdaStart.size()) {
                for (std::size_t slot = 0; slot < slots.size(); ++slot) {
                    std::copy_n(
                        m_lanczos.ritz.begin() + static_cast<std::ptrdiff_t>(kU * slot), kU,
                        m_lambdaModes.begin() + static_cast<std::ptrdiff_t>(
                                                    kU * static_cast<std::size_t>(slots[slot])));
                }
            }
            continue;
        }
    }
    // The dense blocks' estimate approaches their lambda_max from below, and that is at most
    // their Gershgorin bound: where the bound (with room for the rounding between the dense
    // matrix it is taken from and the Jacobians the estimate multiplies by) stays below the
    // matrix-free blocks' value, the estimate cannot raise the largest and is not run. The 20 x
    // 20 wall shot at step 60 has dense blocks on 510 of its first 600 steps and skips their
    // estimate on 368 (264 of the 270 up to step 360): small islands' bounds are mostly 5-13
    // against the big island's 14-17 (docs/rigid.md, "lambda_max of the dense blocks").
    if (!(denseBound > 0.0f) || denseBound * (1.0f + kDenseBoundRoom) < lambda) {
        return lambda;
    }
    for (int k = 0; k < m_blockCount; ++k) {
        if (m_blocks[k].matrixFree()) {
            continue;
        }
        for (const int id : blockContacts(k)) {
            m_denseContacts.push_back(m_contacts[static_cast<std::size_t>(id)]);
            for (int r = 0; r < 3; ++r) {
                m_denseJac.push_back(m_jac[3 * static_cast<std::size_t>(id) + r]);
            }
        }
    }
    if (!m_denseContacts.empty()) {
        lambda = std::max(lambda, estimateLambdaMax(m_denseContacts, m_denseJac, m_params.cfm,
                                                    kLambdaSteps, m_denseLanczos, m_ex.get()));
    }
    return lambda;
}

void World::assembleAndSolve(float h) {
    Stopwatch sw;
    const int nc = static_cast<int>(m_contacts.size());
    m_blockIds.clear();
    m_blockStart.assign(1, 0);
    // With sleeping, only the contacts of awake islands are posed (wakeTouchedIslands).
    const auto posed = [&](int c) { return !m_params.sleep || m_contactAwake[c] != 0; };
    if (m_params.mode == LcpMode::kDense) {
        for (int c = 0; c < nc; ++c) {
            if (posed(c)) {
                m_blockIds.push_back(c);
            }
        }
        if (!m_blockIds.empty()) {
            m_blockStart.push_back(static_cast<int>(m_blockIds.size()));
        }
    } else if (m_params.sleep) {
        const IslandSet& set = m_sleepIslands;
        for (int k = 0; k < set.count(); ++k) {
            const int begin = set.islandStart[k];
            const int end = set.islandStart[k + 1];
            if (end > begin && posed(set.contactOrder[begin])) {
                m_blockIds.insert(m_blockIds.end(), set.contactOrder.begin() + begin,
                                  set.contactOrder.begin() + end);
                m_blockStart.push_back(static_cast<int>(m_blockIds.size()));
            }
        }
    } else {
        m_islandBuilder.build(m_bodies, m_contacts, m_islands, m_ex.get());
        m_blockIds = m_islands.contactOrder;
        m_blockStart = m_islands.islandStart;
    }
    const int blocks = static_cast<int>(m_blockStart.size()) - 1;
    if (static_cast<int>(m_blocks.size()) < blocks) {
        m_blocks.resize(blocks);
        m_blockBodies.resize(blocks);
    }
    m_blockCount = blocks;
    m_x.resize(3 * m_blockIds.size());  // the posed contacts (with sleeping, not all)
    AssemblyParams ap;
    ap.dt = h;
    ap.gravity = m_params.gravity;
    ap.friction = m_params.friction;
    ap.erp = m_params.erp;
    ap.slop = m_params.slopM;
    ap.maxCorrectionSpeed = m_params.maxCorrectionSpeed;
    ap.restitution = m_params.restitution;
    ap.restitutionThreshold = m_params.restitutionThreshold;
    ap.cfm = m_params.cfm;
    // The parameters may have changed since setBackend (the panel switches the method): a
    // method the backend cannot run is solved on the CPU, and the step says so, rather than
    // integrating unsolved impulses.
    lcp::LcpSolver* solver = m_solver.get();
    if (!solver->unsupported(m_params.lcp).empty()) {
        if (!m_cpuFallback) {
            m_cpuFallback = lcp::makeCpuLcpSolver(m_ex);
        }
        solver = m_cpuFallback.get();
    }
    const std::span<const int> ids(m_blockIds);
    // Local step scales need every block's rows by body (posed matrix-free).
    const bool localSteps =
        m_params.localStepOmega > 0.0f && m_params.lcp.method == lcp::LcpMethod::kJacobi;
    // Only the CPU's Jacobi solver reads an operator in the contact form without its J and K
    // rows (RowOperator::finishContactForm); Gauss-Seidel, the GPU upload and local step
    // scales read the rows.
    ap.operatorRows = m_params.operatorRows || localSteps ||
                      m_params.lcp.method != lcp::LcpMethod::kJacobi ||
                      std::string_view(solver->backendName()) != "cpu";
    // The shock pass's velocity bias of every posed contact row, written as the rows are.
    if (m_params.shockSweeps > 0) {
        // Every posed row's entry is written by the assembly; the shock pass reads no other.
        m_shockBias.resize(3 * m_contacts.size());
        m_assembler.setRowBiasOutput(m_shockBias);
    }
    const auto matrixFreeBlock = [&](int k) {
        const int count = m_blockStart[k + 1] - m_blockStart[k];
        return localSteps || m_params.lcpOperator == LcpOperator::kMatrixFree ||
               (m_params.lcpOperator == LcpOperator::kAuto && m_params.mode == LcpMode::kIslands &&
                3 * count >= kMatrixFreeMinRows);
    };
    // The dense blocks' Jacobians, kept per contact for their assembly, their λ_max estimate and
    // their impulses (a matrix-free block forms its rows as it writes them).
    m_denseIds.clear();
    for (int k = 0; k < blocks; ++k) {
        if (!matrixFreeBlock(k)) {
            m_denseIds.insert(m_denseIds.end(), ids.begin() + m_blockStart[k],
                              ids.begin() + m_blockStart[k + 1]);
        }
    }
    computeJacobians(m_bodies, m_contacts, m_denseIds, m_jac, m_ex.get());
    double work = 0.0;
    for (int k = 0; k < blocks; ++k) {
        const int begin = m_blockStart[k];
        const int count = m_blockStart[k + 1] - begin;
        const std::span<const int> blockIds = ids.subspan(begin, count);
        const std::span<float> guess = std::span<float>(m_x).subspan(3 * begin, 3 * count);
        if (matrixFreeBlock(k)) {
            m_assembler.assembleMatrixFree(m_bodies, m_contacts, blockIds, ap, m_blocks[k], guess,
                                           m_ex.get());
            m_blockBodies[static_cast<std::size_t>(k)] = m_assembler.slotBodies();
            ++m_stats.matrixFreeBlocks;
        } else {
            m_assembler.assemble(m_bodies, m_contacts, m_jac, blockIds, ap, m_blocks[k], guess);
        }
        // Coulomb's isotropic cone: a contact's two tangent rows bounded jointly (docs/rigid.md).
        m_blocks[k].cone = lcp::FrictionCone::kDisc;
        work += m_blocks[k].productMacs();
    }
    m_assembler.setRowBiasOutput({});
    m_stats.lcpMacs = std::max(m_stats.lcpMacs, work);
    lcp::LcpOptions options = m_params.lcp;
    if (localSteps) {
        float worst = 0.0f;
        for (int k = 0; k < blocks; ++k) {
            worst = std::max(worst, m_blocks[k].op.useLocalStepDiagonals(m_ex.get()));
        }
        m_stats.lambdaMax = std::max(m_stats.lambdaMax, worst);  // over substeps, as below
        options.omega = m_params.localStepOmega;
    } else if (m_params.adaptiveOmega && options.method == lcp::LcpMethod::kJacobi && blocks > 0) {
        float rho = 0.0f;       // every block's (infinite for a matrix-free one)
        float denseRho = 0.0f;  // the dense blocks'
        for (int k = 0; k < blocks; ++k) {
            const auto g = static_cast<float>(lcp::gershgorinBound(m_blocks[k]));
            rho = std::max(rho, g);
            denseRho = m_blocks[k].matrixFree() ? denseRho : std::max(denseRho, g);
        }
        const float lambda =
            std::min(rho, kLambdaEstimateMargin * estimateBlocksLambdaMax(denseRho));
        m_stats.lambdaMax = std::max(m_stats.lambdaMax, lambda);
        if (lambda > 0.0f) {
            options.omega = std::min(options.omega, m_params.omegaSafety * 2.0f / lambda);
        }
    }
    m_stats.omega = options.omega;
    if (m_params.iterationBudgetMacs > 0.0 && options.maxIterations > 0) {
        if (work > 0.0) {
            const double cap = std::max(10.0, m_params.iterationBudgetMacs / work);
            if (cap < options.maxIterations) {
                options.maxIterations = static_cast<int>(cap);
                m_stats.budgetCap = options.maxIterations;
            }
        }
    }
    // A cold step is rare (scene start, bodies put down on a pile) and what it leaves unsolved
    // the warm steps after it cannot recover (a tall wall sags and falls): it may exceed the
    // budget. Cold means that most contact points are between resting bodies and were not
    // warm started. The moving pairs of a collapse are made afresh every step and often match
    // no cached feature (on a 100 x 100 collapse 41-82 % of all points were warm started,
    // below half every third step); counted as cold, they made those steps run 200 iterations
    // over 400 000 rows (1 s at two threads).
    if (m_params.coldStartIterations > 0 && options.maxIterations > 0 && 2 * m_restingCold > nc) {
        options.maxIterations = std::max(options.maxIterations, m_params.coldStartIterations);
    }
    m_stats.iterationCap = std::max(m_stats.iterationCap, options.maxIterations);
    m_stats.assembleMs += sw.elapsedMs();

    sw.restart();
    int itSum = 0;
    const auto account = [&](const lcp::LcpReport& r, int n) {
        itSum += r.iterations;
        m_stats.iterationsMax = std::max(m_stats.iterationsMax, r.iterations);
        m_stats.residualMax = std::max(m_stats.residualMax, r.residual);
        m_stats.divergedBlocks += r.status == lcp::LcpStatus::kDiverged ? 1 : 0;
        if (!r.error.empty() && m_stats.lcpError.empty()) {
            m_stats.lcpError = r.error;
        }
        if (!r.history.empty() && n >= m_stats.lcpNMax) {
            m_stats.residualHistory = r.history;
        }
        m_stats.lcpNMax = std::max(m_stats.lcpNMax, n);
    };
    if (solver != m_solver.get()) {
        m_stats.solvedOnCpuFallback = blocks > 0;
    }
    m_reports.clear();
    if (blocks == 1) {
        m_reports.push_back(solver->solve(m_blocks[0], m_x, options));
    } else if (blocks > 1) {
        m_reports = solver->solveBatch(std::span<const lcp::LcpProblem>(m_blocks.data(), blocks),
                                       m_x, options);
    }
    double uploadMs = 0.0;  // a batch's reports share one upload: the largest is the batch's
    for (int k = 0; k < static_cast<int>(m_reports.size()); ++k) {
        account(m_reports[k], m_blocks[k].n);
        uploadMs = std::max(uploadMs, m_reports[k].uploadMs);
    }
    m_stats.lcpUploadMs += uploadMs;
    m_stats.islands = std::max(m_stats.islands, blocks);
    m_stats.lcpN = std::max(m_stats.lcpN, 3 * nc);
    m_stats.iterationsMean =
        blocks > 0 ? static_cast<float>(itSum) / static_cast<float>(blocks) : 0.0f;
    m_stats.solveMs += sw.elapsedMs();
}

void World::applyMatrixFreeImpulses(int k, std::span<const int> ids, std::span<const float> x) {
    // The velocity changes W J^T x by body slot, through the operator's gather (its K is the
    // rows' M^-1 J^T), in fixed chunks of bodies: each body once, on any thread.
    const lcp::RowOperator& op = m_blocks[k].op;
    const std::vector<int>& slots = m_blockBodies[static_cast<std::size_t>(k)];
    constexpr std::size_t kU = lcp::RowOperator::kBodyFloats;
    m_impulseU.resize(kU * static_cast<std::size_t>(op.bodies()));
    // In contact form the gather reads the contacts' impulses P = sum_k x_k d_k.
    const float* impulses = op.impulsesOf(x.data(), m_impulseP, m_ex.get());
    exec::forChunks(
        m_ex.get(), exec::chunkCount(op.bodies(), kIntegrateChunkBodies),
        [&](std::ptrdiff_t chunk) {
            const auto first = static_cast<int>(chunk * kIntegrateChunkBodies);
            const int last = std::min(op.bodies(), first + static_cast<int>(kIntegrateChunkBodies));
            op.gatherBodies(x.data(), m_impulseU.data(), first, last, impulses);
            for (int slot = first; slot < last; ++slot) {
                const float* u = m_impulseU.data() + kU * static_cast<std::size_t>(slot);
                Body& b = m_bodies[static_cast<std::size_t>(slots[static_cast<std::size_t>(slot)])];
                b.linearVelocity += Vec3{u[0], u[1], u[2]};
                b.angularVelocity += Vec3{u[3], u[4], u[5]};
            }
        },
        static_cast<std::ptrdiff_t>(op.macs() / 2));
    // The impulses back into their contacts (the next step's warm start), in fixed chunks.
    const auto count = static_cast<std::ptrdiff_t>(ids.size());
    exec::forChunks(
        m_ex.get(), exec::chunkCount(count, kImpulseChunkContacts),
        [&](std::ptrdiff_t chunk) {
            const auto first = static_cast<std::size_t>(chunk * kImpulseChunkContacts);
            const std::size_t last =
                std::min(ids.size(), first + static_cast<std::size_t>(kImpulseChunkContacts));
            for (std::size_t c = first; c < last; ++c) {
                for (int r = 0; r < 3; ++r) {
                    m_contacts[static_cast<std::size_t>(ids[c])].impulse[r] =
                        x[3 * c + static_cast<std::size_t>(r)];
                }
            }
        },
        4 * count);
}

void World::integrate(float h) {
    for (Body& b : m_bodies) {
        if (!b.isStatic() && !b.asleep) {
            b.linearVelocity += m_params.gravity * h;
        }
    }
    const bool shock = m_params.shockSweeps > 0;
    if (shock) {
        markPosed();
    }
    for (int k = 0; k + 1 < static_cast<int>(m_blockStart.size()); ++k) {
        const int begin = m_blockStart[k];
        const int count = m_blockStart[k + 1] - begin;
        const std::span<const int> ids = std::span<const int>(m_blockIds).subspan(begin, count);
        const std::span<const float> x = std::span<const float>(m_x).subspan(3 * begin, 3 * count);
        if (k < m_blockCount && m_blocks[k].matrixFree()) {
            applyMatrixFreeImpulses(k, ids, x);
        } else {
            applyImpulses(m_bodies, m_contacts, m_jac, ids, x);
        }
    }
    m_cache.store(m_contacts, m_ex.get());  // the LCP's impulses: not the shock pass's
    if (shock) {
        const float g = length(m_params.gravity);
        ShockParams sp;
        sp.sweeps = m_params.shockSweeps;
        sp.friction = m_params.friction;
        sp.up = g > 0.0f ? m_params.gravity * (-1.0f / g) : Vec3{0.0f, 1.0f, 0.0f};
        // Resting: slower than half a step of free fall (0.08 m/s at 60 Hz), far above what a
        // standing wall's bricks move (~1e-5 m/s), below anything falling or thrown.
        sp.restingSpeed = 0.5f * g * h;
        sp.tolerance = kShockTolerance;
        m_stats.shockBodies +=
            m_shock.apply(m_bodies, m_contacts, m_shockBias, m_posed, sp, m_ex.get());
        m_stats.shockSweeps += m_shock.sweepsDone();
    }
    // Each body on its own, in fixed chunks of bodies: the same bits on any thread count.
    const auto bodyCount = static_cast<std::ptrdiff_t>(m_bodies.size());
    const auto advance = [&](std::ptrdiff_t chunk) {
        int nonFinite = 0;
        const std::ptrdiff_t last = std::min(bodyCount, (chunk + 1) * kIntegrateChunkBodies);
        for (auto i = static_cast<std::size_t>(chunk * kIntegrateChunkBodies);
             i < static_cast<std::size_t>(last); ++i) {
            Body& b = m_bodies[i];
            if (b.isStatic() || b.asleep) {
                continue;
            }
            // The pose the step started from (nothing before this loop moves a body): what a
            // body that turns non-finite is put back to.
            const Vec3 startPosition = b.position;
            const Quat startOrientation = b.orientation;
            b.position += b.linearVelocity * h;
            b.orientation = rigid::integrate(b.orientation, b.angularVelocity, h);
            b.updateDerived();
            const bool finite =
                std::isfinite(b.position.x) && std::isfinite(b.position.y) &&
                std::isfinite(b.position.z) && std::isfinite(b.orientation.w) &&
                std::isfinite(b.linearVelocity.x + b.linearVelocity.y + b.linearVelocity.z +
                              b.angularVelocity.x + b.angularVelocity.y + b.angularVelocity.z);
            if (!finite) {
                // Recover like MuJoCo: report it and put the body back at rest where it was.
                b.position = startPosition;
                b.orientation = startOrientation;
                b.updateDerived();
                b.linearVelocity = {};
                b.angularVelocity = {};
                ++nonFinite;
            }
        }
        return nonFinite;
    };
    // ~100 operations a body (a quaternion step and the world inertia).
    m_stats.nonFiniteBodies += m_ex->reduce(exec::chunkCount(bodyCount, kIntegrateChunkBodies), 0,
                                            advance, std::plus<int>{}, 100 * bodyCount);
}

void World::markPosed() {
    // m_shockBias was written by the assembly (setRowBiasOutput); the shock pass also needs to
    // know which contacts were posed this step.
    m_posed.assign(m_contacts.size(), 0);
    for (int at = 0; at < m_blockStart.back(); ++at) {
        m_posed[static_cast<std::size_t>(m_blockIds[static_cast<std::size_t>(at)])] = 1;
    }
    m_shockBias.resize(3 * m_contacts.size(), 0.0f);  // no block posed: nothing reads it
}

std::uint64_t World::stateHash() const {
    StateHash h;
    for (const Body& b : m_bodies) {
        h.add(&b.position, sizeof b.position);
        h.add(&b.orientation, sizeof b.orientation);
        h.add(&b.linearVelocity, sizeof b.linearVelocity);
        h.add(&b.angularVelocity, sizeof b.angularVelocity);
    }
    return h.value();
}

std::string World::stateHashHex() const {
    const std::uint64_t v = stateHash();
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

}  // namespace ww::rigid
