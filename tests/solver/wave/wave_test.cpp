// The wave model: kernels vs scalar references, stability, energy, wave speed, CPU vs GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "solver/wave/wave_kernels.h"
#include "solver/wave/wave_model.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"
#include "support/seed.h"

namespace ww::wave {
namespace {

std::uint64_t freshSeed() {
    return ww::test::freshSeed64();
}

std::vector<float> randomField(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) {
        x = d(rng);
    }
    return v;
}

float maxAbs(const std::vector<float>& v) {
    float m = 0.0f;
    for (float x : v) {
        m = std::max(m, std::isfinite(x) ? std::fabs(x) : INFINITY);
    }
    return m;
}

WaveParams smallParams(int n, float dtRatio) {
    WaveParams p;
    p.nx = n;
    p.ny = n;
    p.poolSizeM = 4.0f;
    p.waveSpeed = 1.0f;
    p.dtRatio = dtRatio;
    p.cg.tolerance = 1e-6f;
    return p;
}

const gpu::ShaderLibrary& library() {
    static gpu::ShaderLibrary lib;
    return lib;
}

constexpr cg::Boundary kBoundaries[] = {cg::Boundary::kNeumann, cg::Boundary::kDirichlet,
                                        cg::Boundary::kMixed};

GridCoeffs coeffs(int nx, int ny, float a, float g, cg::Boundary bc) {
    GridCoeffs k{nx, ny, a, g};
    setBoundary(k, bc);
    return k;
}

// Vectorized kernels vs the double references: rhs entries combine ~12 terms of size
// <= (2 + 8a)|u| with |u| <= 1, so float rounding stays below 1e-5 for a <= 2.
TEST(WaveKernels, FastPathsMatchReferences) {
    const std::uint64_t seed = freshSeed();
    for (cg::Boundary bc : kBoundaries) {
        for (int n : {9, 300}) {  // 300^2 runs on both cores
            const GridCoeffs k = coeffs(n, n - 3, 0.7f, 0.05f, bc);
            const std::size_t cells = static_cast<std::size_t>(k.nx) * k.ny;
            const auto u = randomField(cells, seed);
            const auto up = randomField(cells, seed + 1);
            std::vector<float> rhs(cells), guess(cells), ref(cells), refGuess(cells);
            cnRhs(*test::executor(), k, u.data(), up.data(), rhs.data(), guess.data(), true);
            cnRhsReference(k, u.data(), up.data(), ref.data(), refGuess.data());
            for (std::size_t c = 0; c < cells; ++c) {
                ASSERT_NEAR(rhs[c], ref[c], 1e-5f)
                    << c << " " << cg::boundaryName(bc) << " seed " << seed;
                // The guess adds ~10 more terms of the same sizes.
                ASSERT_NEAR(guess[c], refGuess[c], 2e-5f)
                    << c << " " << cg::boundaryName(bc) << " seed " << seed;
            }
            cnRhs(*test::executor(), k, u.data(), up.data(), rhs.data(), guess.data(), false);
            ASSERT_TRUE(std::all_of(guess.begin(), guess.end(), [](float v) { return v == 0.0f; }));
            explicitStep(*test::executor(), k, u.data(), up.data(), rhs.data());
            explicitStepReference(k, u.data(), up.data(), ref.data());
            for (std::size_t c = 0; c < cells; ++c) {
                ASSERT_NEAR(rhs[c], ref[c], 1e-5f)
                    << c << " " << cg::boundaryName(bc) << " seed " << seed;
            }
        }
    }
}

// The energy's fast path (rows on the executor, interiors vectorized) against the cell-by-cell
// reference, both schemes and boundaries, on random fields. Both sum in double, in different
// orders: the relative difference of sums of ~1e5 terms of one sign is ~1e-16 sqrt(n); the
// leapfrog form's terms have both signs, so the bound is relative to the CN energy of the same
// fields (positive, of the terms' size).
TEST(WaveKernels, EnergyMatchesTheReference) {
    const std::uint64_t seed = freshSeed();
    for (cg::Boundary bc : kBoundaries) {
        for (int n : {5, 300}) {
            const GridCoeffs k = coeffs(n, n - 3, 0.7f, 0.05f, bc);
            const std::size_t cells = static_cast<std::size_t>(k.nx) * k.ny;
            const auto u = randomField(cells, seed);
            const auto up = randomField(cells, seed + 1);
            const double scale = energyReference(k, true, 0.01f, 1.3f, 0.02f, u.data(), up.data());
            for (const bool cn : {true, false}) {
                const double ref = energyReference(k, cn, 0.01f, 1.3f, 0.02f, u.data(), up.data());
                const double fast =
                    energy(*test::executor(), k, cn, 0.01f, 1.3f, 0.02f, u.data(), up.data());
                EXPECT_NEAR(fast, ref, 1e-12 * scale)
                    << cg::boundaryName(bc) << " n " << n << " cn " << cn << " seed " << seed;
            }
        }
    }
}

// The 5-point Laplacian L (no 1/h^2) of a 3x3 grid, cells k = 3 j + i, written by hand
// (independent of the production stencils): Neumann drops each missing neighbour (diagonal
// -2 at corners, -3 on edges, -4 at the centre), Dirichlet keeps -4 everywhere (ghosts 0),
// mixed drops only the missing y neighbours (-3 in the rows j = 0 and 2, -4 in j = 1).
constexpr double kLapNeumann3x3[9][9] = {
    {-2, 1, 0, 1, 0, 0, 0, 0, 0}, {1, -3, 1, 0, 1, 0, 0, 0, 0}, {0, 1, -2, 0, 0, 1, 0, 0, 0},
    {1, 0, 0, -3, 1, 0, 1, 0, 0}, {0, 1, 0, 1, -4, 1, 0, 1, 0}, {0, 0, 1, 0, 1, -3, 0, 0, 1},
    {0, 0, 0, 1, 0, 0, -2, 1, 0}, {0, 0, 0, 0, 1, 0, 1, -3, 1}, {0, 0, 0, 0, 0, 1, 0, 1, -2}};
constexpr double kLapDirichlet3x3[9][9] = {
    {-4, 1, 0, 1, 0, 0, 0, 0, 0}, {1, -4, 1, 0, 1, 0, 0, 0, 0}, {0, 1, -4, 0, 0, 1, 0, 0, 0},
    {1, 0, 0, -4, 1, 0, 1, 0, 0}, {0, 1, 0, 1, -4, 1, 0, 1, 0}, {0, 0, 1, 0, 1, -4, 0, 0, 1},
    {0, 0, 0, 1, 0, 0, -4, 1, 0}, {0, 0, 0, 0, 1, 0, 1, -4, 1}, {0, 0, 0, 0, 0, 1, 0, 1, -4}};
constexpr double kLapMixed3x3[9][9] = {
    {-3, 1, 0, 1, 0, 0, 0, 0, 0}, {1, -3, 1, 0, 1, 0, 0, 0, 0}, {0, 1, -3, 0, 0, 1, 0, 0, 0},
    {1, 0, 0, -4, 1, 0, 1, 0, 0}, {0, 1, 0, 1, -4, 1, 0, 1, 0}, {0, 0, 1, 0, 1, -4, 0, 0, 1},
    {0, 0, 0, 1, 0, 0, -3, 1, 0}, {0, 0, 0, 0, 1, 0, 1, -3, 1}, {0, 0, 0, 0, 0, 1, 0, 1, -3}};

// cnRhs, its scalar reference and the explicit step on a 3x3 grid against the schemes'
// definitions with the hand-written L: rhs = [2u - (1 - g) uPrev + a L (2u + uPrev)] / (1 + g)
// and u+ = [2u - (1 - g) uPrev + 4a L u] / (1 + g). Each entry sums ~15 float terms of size
// <= 10 |u| with |u| <= 1: 1e-5 covers float rounding.
TEST(WaveKernels, RhsAndExplicitStepEqualHandWritten3x3) {
    const std::uint64_t seed = freshSeed();
    for (cg::Boundary bc : kBoundaries) {
        const auto& lap = bc == cg::Boundary::kNeumann     ? kLapNeumann3x3
                          : bc == cg::Boundary::kDirichlet ? kLapDirichlet3x3
                                                           : kLapMixed3x3;
        const GridCoeffs k = coeffs(3, 3, 0.7f, 0.05f, bc);
        const auto u = randomField(9, seed);
        const auto up = randomField(9, seed + 1);
        std::vector<float> rhs(9), guess(9), ref(9), refGuess(9), next(9);
        cnRhs(*test::executor(), k, u.data(), up.data(), rhs.data(), guess.data(), true);
        cnRhsReference(k, u.data(), up.data(), ref.data(), refGuess.data());
        explicitStep(*test::executor(), k, u.data(), up.data(), next.data());
        const double alpha = k.a / (1.0 + k.g);
        for (int i = 0; i < 9; ++i) {
            double lw = 0.0;
            double lu = 0.0;
            for (int j = 0; j < 9; ++j) {
                lw += lap[i][j] * (2.0 * u[j] + up[j]);
                lu += lap[i][j] * u[j];
            }
            const double base = 2.0 * u[i] - (1.0 - k.g) * up[i];
            const double want = (base + k.a * lw) / (1.0 + k.g);
            const double wantNext = (base + 4.0 * k.a * lu) / (1.0 + k.g);
            // Two Jacobi sweeps of (I - alpha L) x = rhs from y = 2 u - uPrev, diagonal 1 + 4
            // alpha: the first's x0 at every cell, then the second's at cell i.
            const auto firstSweep = [&](int c) {
                double lc = 0.0;  // L (2 u - uPrev) at c
                double wc = 0.0;  // L (2 u + uPrev) at c
                for (int j = 0; j < 9; ++j) {
                    lc += lap[c][j] * (2.0 * u[j] - up[j]);
                    wc += lap[c][j] * (2.0 * u[j] + up[j]);
                }
                const double rhsC = (2.0 * u[c] - (1.0 - k.g) * up[c] + k.a * wc) / (1.0 + k.g);
                const double yc = 2.0 * u[c] - up[c];
                return yc + (rhsC - (yc - alpha * lc)) / (1.0 + 4.0 * alpha);
            };
            double lx0 = 0.0;
            for (int j = 0; j < 9; ++j) {
                lx0 += lap[i][j] * firstSweep(j);
            }
            const double x0 = firstSweep(i);
            const double wantGuess = x0 + (want - (x0 - alpha * lx0)) / (1.0 + 4.0 * alpha);
            EXPECT_NEAR(rhs[i], want, 1e-5) << i << " " << cg::boundaryName(bc) << " seed " << seed;
            EXPECT_NEAR(ref[i], want, 1e-5) << i << " " << cg::boundaryName(bc) << " seed " << seed;
            EXPECT_NEAR(guess[i], wantGuess, 2e-5)
                << i << " " << cg::boundaryName(bc) << " seed " << seed;
            EXPECT_NEAR(refGuess[i], wantGuess, 2e-5)
                << i << " " << cg::boundaryName(bc) << " seed " << seed;
            EXPECT_NEAR(next[i], wantNext, 1e-5)
                << i << " " << cg::boundaryName(bc) << " seed " << seed;
        }
    }
}

// The warm start is the extrapolation y = 2 u - uPrev after two Jacobi sweeps of the CN system
// (I - alpha L) x = rhs: its error against the exact solution x* is y's error times the square
// of the symmetric iteration matrix I - (I - alpha L) / (1 + 4 alpha), whose eigenvalues lie in
// [-rho, rho], rho = 4 alpha / (1 + 4 alpha). So ||guess - x*|| <= rho^2 ||y - x*|| for any
// fields; x* solved in double by a dense factorization. Rough random fields put error in every
// mode. Float rounding of the guess (~1e-6 a cell) is far below the margins.
TEST(WaveKernels, WarmStartSweepShrinksTheExtrapolationsError) {
    const std::uint64_t seed = freshSeed();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> coeff(0.05f, 2.5f);
    for (cg::Boundary bc : kBoundaries) {
        for (int trial = 0; trial < 3; ++trial) {
            const GridCoeffs k = coeffs(11, 8, coeff(rng), 0.1f * coeff(rng), bc);
            const auto n = static_cast<std::size_t>(k.nx) * k.ny;
            const auto u = randomField(n, seed + 2 * trial);
            const auto up = randomField(n, seed + 2 * trial + 1);
            std::vector<float> rhs(n), guess(n);
            cnRhs(*test::executor(), k, u.data(), up.data(), rhs.data(), guess.data(), true);
            const float alpha = k.a / (1.0f + k.g);
            const cg::StencilOperator op(k.nx, k.ny, alpha, bc);
            Eigen::MatrixXd a(n, n);
            std::vector<double> e(n), col(n);
            for (std::size_t c = 0; c < n; ++c) {
                std::fill(e.begin(), e.end(), 0.0);
                e[c] = 1.0;
                op.applyReference(e, col);
                for (std::size_t r = 0; r < n; ++r) {
                    a(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = col[r];
                }
            }
            Eigen::VectorXd b(n);
            for (std::size_t c = 0; c < n; ++c) {
                b(static_cast<Eigen::Index>(c)) = rhs[c];
            }
            const Eigen::VectorXd exact = a.ldlt().solve(b);
            double before = 0.0;
            double after = 0.0;
            for (std::size_t c = 0; c < n; ++c) {
                const double x = exact(static_cast<Eigen::Index>(c));
                const double y = 2.0 * u[c] - double(up[c]);
                before += (y - x) * (y - x);
                after += (guess[c] - x) * (guess[c] - x);
            }
            const double rho = 4.0 * alpha / (1.0 + 4.0 * alpha);
            ASSERT_GT(std::sqrt(before), 0.1) << "seed " << seed;  // rough fields: far from x*
            EXPECT_LE(std::sqrt(after), rho * rho * std::sqrt(before) * (1.0 + 1e-4) + 1e-4)
                << cg::boundaryName(bc) << " alpha " << alpha << " before " << std::sqrt(before)
                << " seed " << seed;
        }
    }
}

TEST(WaveModel, ImplicitBoundedAtTenTimesExplicitLimitWhileExplicitDiverges) {
    for (Scheme scheme : {Scheme::kCrankNicolson, Scheme::kExplicit}) {
        WaveParams p = smallParams(40, 10.0f);
        p.scheme = scheme;
        p.trackEnergy = false;
        auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
        ASSERT_TRUE(m.ok());
        m->addDrop(0.4f, 0.6f, 0.1f, 0.3f);
        float peak = 0.0f;
        for (int s = 0; s < 1000; ++s) {
            (void)m->step();
            peak = std::max(peak, maxAbs(m->heights()));
            if (!std::isfinite(peak) || peak > 1e6f) {
                break;
            }
        }
        if (scheme == Scheme::kCrankNicolson) {
            // Energy conservation bounds the heights; a drop of 0.1 m spreads out, so the
            // surface never exceeds the drop's own height by much.
            EXPECT_LT(peak, 0.2f);
        } else {
            EXPECT_FALSE(peak < 1e6f) << "explicit scheme at 10x its limit must blow up";
        }
    }
}

TEST(WaveModel, ExplicitStaysBoundedBelowItsLimit) {
    WaveParams p = smallParams(40, 0.95f);
    p.scheme = Scheme::kExplicit;
    p.trackEnergy = false;
    auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(m.ok());
    m->addDrop(0.5f, 0.5f, 0.1f, 0.3f);
    for (int s = 0; s < 1000; ++s) {
        (void)m->step();
    }
    EXPECT_LT(maxAbs(m->heights()), 0.2f);
}

TEST(WaveModel, UndampedEnergyConstantDampedDecays) {
    const std::uint64_t seed = freshSeed();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> pos(0.2f, 0.8f);
    for (cg::Boundary bc : kBoundaries) {
        WaveParams p = smallParams(48, 2.0f);
        p.boundary = bc;
        auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
        ASSERT_TRUE(m.ok());
        m->addDrop(pos(rng), pos(rng), 0.1f, 0.25f);
        m->addDrop(pos(rng), pos(rng), -0.05f, 0.2f);
        const double e0 = m->step().energy;
        for (int s = 0; s < 300; ++s) {
            // CN conserves E exactly in exact arithmetic; each CG solve (tol 1e-6) perturbs it
            // by ~1e-6 relative, float rounding by ~1e-7: 300 steps stay far below 1e-3, in
            // either direction (numerical dissipation would show as a loss).
            const double e = m->step().energy;
            ASSERT_NEAR(e, e0, 1e-3 * e0)
                << "step " << s << " " << cg::boundaryName(bc) << " seed " << seed;
        }
        EXPECT_GT(e0, 0.0);

        WaveParams damped = p;
        damped.damping = 0.5f;  // 1/s: E decays roughly like exp(-gamma t)
        ASSERT_TRUE(m->setParams(damped).ok());
        double prev = m->step().energy;
        const double start = prev;
        for (int s = 0; s < 100; ++s) {
            const double e = m->step().energy;
            // Monotone up to the CG perturbation above.
            EXPECT_LE(e, prev * (1.0 + 1e-5));
            prev = e;
        }
        const double t = 100.0 * p.dt();
        EXPECT_LT(prev, start * std::exp(-0.5 * 0.5 * t)) << "t = " << t;
    }
}

TEST(WaveModel, ExplicitEnergyConservedBelowLimit) {
    WaveParams p = smallParams(40, 0.7f);
    p.scheme = Scheme::kExplicit;
    auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(m.ok());
    m->addDrop(0.3f, 0.5f, 0.1f, 0.3f);
    const double e0 = m->step().energy;
    for (int s = 0; s < 300; ++s) {
        // Leapfrog's modified energy is an exact invariant: only float rounding moves it.
        EXPECT_NEAR(m->step().energy, e0, 1e-4 * e0);
    }
}

// The state energy of (u^n, v^n), written out here independently of wave::energy: the
// velocity at level n that the pair stands for under CN (Newmark beta = 1/4, gamma = 1/2),
//   v = [(1 - g)(u - uPrev) + a L (u + uPrev)] / dt,
// and E = h^2/2 sum v^2 + c^2/2 (sum over grid edges of (u_i - u_j)^2 + Dirichlet ghost edges
// u_i^2; mixed walls: Dirichlet ghosts beyond x, Neumann beyond y). This is the energy of the
// space-discrete system, with no dt in it.
double stateEnergy(const WaveParams& p, const std::vector<float>& u,
                   const std::vector<float>& uPrev) {
    const int nx = p.nx;
    const int ny = p.ny;
    const double h = p.cellSize();
    const double dt = p.dt();
    const double c = p.waveSpeed;
    const double a = c * c * dt * dt / (4.0 * h * h);
    const double g = 0.5 * p.damping * dt;
    const bool neumannX = p.boundary == cg::Boundary::kNeumann;
    const bool neumannY = p.boundary != cg::Boundary::kDirichlet;
    auto lap = [&](const std::vector<float>& f, int i, int j) {
        const double centre = f[static_cast<std::size_t>(j * nx + i)];
        double s = 0.0;
        const int di[4] = {-1, 1, 0, 0};
        const int dj[4] = {0, 0, -1, 1};
        for (int d = 0; d < 4; ++d) {
            const int ii = i + di[d];
            const int jj = j + dj[d];
            const bool inside = ii >= 0 && ii < nx && jj >= 0 && jj < ny;
            const bool mirrored = di[d] != 0 ? neumannX : neumannY;
            s += inside ? f[static_cast<std::size_t>(jj * nx + ii)] : (mirrored ? centre : 0.0);
        }
        return s - 4.0 * centre;
    };
    double kinetic = 0.0;
    double potential = 0.0;
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const std::size_t k = static_cast<std::size_t>(j * nx + i);
            const double v =
                ((1.0 - g) * (double(u[k]) - uPrev[k]) + a * (lap(u, i, j) + lap(uPrev, i, j))) /
                dt;
            kinetic += v * v;
            // -u . L u = sum over edges (u_i - u_j)^2 (+ ghost edges u_i^2 for Dirichlet).
            potential -= u[k] * lap(u, i, j);
        }
    }
    return 0.5 * h * h * kinetic + 0.5 * c * c * potential;
}

// Changing dt mid-run keeps the energy of the water (CPU or GPU). Compared: the state energy
// of (u^n, v^n) above, the energy of the space-discrete system, which has no dt in it and
// which CN conserves exactly: a dt change that keeps the water's heights and velocities must
// keep it. (The half-step energy E^{n+1/2} of ((u^n + u^n-1)/2, (u^n - u^n-1)/dt) is not
// the one to compare: it weighs each mode's energy by 1 / (1 + a lambda), which depends on
// dt, so it jumps on a dt change even when the state is kept exactly.) Undamped, CG to
// 1e-6: E moves by ~1e-6 per solve (UndampedEnergyConstantDampedDecays), the re-timing solve
// adds one more, so 1e-3 relative is a wide margin; without re-timing the jump is 10-100 %.
void expectEnergyContinuousAcrossDtChange(Backend backend) {
    const std::uint64_t seed = freshSeed();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> pos(0.2f, 0.8f);
    for (cg::Boundary bc : kBoundaries) {
        for (const auto& [from, to] : {std::pair{2.0f, 0.7f}, std::pair{2.0f, 5.0f}}) {
            WaveParams p = smallParams(40, from);
            p.boundary = bc;
            p.trackEnergy = false;
            auto m = WaveModel::create(p, backend, backend == Backend::kGpu ? &library() : nullptr,
                                       test::executor());
            ASSERT_TRUE(m.ok()) << m.error().message;
            m->addDrop(pos(rng), pos(rng), 0.1f, 0.25f);
            m->addDrop(pos(rng), pos(rng), -0.05f, 0.2f);
            for (int s = 0; s < 25; ++s) {
                (void)m->step();
            }
            std::vector<float> u, uPrev;
            m->heightsPair(u, uPrev);
            const double before = stateEnergy(p, u, uPrev);
            WaveParams q = p;
            q.dtRatio = to;
            ASSERT_TRUE(m->setParams(q).ok());
            m->heightsPair(u, uPrev);
            const double after = stateEnergy(q, u, uPrev);
            EXPECT_NEAR(after, before, 1e-3 * before) << "dt ratio " << from << " -> " << to << " "
                                                      << cg::boundaryName(bc) << " seed " << seed;
            // wave::energy is this energy, with a and g rounded to float (~1e-7 relative).
            EXPECT_NEAR(m->energy(), after, 1e-6 * after);
            for (int s = 0; s < 25; ++s) {
                (void)m->step();
            }
            m->heightsPair(u, uPrev);
            EXPECT_NEAR(stateEnergy(q, u, uPrev), before, 1e-3 * before) << "seed " << seed;
        }
    }
}

// Switching CN -> explicit (and dt) keeps the heights and the velocity: v^n from the CN
// relation before equals v^n from the explicit (velocity Verlet) relation after,
//   dt v = [(u - uPrev) + 2 a L u] / (1 + g),
// written out here with the test's own Laplacian. The new u^n-1 is computed in float from
// values of size <= 0.1 m: 1e-6 m per cell, i.e. 1e-6 / dt in v, is the rounding bound.
TEST(WaveModel, SchemeSwitchKeepsVelocity) {
    const std::uint64_t seed = freshSeed();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> pos(0.2f, 0.8f);
    WaveParams p = smallParams(32, 2.0f);
    p.damping = 0.3f;
    auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(m.ok());
    m->addDrop(pos(rng), pos(rng), 0.1f, 0.3f);
    for (int s = 0; s < 10; ++s) {
        (void)m->step();
    }
    auto velocity = [](const WaveParams& q, const std::vector<float>& u,
                       const std::vector<float>& up, bool cn) {
        const int n = q.nx;
        const double dt = q.dt();
        const double a = q.waveSpeed * q.waveSpeed * dt * dt / (4.0 * q.cellSize() * q.cellSize());
        const double g = 0.5 * q.damping * dt;
        auto lap = [&](const std::vector<float>& f, int i, int j) {  // Neumann ghosts
            auto at = [&](int ii, int jj) {
                const bool in = ii >= 0 && ii < n && jj >= 0 && jj < n;
                return double(f[static_cast<std::size_t>(in ? jj * n + ii : j * n + i)]);
            };
            return at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
        };
        std::vector<double> v(u.size());
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                const std::size_t k = static_cast<std::size_t>(j * n + i);
                const double w = double(u[k]) - up[k];
                v[k] = (cn ? (1.0 - g) * w + a * (lap(u, i, j) + lap(up, i, j))
                           : (w + 2.0 * a * lap(u, i, j)) / (1.0 + g)) /
                       dt;
            }
        }
        return v;
    };
    std::vector<float> u, up;
    m->heightsPair(u, up);
    const std::vector<double> before = velocity(p, u, up, true);
    WaveParams q = p;
    q.scheme = Scheme::kExplicit;
    q.dtRatio = 0.6f;
    ASSERT_TRUE(m->setParams(q).ok());
    std::vector<float> u2, up2;
    m->heightsPair(u2, up2);
    EXPECT_EQ(u2, u);
    const std::vector<double> after = velocity(q, u2, up2, false);
    for (std::size_t k = 0; k < before.size(); ++k) {
        ASSERT_NEAR(after[k], before[k], 1e-6 / q.dt()) << k << " seed " << seed;
    }
}

// Mixed walls (Dirichlet beyond x = 0 and nx - 1, Neumann beyond y = 0 and ny - 1): the
// separable mode phi_ij = sin(pi p (i + 1) / (nx + 1)) cos(pi q (j + 1/2) / ny) is an exact
// eigenvector of that L (the 1D Dirichlet and Neumann stencils' own eigenvectors) with
//   lambda = -4 [sin^2(pi p / (2 (nx + 1))) + sin^2(pi q / (2 ny))],
// so from (u^0, u^-1) = A (1, cos theta) phi an undamped scheme keeps u^n = A cos(n theta) phi,
// with cos theta = 1 + 2 a lambda (explicit) or (1 + a lambda) / (1 - a lambda) (CN). Any
// other ghost rule (all Dirichlet, all Neumann, axes swapped) breaks the mode at the walls.
// Tolerance 1e-4 of A for both schemes and between CPU and GPU: float rounding of ~1e-7 per
// cell and step (plus, for CN, CG's 1e-6 relative residual) over 100-200 steps; the largest
// error measured in 12 runs (3 seeds x 2 schemes x 2 backends) was 4e-6 of A.
std::vector<float> runMixedMode(Backend backend, Scheme scheme, int p, int q, float amplitude,
                                int steps, std::vector<double>& want) {
    WaveParams wp = smallParams(40, scheme == Scheme::kExplicit ? 0.9f : 3.0f);
    wp.ny = 28;
    wp.scheme = scheme;
    wp.boundary = cg::Boundary::kMixed;
    wp.trackEnergy = false;
    const int nx = wp.nx;
    const int ny = wp.ny;
    const double pi = std::acos(-1.0);
    const double h = wp.cellSize();
    const double dt = wp.dt();
    const double a = double(wp.waveSpeed) * wp.waveSpeed * dt * dt / (4.0 * h * h);
    const double sx = std::sin(pi * p / (2.0 * (nx + 1)));
    const double sy = std::sin(pi * q / (2.0 * ny));
    const double lambda = -4.0 * (sx * sx + sy * sy);
    const double cosTheta = scheme == Scheme::kExplicit ? 1.0 + 2.0 * a * lambda
                                                        : (1.0 + a * lambda) / (1.0 - a * lambda);
    const double theta = std::acos(cosTheta);
    std::vector<double> phi(static_cast<std::size_t>(nx) * ny);
    std::vector<float> u(phi.size()), uPrev(phi.size());
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const std::size_t k = static_cast<std::size_t>(j) * nx + i;
            phi[k] = amplitude * std::sin(pi * p * (i + 1) / (nx + 1)) *
                     std::cos(pi * q * (j + 0.5) / ny);
            u[k] = static_cast<float>(phi[k]);
            uPrev[k] = static_cast<float>(phi[k] * cosTheta);
        }
    }
    want.resize(phi.size());
    for (std::size_t k = 0; k < phi.size(); ++k) {
        want[k] = phi[k] * std::cos(steps * theta);
    }
    auto m = WaveModel::create(wp, backend, backend == Backend::kGpu ? &library() : nullptr,
                               test::executor());
    if (!m.ok()) {
        ADD_FAILURE() << m.error().message;
        return {};
    }
    EXPECT_TRUE(m->setState(u, uPrev).ok());
    for (int s = 0; s < steps; ++s) {
        (void)m->step();
    }
    return m->heights();
}

void expectMixedModeMatchesClosedForm(Backend backend) {
    const std::uint64_t seed = freshSeed();
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> mode(1, 5);
    std::uniform_real_distribution<float> amp(0.02f, 0.1f);
    for (Scheme scheme : {Scheme::kExplicit, Scheme::kCrankNicolson}) {
        const int p = mode(rng);
        const int q = mode(rng);
        const float amplitude = amp(rng);
        const int steps = scheme == Scheme::kExplicit ? 200 : 100;
        const double tol = 1e-4 * amplitude;
        std::vector<double> want;
        const auto got = runMixedMode(backend, scheme, p, q, amplitude, steps, want);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
            ASSERT_NEAR(got[k], want[k], tol) << "cell " << k << " " << schemeName(scheme)
                                              << " mode (" << p << ", " << q << ") seed " << seed;
        }
        if (backend == Backend::kGpu) {
            const auto cpu = runMixedMode(Backend::kCpu, scheme, p, q, amplitude, steps, want);
            for (std::size_t k = 0; k < want.size(); ++k) {
                ASSERT_NEAR(got[k], cpu[k], 1e-4 * amplitude)
                    << "cell " << k << " " << schemeName(scheme) << " seed " << seed;
            }
        }
    }
}

TEST(WaveModel, MixedWallsKeepTheSeparableModeCpu) {
    expectMixedModeMatchesClosedForm(Backend::kCpu);
}

TEST(WaveModelGpu, MixedWallsKeepTheSeparableMode) {
    WW_REQUIRE_GPU();
    expectMixedModeMatchesClosedForm(Backend::kGpu);
}

TEST(WaveModel, EnergyContinuousAcrossDtChangeCpu) {
    expectEnergyContinuousAcrossDtChange(Backend::kCpu);
}

TEST(WaveModelGpu, EnergyContinuousAcrossDtChange) {
    WW_REQUIRE_GPU();
    expectEnergyContinuousAcrossDtChange(Backend::kGpu);
}

// Radius of the ring's crest: the azimuthal maximum of |u| along the four axis rays,
// averaged, with a parabola through the peak sample for sub-cell accuracy.
double crestRadius(const std::vector<float>& u, int n, float h) {
    const int c = n / 2;
    double sum = 0.0;
    const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (const auto& d : dirs) {
        int best = 1;
        for (int s = 1; s < c - 1; ++s) {
            const float v = u[static_cast<std::size_t>((c + d[1] * s) * n + c + d[0] * s)];
            const float b = u[static_cast<std::size_t>((c + d[1] * best) * n + c + d[0] * best)];
            if (v > b) {
                best = s;
            }
        }
        auto at = [&](int s) {
            return double(u[static_cast<std::size_t>((c + d[1] * s) * n + c + d[0] * s)]);
        };
        const double ym = at(best - 1), y0 = at(best), yp = at(best + 1);
        const double den = ym - 2.0 * y0 + yp;
        const double shift = den != 0.0 ? 0.5 * (ym - yp) / den : 0.0;
        sum += (best + shift) * h;
    }
    return sum / 4.0;
}

TEST(WaveModel, DropWavefrontTravelsAtWaveSpeed) {
    // 160^2 cells over 8 m (h = 5 cm), c = 1.5 m/s, drop radius 0.25 m (5 cells) so the
    // ring is resolved; dt = 0.5 explicit limit. The crest of a 2D pulse starting at rest
    // approaches r = c t from behind (the 2D wave's tail), so speed is measured as
    // (r(t2) - r(t1)) / (t2 - t1) between 1.0 s and 2.0 s. The 5-point stencil's numerical
    // dispersion slows waves of 10 cells/wavelength by ~2 %; 5 % is the stated tolerance.
    WaveParams p;
    p.nx = p.ny = 160;
    p.poolSizeM = 8.0f;
    p.waveSpeed = 1.5f;
    p.dtRatio = 0.5f;
    p.cg.tolerance = 1e-6f;
    p.trackEnergy = false;
    auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(m.ok());
    // Centre of cell (80, 80): normalized (80.5 / 160).
    m->addDrop(80.5f / 160.0f, 80.5f / 160.0f, 0.1f, 0.25f);
    const int s1 = static_cast<int>(std::lround(1.0 / p.dt()));
    const int s2 = static_cast<int>(std::lround(2.0 / p.dt()));
    double r1 = 0.0;
    for (int s = 1; s <= s2; ++s) {
        (void)m->step();
        if (s == s1) {
            r1 = crestRadius(m->heights(), p.nx, p.cellSize());
        }
    }
    const double r2 = crestRadius(m->heights(), p.nx, p.cellSize());
    const double speed = (r2 - r1) / ((s2 - s1) * double(p.dt()));
    EXPECT_NEAR(speed, p.waveSpeed, 0.05 * p.waveSpeed) << "r1 " << r1 << " r2 " << r2;
}

// The implicit step's solution has exponentially small tails across the pool, and a CPU
// computes with subnormal floats tens of times slower: the step runs with them flushed to zero
// (exec::FlushSubnormals), whatever the caller's mode, so no height is ever subnormal. Without
// the flush this pool holds ~5 000 subnormal heights 60 steps after a drop in its corner (the
// tails ahead of the waves; by step 200 the waves fill it).
TEST(WaveModel, StepLeavesNoSubnormalHeights) {
    WaveParams p = smallParams(256, 2.0f);
    p.cg.tolerance = 1e-5f;
    p.trackEnergy = false;
    auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(m.ok());
    m->addDrop(0.1f, 0.1f, 0.05f, 0.2f);
    for (int s = 0; s < 60; ++s) {
        (void)m->step();
    }
    std::vector<float> u, uPrev;
    m->heightsPair(u, uPrev);
    const auto subnormal = [](float v) { return std::fpclassify(v) == FP_SUBNORMAL; };
    const auto count = std::count_if(u.begin(), u.end(), subnormal) +
                       std::count_if(uPrev.begin(), uPrev.end(), subnormal);
    EXPECT_EQ(count, 0);
    EXPECT_GT(std::count_if(u.begin(), u.end(), [](float v) { return v != 0.0f; }), 40000)
        << "the tails reach most of the pool";
}

TEST(WaveModel, WarmStartCutsIterations) {
    // Long, slow waves (radius 1.2-1.5 m on a 4 m pool, dt = half the explicit limit): the
    // prediction 2u^n - u^n-1 is off by O((c dt / R)^2) ~ 1e-3, so CG starts far closer than
    // from 0. (At dt >= 2x the limit on short waves the gain shrinks: docs/wave.md.)
    double iters[2] = {0.0, 0.0};
    for (int warm = 0; warm < 2; ++warm) {
        WaveParams p = smallParams(64, 0.5f);
        p.warmStart = warm == 1;
        p.trackEnergy = false;
        auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
        ASSERT_TRUE(m.ok());
        m->addDrop(0.5f, 0.5f, 0.1f, 1.5f);
        m->addDrop(0.2f, 0.7f, 0.1f, 1.2f);
        for (int s = 0; s < 60; ++s) {
            iters[warm] += m->step().cgIterations;
        }
    }
    EXPECT_LT(iters[1], 0.8 * iters[0]) << "cold " << iters[0] << " warm " << iters[1];
}

TEST(WaveModel, RainAndWakeAreDeterministicPerSeed) {
    auto run = [](std::uint64_t seed) {
        WaveParams p = smallParams(48, 2.0f);
        p.trackEnergy = false;
        auto m = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
        m->setRain(true, 40.0f, seed);
        m->setWake({{0.2f, 0.2f}, {0.8f, 0.3f}, {0.5f, 0.8f}}, 1.0f);
        int drops = 0;
        for (int s = 0; s < 50; ++s) {
            drops += m->step().drops;
        }
        EXPECT_GT(drops, 50);  // 50 wake impulses plus rain (~40/s over ~2 s)
        return m->stateHash();
    };
    const std::uint64_t seed = freshSeed();
    EXPECT_EQ(run(seed), run(seed)) << "seed " << seed;
    EXPECT_NE(run(seed), run(seed + 1)) << "seed " << seed;
}

// The wake moves water, it does not remove it: in a closed pool (Neumann walls, whose mean
// level has a double root at 1 and so drifts with any mean velocity) a source circling for 300
// steps near the walls (its ridge cut by them) leaves the mean level where it was, to 1e-5 m
// (float rounding of ~4 cm waves summed over 2 304 cells), while the surface is disturbed by
// centimetres. A trough without its ridge (the wake before) takes the mean to -46 m.
void expectWakeKeepsTheVolume(Backend backend) {
    WaveParams p = smallParams(48, 2.0f);
    p.trackEnergy = false;
    auto m = WaveModel::create(p, backend, backend == Backend::kGpu ? &library() : nullptr,
                               test::executor());
    ASSERT_TRUE(m.ok()) << m.error().message;
    std::vector<PathPoint> path;
    for (int k = 0; k < 16; ++k) {
        const float a = 6.2831853f * static_cast<float>(k) / 16.0f;
        path.push_back({0.5f + 0.42f * std::cos(a), 0.5f + 0.42f * std::sin(a)});
    }
    m->setWake(std::move(path), 1.0f, 0.5f, 0.3f);
    for (int s = 0; s < 300; ++s) {
        ASSERT_EQ(m->step().cgStatus, cg::CgStatus::kConverged) << "step " << s;
    }
    const std::vector<float> u = m->heights();
    double mean = 0.0;
    for (float v : u) {
        mean += v;
    }
    mean /= static_cast<double>(u.size());
    EXPECT_NEAR(mean, 0.0, 1e-5);
    EXPECT_GT(maxAbs(u), 0.01f)
        << "the wake must disturb the surface for the check to mean anything";
}

TEST(WaveModel, WakeKeepsThePoolsVolume) {
    expectWakeKeepsTheVolume(Backend::kCpu);
}

TEST(WaveModelGpu, WakeKeepsThePoolsVolume) {
    WW_REQUIRE_GPU();
    expectWakeKeepsTheVolume(Backend::kGpu);
}

// A drop of 3e38 m (finite, but 2 u overflows float) makes the rhs and the warm start Inf:
// CG breaks down. The step must keep the previous (finite) heights and say so, on both
// backends, instead of handing Inf/NaN to the renderer.
void expectBreakdownKeepsHeights(Backend backend) {
    WaveParams p = smallParams(32, 2.0f);
    p.trackEnergy = false;
    auto m = WaveModel::create(p, backend, backend == Backend::kGpu ? &library() : nullptr,
                               test::executor());
    ASSERT_TRUE(m.ok()) << m.error().message;
    m->addDrop(0.3f, 0.6f, 0.1f, 0.3f);
    for (int s = 0; s < 5; ++s) {
        ASSERT_EQ(m->step().cgStatus, cg::CgStatus::kConverged);
    }
    m->addDrop(0.5f, 0.5f, 3e38f, 0.3f);
    const StepStats bad = m->step();
    EXPECT_EQ(bad.cgStatus, cg::CgStatus::kBreakdown);
    EXPECT_NE(bad.message.find("kept the previous heights"), std::string::npos) << bad.message;
    const auto h = m->heights();
    EXPECT_TRUE(std::all_of(h.begin(), h.end(), [](float v) { return std::isfinite(v); }));
    EXPECT_GT(maxAbs(h), 1e38f);  // the drop itself is there: u^n was kept, not zeroed
}

TEST(WaveModel, CgBreakdownKeepsLastHeightsCpu) {
    expectBreakdownKeepsHeights(Backend::kCpu);
}

TEST(WaveModelGpu, CgBreakdownKeepsLastHeights) {
    WW_REQUIRE_GPU();
    expectBreakdownKeepsHeights(Backend::kGpu);
}

// CPU and GPU solve each step to relative residual 1e-6 from the same state; differences
// are CG-tolerance sized per step and do not grow for this stable scheme. 1e-4 of the drop
// height over 30 steps leaves a wide margin over the ~1e-6 per step.
// Both backends start CG from the same warm start (wave_rhs.comp and wave_sweep.comp repeat
// cnRhs's twice-swept extrapolation), so with rain at twice the explicit limit, where each
// sweep saves about one iteration, they take the same iterations but where a step's residual
// lands within rounding of the tolerance. The GPU starting after one sweep takes more.
TEST(WaveModelGpu, TakesTheCpusIterationsFromTheSameWarmStart) {
    WW_REQUIRE_GPU();
    WaveParams p = smallParams(128, 2.0f);
    p.ny = 96;
    p.cg.tolerance = 1e-5f;
    p.trackEnergy = false;
    int iterations[2] = {0, 0};
    for (Backend backend : {Backend::kCpu, Backend::kGpu}) {
        auto m = WaveModel::create(p, backend, backend == Backend::kGpu ? &library() : nullptr,
                                   test::executor());
        ASSERT_TRUE(m.ok()) << m.error().message;
        m->setRain(true, 60.0f, 11);
        for (int s = 0; s < 60; ++s) {
            iterations[backend == Backend::kGpu ? 1 : 0] += m->step().cgIterations;
        }
    }
    EXPECT_NEAR(iterations[1], iterations[0], 3) << "cpu " << iterations[0];
}

TEST(WaveModelGpu, MatchesCpuAndSwitchingKeepsState) {
    WW_REQUIRE_GPU();
    for (Scheme scheme : {Scheme::kCrankNicolson, Scheme::kExplicit}) {
        WaveParams p = smallParams(56, scheme == Scheme::kExplicit ? 0.9f : 3.0f);
        p.scheme = scheme;
        p.ny = 44;
        p.trackEnergy = false;
        auto cpu = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
        auto gpuModel = WaveModel::create(p, Backend::kGpu, &library(), test::executor());
        ASSERT_TRUE(cpu.ok());
        ASSERT_TRUE(gpuModel.ok()) << gpuModel.error().message;
        auto mixed = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
        for (WaveModel* m : {&cpu.value(), &gpuModel.value(), &mixed.value()}) {
            m->addDrop(0.3f, 0.6f, 0.1f, 0.3f);
            m->setRain(true, 30.0f, 7);
            m->setWake({{0.2f, 0.2f}, {0.8f, 0.7f}}, 1.0f);
        }
        for (int s = 0; s < 30; ++s) {
            const StepStats a = cpu->step();
            const StepStats b = gpuModel->step();
            EXPECT_EQ(a.drops, b.drops);
            if (scheme == Scheme::kCrankNicolson) {
                EXPECT_EQ(b.cgStatus, cg::CgStatus::kConverged);
            }
            if (s == 15) {
                ASSERT_TRUE(mixed->setBackend(Backend::kGpu, &library()).ok());
                EXPECT_NE(mixed->heightBufferHandle(), 0u);
            }
            (void)mixed->step();
        }
        const auto hc = cpu->heights();
        const auto hg = gpuModel->heights();
        const auto hm = mixed->heights();
        for (std::size_t c = 0; c < hc.size(); ++c) {
            ASSERT_NEAR(hg[c], hc[c], 1e-5f) << c;
            ASSERT_NEAR(hm[c], hc[c], 1e-5f) << c;
        }
        EXPECT_NEAR(gpuModel->energy(), cpu->energy(), 1e-4 * cpu->energy());
        ASSERT_TRUE(mixed->setBackend(Backend::kCpu, nullptr).ok());
        EXPECT_EQ(mixed->heightBufferHandle(), 0u);
        EXPECT_EQ(mixed->heights(), hm);
    }
}

// A failed switch (no GL context or library) changes nothing: the model stays on the CPU
// with the same state and keeps stepping exactly as one that was never asked to switch.
TEST(WaveModel, FailedBackendSwitchChangesNothing) {
    const std::uint64_t seed = freshSeed();
    WaveParams p = smallParams(40, 3.0f);
    p.trackEnergy = false;
    auto asked = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    auto untouched = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(asked.ok() && untouched.ok());
    for (WaveModel* m : {&asked.value(), &untouched.value()}) {
        m->addDrop(0.4f, 0.3f, 0.1f, 0.3f);
        m->setRain(true, 30.0f, seed);
    }
    for (int s = 0; s < 5; ++s) {
        (void)asked->step();
        (void)untouched->step();
    }
    const Status st = asked->setBackend(Backend::kGpu, nullptr);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().kind, ErrorKind::kGpuUnavailable);
    EXPECT_EQ(asked->backend(), Backend::kCpu);
    EXPECT_EQ(asked->stateHash(), untouched->stateHash()) << "seed " << seed;
    for (int s = 0; s < 5; ++s) {
        (void)asked->step();
        (void)untouched->step();
    }
    EXPECT_EQ(asked->stateHash(), untouched->stateHash()) << "seed " << seed;
}

// CPU -> GPU -> CPU mid-run: each switch carries (u^n, u^n-1) over bit for bit, and the run
// ends within float/CG precision of a pure CPU run. Per GPU step the two backends differ by
// CG's tolerance (relative residual 1e-6 of heights <= 0.1 m) plus float rounding in another
// summation order; over 12 GPU steps of this stable scheme that stays below 1e-6 m, so 1e-5 m
// (1e-4 of the drop) is a wide margin that a stale level breaks (u^n-1 left unset on the GPU:
// 0.09 m off).
TEST(WaveModelGpu, SwitchCpuGpuCpuMidRunKeepsState) {
    WW_REQUIRE_GPU();
    const std::uint64_t seed = freshSeed();
    WaveParams p = smallParams(48, 3.0f);
    p.ny = 36;
    p.trackEnergy = false;
    auto pure = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    auto mixed = WaveModel::create(p, Backend::kCpu, nullptr, test::executor());
    ASSERT_TRUE(pure.ok() && mixed.ok());
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> where(0.2f, 0.8f);
    const float x = where(rng);
    const float y = where(rng);
    for (WaveModel* m : {&pure.value(), &mixed.value()}) {
        m->addDrop(x, y, 0.1f, 0.3f);
        m->setRain(true, 30.0f, seed);
    }
    const auto expectSameState = [](const WaveModel& a, const WaveModel& b, const char* when) {
        std::vector<float> ua, pa, ub, pb;
        a.heightsPair(ua, pa);
        b.heightsPair(ub, pb);
        EXPECT_EQ(ua, ub) << when;
        EXPECT_EQ(pa, pb) << when;
    };
    for (int s = 0; s < 36; ++s) {
        if (s == 12) {
            ASSERT_TRUE(mixed->setBackend(Backend::kGpu, &library()).ok());
            EXPECT_EQ(mixed->backend(), Backend::kGpu);
            expectSameState(*mixed, *pure, "after CPU -> GPU");
        }
        if (s == 24) {
            std::vector<float> u, uPrev;
            mixed->heightsPair(u, uPrev);
            ASSERT_TRUE(mixed->setBackend(Backend::kCpu, nullptr).ok());
            EXPECT_EQ(mixed->backend(), Backend::kCpu);
            EXPECT_EQ(std::vector<float>(mixed->cpuHeights().begin(), mixed->cpuHeights().end()),
                      u);
            EXPECT_EQ(std::vector<float>(mixed->cpuPreviousHeights().begin(),
                                         mixed->cpuPreviousHeights().end()),
                      uPrev);
        }
        const StepStats a = pure->step();
        const StepStats b = mixed->step();
        EXPECT_EQ(a.drops, b.drops);
        EXPECT_EQ(b.cgStatus, cg::CgStatus::kConverged) << "step " << s;
    }
    EXPECT_EQ(mixed->steps(), pure->steps());
    const auto hp = pure->heights();
    const auto hm = mixed->heights();
    ASSERT_EQ(hp.size(), hm.size());
    for (std::size_t c = 0; c < hp.size(); ++c) {
        ASSERT_NEAR(hm[c], hp[c], 1e-5f) << c << " seed " << seed;
    }
}

}  // namespace
}  // namespace ww::wave
