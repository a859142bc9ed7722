// The rigid-body world: bodies, persistent contacts and the per-step scratch, stepped with a
// velocity-level dense LCP per step (Moravanszky, "Dense Matrix Algebra on the GPU", the
// collapsing wall of section 5):
//   1. collide:   sort-and-sweep pairs, narrow-phase contact points, warm start by feature
//   2. assemble:  A = J M^-1 J^T + cfm I,  b = J (v + dt g) + bias   (assembly.h), either as
//                 ONE dense matrix for the whole scene or one block per island (islands.h)
//   3. solve:     projected Jacobi (CPU or GPU) or projected Gauss-Seidel (CPU) for impulses x
//   4. integrate: v <- v + dt g + M^-1 J^T x;  p <- p + dt v;  q <- normalize(q + dt/2 w q)
// (semi-implicit Euler), optionally in `substeps` equal sub-steps per step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/lcp/lanczos.h"
#include "solver/lcp/lcp_solver.h"
#include "solver/rigid/assembly.h"
#include "solver/rigid/broad_phase.h"
#include "solver/rigid/contacts.h"
#include "solver/rigid/islands.h"
#include "solver/rigid/narrow_phase.h"
#include "solver/rigid/shock.h"

namespace ww::rigid {

/// How the contact LCP of a step is posed: one dense matrix (the paper's 2 s/frame case) or
/// one dense block per island, solved as a batch.
enum class LcpMode { kDense, kIslands };
const char* toString(LcpMode m);
std::optional<LcpMode> parseLcpMode(std::string_view s);

/// How each block's matrix is held: dense n x n (the paper's form; n^2 memory and work per
/// iteration), matrix-free (A x = J (M^-1 J^T x) through per-body sums; O(n)), or chosen per
/// block by size (auto: matrix-free from kMatrixFreeMinRows rows in islands mode, dense in
/// dense mode, the paper's setting).
enum class LcpOperator { kDense, kMatrixFree, kAuto };
const char* toString(LcpOperator o);
std::optional<LcpOperator> parseLcpOperator(std::string_view s);
/// The auto crossover: blocks of at least this many rows are posed matrix-free (measured:
/// docs/rigid.md, "Matrix-free islands").
inline constexpr int kMatrixFreeMinRows = 256;
/// Adaptive omega (WorldParams::adaptiveOmega) takes lambda_max as this many times its
/// kLambdaSteps-step Lanczos estimate, which approaches it from below (per matrix-free block
/// lcp::lanczosLambdaMax, over the dense blocks' rows together estimateLambdaMax; the largest):
/// on the 20 x 20 wall's island 12 steps reach 0.97-0.98 of the 200-step value (docs/rigid.md,
/// "lambda_max by Lanczos"); 20 power iterations would need 1.1.
inline constexpr float kLambdaEstimateMargin = 1.03f;
/// Lanczos steps of that estimate, one product with A each: 12 reach 0.93 of lambda_max on
/// the worst of 5000 random scenes, where 20 power iterations reach 0.80.
inline constexpr int kLambdaSteps = 12;
/// A matrix-free block's estimate starts from the Ritz vector of its bodies' last one (plus the
/// hash start: lcp::LanczosOptions::startMix) and stops after at least kLambdaMinSteps steps
/// once a step raised it by at most kLambdaStopRise of it; at most kLambdaSteps.
inline constexpr int kLambdaMinSteps = 4;
inline constexpr double kLambdaStopRise = 0.002;
/// A matrix-free block whose contacts all kept their manifolds (reuseManifold: no new contact,
/// and no pair moved by more than the reuse tolerances since the step that made its points,
/// which estimated in full) takes no step: it reuses the last full estimate of its bodies (the
/// largest, where they came from different blocks), which differs from this step's value by
/// what the bodies moved within those tolerances. Rows that went only lower lambda_max. Every
/// kLambdaRefreshSteps-th step (by step count) estimates every block in full, so that the
/// estimate follows the slow changes the tolerances let through (docs/rigid.md, "Step cost").
inline constexpr int kLambdaRefreshSteps = 8;
/// The dense blocks' Lanczos estimate is skipped where their Gershgorin bound times
/// (1 + kDenseBoundRoom) is below the matrix-free blocks' estimate: the room covers the rounding
/// between the assembled matrix the bound reads and the Jacobians the estimate multiplies by.
inline constexpr float kDenseBoundRoom = 1e-3f;

/// The tuned solver defaults (docs/rigid.md explains how they were found).
lcp::LcpOptions defaultWallLcpOptions();
/// The wall's default relaxation of each method: Jacobi 0.3 (capped per step by
/// adaptiveOmega), Gauss-Seidel lcp::kGaussSeidelOmega. Switching the method switches omega
/// to this unless the user chose one.
float defaultWallOmega(lcp::LcpMethod method);

/// Parameters: read-only during a step, may be changed between steps.
struct WorldParams {
    float dtSeconds = 1.0f / 60.0f;
    int substeps = 1;
    Vec3 gravity{0.0f, -9.81f, 0.0f};  ///< m/s^2
    float friction = 0.6f;             ///< mu, for every contact
    float erp = 0.2f;                  ///< Baumgarte factor per (sub)step
    float slopM = 0.001f;              ///< penetration left uncorrected, m
    float maxCorrectionSpeed = 2.0f;   ///< m/s
    float restitution = 0.0f;
    float restitutionThreshold = 1.0f;  ///< m/s
    float cfm = 0.0f;  ///< diagonal regularization of A (s/kg; see assembly.h, docs/rigid.md)
    bool warmStart = true;
    float warmStartFactor = 1.0f;  ///< fraction of last step's impulses used as the guess
    /// Warm start a moving pair's points (a body faster than the resting speed, 0.5 |g| dt)
    /// from last step's impulses too. Off, they start as cold contacts do, from the
    /// resting-load guess (restingLoadGuess; side contacts from zero): a collapse's solve then
    /// ends ~25 % closer to solved at its cap, and its pile settles with more contacts at rest,
    /// which the shock pass sweeps: 10-25 % more time a collapse step, so on by default
    /// (docs/rigid.md, "A moving pair's warm start").
    bool warmStartMovingPairs = true;
    NarrowPhaseParams collision;
    LcpMode mode = LcpMode::kIslands;
    LcpOperator lcpOperator = LcpOperator::kAuto;
    /// Jacobi, omega 0.3 (defaultWallOmega; an upper bound: see adaptiveOmega), at most 30
    /// iterations (a resting wall's warm start meets the tolerance; with shockSweeps the
    /// resting walls stand at 10, and 30 is for piles in motion: docs/rigid.md, "Shock
    /// propagation"), natural-map tolerance 1e-4 N s, checked every 10 iterations
    /// (docs/rigid.md, "The tolerance and the shock pass's sweeps").
    /// maxIterations 0 = 2n (the paper's count; no cold-start or budget rule).
    lcp::LcpOptions lcp = defaultWallLcpOptions();
    /// Jacobi only: caps omega per step at omegaSafety * 2 / lambda, where lambda estimates
    /// lambda_max(D^-1 A) over all contacts: Lanczos steps on J M^-1 J^T applied through the
    /// Jacobians (O(rows) each, no dense matrix; 12, or 4-12 on a matrix-free block started
    /// from its bodies' last Ritz vector: kLambdaMinSteps), times 1.03, and never more than
    /// the Gershgorin bound max_i sum_j |A_ij| / A_ii. Jacobi converges for
    /// omega < 2 / lambda_max, so piles with many contacts per body, whose lambda_max is
    /// large, cannot make it diverge, while stacks get the largest safe omega (docs/rigid.md).
    bool adaptiveOmega = true;
    /// Jacobi only. 0: every row steps omega / A_ii with the global omega above. In (0, 2):
    /// local step scales instead: every block is posed matrix-free and row i steps
    /// localStepOmega / P_ii, P_ii summing per-body bounds on the row's bodies' parts of A
    /// (lcp::RowOperator::useLocalStepDiagonals), so P >= A and no lambda_max estimate is
    /// made; omega and adaptiveOmega are not used. A body with few contacts (debris, a
    /// landing brick) then steps as far as its own contacts allow instead of as far as the
    /// block's most crowded body does (docs/rigid.md, "Local step scales").
    float localStepOmega = 0.0f;
    /// Iteration cap for a cold step, when more than half of all contact points are between
    /// resting bodies and were not warm started (the first step of a scene, bodies put down on
    /// a pile; not the moving pairs of a collapse, which are made afresh every step): a cold
    /// Jacobi solve needs many more iterations than a warm one, and a tall stack that is not
    /// solved well on its first step keeps rocking (docs/rigid.md). It may exceed
    /// iterationBudgetMacs. 0 = always use lcp.maxIterations.
    int coldStartIterations = 200;
    /// Cold contacts (not warm started) start from the impulse that holds the bodies above
    /// them at rest instead of zero (guessRestingImpulses in contacts.h): what lets a 20-high
    /// wall stand from its exactly-touching start with Jacobi.
    bool restingLoadGuess = true;
    /// Shock propagation (shock.h): after the LCP, each body's contacts with what it rests on
    /// are solved again, from the ground up, with the body below held fixed, by this many
    /// projected Gauss-Seidel sweeps over the body's own rows; 0 = off. What lets tall touching
    /// walls stand with tens of Jacobi iterations a step instead of hundreds (docs/rigid.md,
    /// "Shock propagation"): at 6 sweeps and more a 20 x 20 wall stands 60 s at 10-50
    /// iterations, at 4 it leans, at 2 it falls.
    int shockSweeps = 10;
    /// Resting box-box and box-plane pairs keep their contact manifold while their relative
    /// pose holds (contacts.h, reuseManifold); false makes every pair afresh each step.
    bool keepManifolds = true;
    /// Keep every matrix-free block's J and K rows (lcp::RowOperator::hasRows) for a caller
    /// that reads them from lcpBlocks() (Gauss-Seidel, the GPU solver, applyRowOperatorDouble).
    /// False (the default): with the CPU's Jacobi solver a block of the contact form is built
    /// without them (RowOperator::finishContactForm: the same products, bit for bit, without
    /// writing and reading back 288 bytes a contact); with any other solver they are kept.
    bool operatorRows = false;
    /// Work budget: the iteration cap is lowered so that iterations * sum_k c_k stays below
    /// this, c_k the multiply-adds of one product with block k's A (n_k^2 dense, 24 n_k
    /// matrix-free: LcpProblem::productMacs); at least 10 iterations are kept. 0 = no budget
    /// (the default); never applied to a 2n count. Off by default because it trades depth for
    /// time where a pile is biggest: at 10^8 a 100 x 100 or 200 x 50 wall's collapse ran 10-11
    /// iterations a step and bricks sank 0.47-0.59 m into each other, past --check's bound,
    /// where at the cap of 50 both run their 300-step collapse within it (docs/rigid.md, "Tall
    /// walls"). The demo keeps its window responsive with a time budget instead
    /// (WallDemoScene::setSolveBudgetMs).
    double iterationBudgetMacs = 0.0;
    float omegaSafety = 0.85f;  ///< see adaptiveOmega
    /// Sleeping (off by default): when every body of an island has moved slower than
    /// sleepLinearSpeed and sleepAngularSpeed for sleepSeconds, the island goes to sleep: its
    /// bodies keep their pose with zero velocity, and their contacts are neither solved nor
    /// integrated. An island wakes when an awake body touches one of its bodies (it then
    /// joins that body's island), when one of its bodies is changed through body(i), or when
    /// any body is removed. A resting stack then stops drifting; without sleeping a 20-high
    /// wall slowly buckles (docs/rigid.md).
    bool sleep = false;
    float sleepLinearSpeed = 0.02f;   ///< m/s
    float sleepAngularSpeed = 0.05f;  ///< rad/s
    float sleepSeconds = 0.5f;
};

/// Diagnostics of one step (sums over substeps for times, maxima for sizes).
struct StepStats {
    double collideMs = 0, assembleMs = 0, solveMs = 0, integrateMs = 0, totalMs = 0;
    int bodies = 0;
    int pairs = 0;  ///< broad-phase candidate pairs
    int contacts = 0;
    int warmStarted = 0;       ///< contacts that matched last step's
    int reusedContacts = 0;    ///< of which kept by their pair's manifold (reuseManifold)
    int islands = 0;           ///< LCP blocks solved (1 in dense mode)
    int lcpN = 0;              ///< rows of all blocks together
    int lcpNMax = 0;           ///< rows of the largest block
    int matrixFreeBlocks = 0;  ///< blocks posed matrix-free (LcpOperator)
    double lcpMacs = 0;        ///< multiply-adds of one product with every block's A
    /// GPU backend: ms of the solve spent packing and uploading the blocks (part of solveMs)
    double lcpUploadMs = 0;
    float iterationsMean = 0;  ///< over blocks
    int iterationsMax = 0;
    int iterationCap = 0;  ///< after the cold-start and budget rules (0 = 2n)
    /// The cap iterationBudgetMacs lowered a block's count to this step, 0 when it lowered
    /// none (what a penetration reported under the budget names: WallScene::checkInvariants).
    int budgetCap = 0;
    float residualMax = 0;  ///< natural-map residual, N s
    float omega = 0;        ///< relaxation used (after the adaptive cap)
    /// The estimate of lambda_max(D^-1 A) that set omega; with local step scales
    /// (localStepOmega), the largest per-body bound lambda_b.
    float lambdaMax = 0;
    int lambdaSteps = 0;  ///< Lanczos steps of that estimate, over the matrix-free blocks
    int divergedBlocks = 0;
    /// Why a block's solve was rejected or failed (the first such block's LcpReport::error:
    /// a problem the solver refused, a GPU buffer or dispatch error); empty when every block
    /// was solved, also when one diverged numerically (omega too large).
    std::string lcpError;
    /// The backend cannot run lcp.method (Gauss-Seidel on the GPU): this step's LCP was
    /// solved by the CPU solver instead.
    bool solvedOnCpuFallback = false;
    int nonFiniteBodies = 0;  ///< bodies reset because their state became NaN/inf
    /// Shock propagation's sweeps, summed over the bodies it corrected (each stops early at
    /// its tolerance: ShockParams::tolerance), and the number of those bodies.
    std::int64_t shockSweeps = 0;
    int shockBodies = 0;
    float maxPenetration = 0;  ///< m, before this step's correction
    float maxSpeed = 0;        ///< m/s, over non-static bodies after the step
    int sleepingBodies = 0;    ///< after the step (WorldParams::sleep)
    /// With lcp.recordHistory: residual per iteration of the largest block's last solve
    /// (the panel's plot); empty otherwise.
    std::vector<float> residualHistory;
};

class World {
  public:
    /// The CPU LCP solver runs on `executor` (results do not depend on its thread count).
    explicit World(std::shared_ptr<const exec::Executor> executor, WorldParams params = {});
    ~World();
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;

    /// Adds a body; returns its index. Do this while building a scene.
    int addBody(const BodyDesc& desc);
    /// Removes body i (indices above i shift down by one; cached contacts are remapped).
    void removeBody(int i);
    /// Pre-sizes the scratch for about this many bodies and contacts.
    void reserve(int bodies, int contacts);

    /// Advances by params().dtSeconds.
    const StepStats& step();
    const StepStats& lastStats() const { return m_stats; }
    long stepCount() const { return m_steps; }

    /// Switches the LCP backend, keeping the state. kGpu needs a current GpuContext and the
    /// shader library; on failure the backend is unchanged and the error says why.
    Status setBackend(Backend backend, const gpu::ShaderLibrary* shaders = nullptr);
    Backend backend() const { return m_backend; }

    WorldParams& params() { return m_params; }
    const WorldParams& params() const { return m_params; }

    const std::vector<Body>& bodies() const { return m_bodies; }
    /// A body to change (its velocity, say): it is woken, as if touched.
    Body& body(int i) {
        wake(i);
        return m_bodies[i];
    }
    /// Wakes body i; the rest of its island wakes with it on the next step.
    void wake(int i);
    int bodyCount() const { return static_cast<int>(m_bodies.size()); }
    /// The LCP blocks the last (sub)step solved (one per island, or one in dense mode), as
    /// posed before the solve.
    std::span<const lcp::LcpProblem> lcpBlocks() const {
        return {m_blocks.data(), static_cast<std::size_t>(m_blockCount)};
    }
    /// This step's contacts with their impulses (N s).
    const std::vector<Contact>& contacts() const { return m_contacts; }
    /// The contacts (indices into contacts()) of block k of lcpBlocks(), in row order. Empty
    /// after removeBody (which drops the contacts) until the next step.
    std::span<const int> blockContacts(int k) const {
        if (m_contacts.empty()) {
            return {};
        }
        return std::span<const int>(m_blockIds)
            .subspan(static_cast<std::size_t>(m_blockStart[k]),
                     static_cast<std::size_t>(m_blockStart[k + 1] - m_blockStart[k]));
    }
    /// The solver's report (status, iterations, residual) of each block of lcpBlocks().
    std::span<const lcp::LcpReport> blockReports() const { return m_reports; }

    /// Everything later steps depend on: the bodies (with their sleep state), the warm-start
    /// cache, the step count and the lambda_max estimate's start. Restoring it (with the same
    /// params) and stepping repeats the saved run bit for bit, on either backend.
    struct State {
        std::vector<Body> bodies;
        ContactCache cache;
        long steps = 0;
        std::vector<float> lambdaModes;   ///< see m_lambdaModes
        std::vector<float> lambdaOfBody;  ///< see m_lambdaOfBody
        std::size_t bytes() const {
            return bodies.size() * sizeof(Body) + cache.bytes() +
                   (lambdaModes.size() + lambdaOfBody.size()) * sizeof(float);
        }
    };
    State saveState() const { return {m_bodies, m_cache, m_steps, m_lambdaModes, m_lambdaOfBody}; }
    /// Replaces the state; this step's contacts and LCP blocks are forgotten (they described
    /// the state being replaced).
    void restoreState(const State& state);

    /// 64-bit hash of every body's position, orientation and velocities.
    std::uint64_t stateHash() const;
    std::string stateHashHex() const;

  private:
    void substep(float h);
    void collide(float h);
    void assembleAndSolve(float h);
    /// lambda_max(D^-1 A) over this substep's blocks (A is block diagonal: the largest block
    /// value), each a Lanczos estimate from below: a matrix-free block through its operator's
    /// kernels in body space, from its bodies' m_lambdaModes (kLambdaMinSteps to kLambdaSteps
    /// steps), the dense blocks' rows together through their Jacobians (kLambdaSteps), unless
    /// denseBound, the dense blocks' Gershgorin bound, shows that it cannot be the largest.
    float estimateBlocksLambdaMax(float denseBound);
    void integrate(float h);
    /// applyImpulses for matrix-free block k (contacts ids, impulses x) through its operator's
    /// gather, in parallel over its bodies.
    void applyMatrixFreeImpulses(int k, std::span<const int> ids, std::span<const float> x);
    /// m_posed for the shock pass (m_shockBias is written by the assembly).
    void markPosed();
    /// Sleeping: wakes every island with an awake body, drops sleeping islands from the
    /// contacts' LCP (their contacts keep their impulses for the warm start).
    void wakeTouchedIslands();
    void updateSleep(float h);

    WorldParams m_params;
    Backend m_backend = Backend::kCpu;
    std::shared_ptr<const exec::Executor> m_ex;
    std::unique_ptr<lcp::LcpSolver> m_solver;
    std::unique_ptr<lcp::LcpSolver> m_cpuFallback;  ///< for methods m_solver cannot run
    std::vector<Body> m_bodies;
    long m_steps = 0;
    StepStats m_stats;

    BroadPhase m_broad;
    std::vector<std::pair<int, int>> m_pairs;
    /// The narrow phase's scratch: contact points per executor thread, and per chunk of pairs
    /// its contacts (joined into m_contacts in chunk order), deepest penetration and warm
    /// starts.
    std::vector<std::vector<ContactPoint>> m_points;
    std::vector<std::vector<Contact>> m_chunkContacts;
    std::vector<float> m_chunkPenetration;
    std::vector<int> m_chunkWarm;
    std::vector<int> m_chunkReused;
    std::vector<int> m_chunkRestingPoints;  ///< per narrow-phase chunk: points of resting pairs
    std::vector<int> m_chunkRestingCold;    ///< ... of which not warm started
    /// This step's contact points between two resting bodies, and how many of them were not
    /// warm started: in a cold step (WorldParams::coldStartIterations) those are most points.
    int m_restingPoints = 0;
    int m_restingCold = 0;
    std::vector<std::size_t> m_chunkAt;  ///< where each chunk's contacts start in m_contacts
    std::vector<Contact> m_contacts;
    ContactCache m_cache;
    IslandBuilder m_islandBuilder;
    IslandSet m_islands;
    std::vector<RowJacobian> m_jac;   ///< the dense blocks' contacts' rows (3 id + r)
    std::vector<int> m_denseIds;      ///< the contacts of the dense blocks
    std::vector<char> m_bodyResting;  ///< collide: per body, slower than the resting speed
    std::vector<float> m_bodyMargin;  ///< collide: per body, its margin as a pair's A, as its B
    ContactAssembler m_assembler;
    std::vector<lcp::LcpProblem> m_blocks;  ///< the first m_blockCount are this substep's
    int m_blockCount = 0;
    std::vector<int> m_blockIds;    ///< contact ids in block order
    std::vector<int> m_blockStart;  ///< offsets of each block into m_blockIds
    std::vector<float> m_x;
    std::vector<lcp::LcpReport> m_reports;  ///< one per block of the last (sub)step
    JacobianLanczosScratch m_denseLanczos;  ///< lambda_max of the dense blocks' rows
    lcp::LanczosScratch m_lanczos;          ///< lambda_max of each matrix-free block
    /// Per body (kBodyFloats each): its part of the Ritz vector of the last lambda_max estimate
    /// of the matrix-free block it was in (0 when none): the next estimate's start.
    std::vector<float> m_lambdaModes;
    /// Per body: the last full lambda_max estimate of the matrix-free block it was in (0 when
    /// none): what a settled block takes instead of a new estimate (kLambdaRefreshSteps).
    std::vector<float> m_lambdaOfBody;
    std::vector<std::vector<int>> m_blockBodies;  ///< per matrix-free block: its slots' bodies
    std::vector<float> m_lambdaStart;             ///< one block's start, by slot
    std::vector<float> m_impulseU;                ///< applyMatrixFreeImpulses's body sums
    std::vector<float> m_impulseP;         ///< and its contacts' impulses (contact-form operators)
    std::vector<Contact> m_denseContacts;  ///< the dense blocks' contacts, for m_denseLanczos
    std::vector<RowJacobian> m_denseJac;   ///< and their rows
    RestingLoadScratch m_restingLoad;
    ShockPropagation m_shock;
    std::vector<float> m_shockBias;    ///< per contact row: its velocity bias (assembly.h)
    std::vector<char> m_posed;         ///< per contact: solved this substep
    IslandSet m_sleepIslands;          ///< all islands of this substep, sleeping ones too
    std::vector<char> m_contactAwake;  ///< per contact: in an awake island
};

}  // namespace ww::rigid
