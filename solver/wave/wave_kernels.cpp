// CPU kernels of the wave model (equations in wave_kernels.h).
#include "solver/wave/wave_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "solver/exec/executor.h"

namespace ww::wave {

namespace {

// Pointers to the rows above and below row j with the boundary's ghost rows.
struct Rows {
    const float* up;
    const float* row;
    const float* dn;
};

Rows rowsOf(const GridCoeffs& k, const float* u, int j, const float* zeros) {
    const std::size_t nx = static_cast<std::size_t>(k.nx);
    const float* row = u + j * nx;
    return {j > 0 ? row - nx : (k.neumannY ? row : zeros), row,
            j + 1 < k.ny ? row + nx : (k.neumannY ? row : zeros)};
}

// Laplacian of the row at column i (edges use the ghost value).
inline float lapAt(const Rows& r, int i, int nx, bool neumannX) {
    const float c = r.row[i];
    const float l = i > 0 ? r.row[i - 1] : (neumannX ? c : 0.0f);
    const float rr = i + 1 < nx ? r.row[i + 1] : (neumannX ? c : 0.0f);
    return l + rr + r.up[i] + r.dn[i] - 4.0f * c;
}

// Rows are independent: runs f(j) for every row on the executor, one row per chunk.
template <typename F>
void forRows(const exec::Executor& ex, const GridCoeffs& k, F&& f) {
    ex.parallelFor(
        k.ny, [&](std::ptrdiff_t j) { f(static_cast<int>(j)); }, std::ptrdiff_t{k.nx} * k.ny);
}

const float* zeroRow(int nx) {
    thread_local std::vector<float> zeros;
    if (zeros.size() < static_cast<std::size_t>(nx)) {
        zeros.assign(static_cast<std::size_t>(nx), 0.0f);
    }
    return zeros.data();
}

}  // namespace

namespace {

/// Rows per chunk of cnRhs: each chunk also forms the first sweep of the row above and below
/// it (2 rows in kSweepBlockRows more work), which its second sweep reads.
constexpr int kSweepBlockRows = 16;

/// Row j of the CN right-hand side into `out`, and of the extrapolation after the first sweep
/// into `swept` (wave_kernels.h).
void rhsRow(const GridCoeffs& k, const float* u, const float* uPrev, int j, const float* zeros,
            float* out, float* swept) {
    // Locals, not the caller's references: the loop's stores could alias a reference, and
    // each step would reload it.
    const float a = k.a;
    const float inv = 1.0f / (1.0f + k.g);
    const float keep = 1.0f - k.g;
    const float alpha = a * inv;
    const float invDiag = 1.0f / (1.0f + 4.0f * alpha);
    const int nx = k.nx;
    const Rows ru = rowsOf(k, u, j, zeros);
    const Rows rp = rowsOf(k, uPrev, j, zeros);
    const float* u0 = ru.row;
    const float* p0 = rp.row;
    // y = 2 u - uPrev, its L y = 2 L u - L uPrev from the Laplacians the right-hand side takes.
    const auto edge = [&](int i) {
        const float lu = lapAt(ru, i, nx, k.neumannX);
        const float lp = lapAt(rp, i, nx, k.neumannX);
        out[i] = (2.0f * u0[i] - keep * p0[i] + a * (2.0f * lu + lp)) * inv;
        const float y = 2.0f * u0[i] - p0[i];
        swept[i] = y + (out[i] - (y - alpha * (2.0f * lu - lp))) * invDiag;
    };
    const float* uUp = ru.up;
    const float* uDn = ru.dn;
    const float* pUp = rp.up;
    const float* pDn = rp.dn;
#pragma omp simd
    for (int i = 1; i < nx - 1; ++i) {
        const float lu = u0[i - 1] + u0[i + 1] + uUp[i] + uDn[i] - 4.0f * u0[i];
        const float lp = p0[i - 1] + p0[i + 1] + pUp[i] + pDn[i] - 4.0f * p0[i];
        const float b = (2.0f * u0[i] - keep * p0[i] + a * (2.0f * lu + lp)) * inv;
        const float y = 2.0f * u0[i] - p0[i];
        out[i] = b;
        swept[i] = y + (b - (y - alpha * (2.0f * lu - lp))) * invDiag;
    }
    edge(0);
    edge(nx - 1);
}

/// The second sweep of row j: x1 = x0 + (b - (I - alpha L) x0) / (1 + 4 alpha), x0's rows as
/// `r` (with the boundary's ghost rows), b the row's right-hand side.
void sweepRow(const GridCoeffs& k, const Rows& r, const float* b, float* x1) {
    const float alpha = k.a / (1.0f + k.g);
    const float invDiag = 1.0f / (1.0f + 4.0f * alpha);
    const int nx = k.nx;
    const float* x0 = r.row;
    const float* up = r.up;
    const float* dn = r.dn;
    const auto edge = [&](int i) {
        x1[i] = x0[i] + (b[i] - (x0[i] - alpha * lapAt(r, i, nx, k.neumannX))) * invDiag;
    };
#pragma omp simd
    for (int i = 1; i < nx - 1; ++i) {
        const float lx = x0[i - 1] + x0[i + 1] + up[i] + dn[i] - 4.0f * x0[i];
        x1[i] = x0[i] + (b[i] - (x0[i] - alpha * lx)) * invDiag;
    }
    edge(0);
    edge(nx - 1);
}

}  // namespace

void cnRhs(const exec::Executor& ex, const GridCoeffs& k, const float* u, const float* uPrev,
           float* rhs, float* guess, bool warmStart) {
    const float* zeros = zeroRow(k.nx);
    const auto nx = static_cast<std::size_t>(k.nx);
    if (!warmStart) {
        forRows(ex, k, [&, zeros](int j) {
            thread_local std::vector<float> unused;
            unused.resize(nx);
            rhsRow(k, u, uPrev, j, zeros, rhs + j * nx, unused.data());
            std::fill(guess + j * nx, guess + (j + 1) * nx, 0.0f);
        });
        return;
    }
    // Chunks of rows: the first sweep of the chunk's rows and of the one above and below it
    // into scratch (the halo rows' right-hand side too, not stored: the next chunk writes it),
    // then the second sweep of the chunk's rows into guess.
    const int blocks = static_cast<int>(exec::chunkCount(k.ny, kSweepBlockRows));
    ex.parallelFor(
        blocks,
        [&, zeros](std::ptrdiff_t block) {
            const int j0 = static_cast<int>(block) * kSweepBlockRows;
            const int j1 = std::min(k.ny, j0 + kSweepBlockRows);
            const int h0 = std::max(0, j0 - 1);
            const int h1 = std::min(k.ny, j1 + 1);
            thread_local std::vector<float> scratch;
            scratch.resize(static_cast<std::size_t>(h1 - h0 + 1) * nx);
            float* haloRhs = scratch.data() + static_cast<std::size_t>(h1 - h0) * nx;
            const auto x0 = [&](int j) {
                return scratch.data() + static_cast<std::size_t>(j - h0) * nx;
            };
            for (int j = h0; j < h1; ++j) {
                const bool own = j >= j0 && j < j1;
                rhsRow(k, u, uPrev, j, zeros, own ? rhs + j * nx : haloRhs, x0(j));
            }
            for (int j = j0; j < j1; ++j) {
                const Rows r{j > 0 ? x0(j - 1) : (k.neumannY ? x0(j) : zeros), x0(j),
                             j + 1 < k.ny ? x0(j + 1) : (k.neumannY ? x0(j) : zeros)};
                sweepRow(k, r, rhs + j * nx, guess + j * nx);
            }
        },
        std::ptrdiff_t{k.nx} * k.ny);
}

namespace {

// Value at (i, j) with ghost cells, for the scalar references.
template <typename T>
double at(const GridCoeffs& k, const T* u, int i, int j, int ci, int cj) {
    if (i >= 0 && i < k.nx && j >= 0 && j < k.ny) {
        return u[static_cast<std::size_t>(j) * k.nx + i];
    }
    const bool mirrored = (i < 0 || i >= k.nx) ? k.neumannX : k.neumannY;
    return mirrored ? u[static_cast<std::size_t>(cj) * k.nx + ci] : 0.0;
}

template <typename T>
double lapRef(const GridCoeffs& k, const T* u, int i, int j) {
    return at(k, u, i - 1, j, i, j) + at(k, u, i + 1, j, i, j) + at(k, u, i, j - 1, i, j) +
           at(k, u, i, j + 1, i, j) - 4.0 * at(k, u, i, j, i, j);
}

}  // namespace

void cnRhsReference(const GridCoeffs& k, const float* u, const float* uPrev, float* rhs,
                    float* guess) {
    const double alpha = double(k.a) / (1.0 + k.g);
    const double invDiag = 1.0 / (1.0 + 4.0 * alpha);
    const std::size_t cells = static_cast<std::size_t>(k.nx) * k.ny;
    std::vector<double> b(cells);
    std::vector<double> x0(cells);
    for (int j = 0; j < k.ny; ++j) {
        for (int i = 0; i < k.nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
            const double lu = lapRef(k, u, i, j);
            const double lp = lapRef(k, uPrev, i, j);
            b[c] = (2.0 * u[c] - (1.0 - k.g) * uPrev[c] + k.a * (2.0 * lu + lp)) / (1.0 + k.g);
            rhs[c] = static_cast<float>(b[c]);
            const double y = 2.0 * u[c] - double(uPrev[c]);
            x0[c] = y + (b[c] - (y - alpha * (2.0 * lu - lp))) * invDiag;
        }
    }
    if (guess == nullptr) {
        return;
    }
    for (int j = 0; j < k.ny; ++j) {
        for (int i = 0; i < k.nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
            const double lx = lapRef(k, x0.data(), i, j);
            guess[c] = static_cast<float>(x0[c] + (b[c] - (x0[c] - alpha * lx)) * invDiag);
        }
    }
}

void explicitStep(const exec::Executor& ex, const GridCoeffs& k, const float* u, const float* uPrev,
                  float* uNext) {
    const float* zeros = zeroRow(k.nx);
    const float c2 = 4.0f * k.a;
    const float inv = 1.0f / (1.0f + k.g);
    const float keep = 1.0f - k.g;
    const int nx = k.nx;
    forRows(ex, k, [&](int j) {
        const Rows ru = rowsOf(k, u, j, zeros);
        const float* rp = uPrev + static_cast<std::size_t>(j) * nx;
        float* out = uNext + static_cast<std::size_t>(j) * nx;
        auto edge = [&](int i) {
            out[i] = (2.0f * ru.row[i] - keep * rp[i] + c2 * lapAt(ru, i, nx, k.neumannX)) * inv;
        };
        edge(0);
#pragma omp simd
        for (int i = 1; i < nx - 1; ++i) {
            const float lu = ru.row[i - 1] + ru.row[i + 1] + ru.up[i] + ru.dn[i] - 4.0f * ru.row[i];
            out[i] = (2.0f * ru.row[i] - keep * rp[i] + c2 * lu) * inv;
        }
        edge(nx - 1);
    });
}

void explicitStepReference(const GridCoeffs& k, const float* u, const float* uPrev, float* uNext) {
    for (int j = 0; j < k.ny; ++j) {
        for (int i = 0; i < k.nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
            uNext[c] = static_cast<float>(
                (2.0 * u[c] - (1.0 - k.g) * uPrev[c] + 4.0 * k.a * lapRef(k, u, i, j)) /
                (1.0 + k.g));
        }
    }
}

namespace {

// dt v^n of the pair (u, uPrev) at cell (i, j), see wave_kernels.h.
double dtVelocity(const GridCoeffs& k, bool crankNicolson, const float* u, const float* uPrev,
                  int i, int j) {
    const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
    const double w = double(u[c]) - uPrev[c];
    if (crankNicolson) {
        return (1.0 - k.g) * w + k.a * (lapRef(k, u, i, j) + lapRef(k, uPrev, i, j));
    }
    return (w + 2.0 * k.a * lapRef(k, u, i, j)) / (1.0 + k.g);
}

}  // namespace

double energyReference(const GridCoeffs& k, bool crankNicolson, float cellSize, float waveSpeed,
                       float dt, const float* u, const float* uPrev) {
    // Potential term: sum over the edges (i,j)-(i+1,j) and (i,j)-(i,j+1), plus Dirichlet ghost
    // edges. CN: the state energy of (u^n, v^n); leapfrog: its modified energy, the bilinear
    // form at (u, uPrev) with v = (u - uPrev) / dt.
    double kinetic = 0.0;
    double potential = 0.0;
    auto edge = [&](std::size_t p, std::size_t q) {
        if (crankNicolson) {
            const double d = double(u[p]) - u[q];
            return d * d;
        }
        return (double(u[p]) - u[q]) * (double(uPrev[p]) - uPrev[q]);
    };
    auto ghost = [&](std::size_t p) {
        return crankNicolson ? double(u[p]) * u[p] : double(u[p]) * uPrev[p];
    };
    for (int j = 0; j < k.ny; ++j) {
        for (int i = 0; i < k.nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
            const double v = crankNicolson ? dtVelocity(k, true, u, uPrev, i, j) / dt
                                           : (double(u[c]) - uPrev[c]) / dt;
            kinetic += v * v;
            if (i + 1 < k.nx) {
                potential += edge(c, c + 1);
            }
            if (j + 1 < k.ny) {
                potential += edge(c, c + static_cast<std::size_t>(k.nx));
            }
            const int ghosts = (k.neumannX ? 0 : (i == 0) + (i + 1 == k.nx)) +
                               (k.neumannY ? 0 : (j == 0) + (j + 1 == k.ny));
            potential += ghosts * ghost(c);
        }
    }
    const double h2 = double(cellSize) * cellSize;
    return 0.5 * h2 * kinetic + 0.5 * double(waveSpeed) * waveSpeed * potential;
}

namespace {

/// Rows per chunk of energy's sums.
constexpr int kEnergyChunkRows = 16;

struct EnergySums {
    double kinetic = 0.0;    ///< sum of (dt v)^2
    double potential = 0.0;  ///< sum over the edges and the Dirichlet ghost edges
};

/// Row j's terms of energyReference's sums, its interior columns vectorized.
EnergySums energyRow(const GridCoeffs& k, bool crankNicolson, const float* u, const float* uPrev,
                     int j, const float* zeros) {
    const int nx = k.nx;
    const double a = k.a;
    const double keep = 1.0 - k.g;
    const Rows ru = rowsOf(k, u, j, zeros);
    const Rows rp = rowsOf(k, uPrev, j, zeros);
    const float* u0 = ru.row;
    const float* p0 = rp.row;
    const float* uUp = ru.up;
    const float* uDn = ru.dn;
    const float* pUp = rp.up;
    const float* pDn = rp.dn;
    const bool below = j + 1 < k.ny;  // the edge to row j + 1 exists (not a ghost)
    // Dirichlet ghost edges of this row's cells along y (both ends for a one-row grid).
    const int ghostsY = k.neumannY ? 0 : (j == 0) + (j + 1 == k.ny);
    // Cell i's terms, one at a time (the first and last columns): dt v (CN's state velocity,
    // leapfrog's difference), its x and y edges and its Dirichlet ghost edges.
    const auto lap = [&](const Rows& r, int i) {
        const double c = r.row[i];
        const double ghost = k.neumannX ? c : 0.0;
        return (i > 0 ? double(r.row[i - 1]) : ghost) +
               (i + 1 < nx ? double(r.row[i + 1]) : ghost) + r.up[i] + r.dn[i] - 4.0 * c;
    };
    const auto terms = [&](int i, double& kin, double& pot) {
        const double w = double(u0[i]) - p0[i];
        const double v = crankNicolson ? keep * w + a * (lap(ru, i) + lap(rp, i)) : w;
        kin += v * v;
        const auto edge = [&](double du, double dp) { return crankNicolson ? du * du : du * dp; };
        if (i + 1 < nx) {
            pot += edge(double(u0[i]) - u0[i + 1], double(p0[i]) - p0[i + 1]);
        }
        if (below) {
            pot += edge(double(u0[i]) - uDn[i], double(p0[i]) - pDn[i]);
        }
        const int ghostsX = k.neumannX ? 0 : (i == 0) + (i + 1 == nx);
        const double ghost = crankNicolson ? double(u0[i]) * u0[i] : double(u0[i]) * p0[i];
        pot += (ghostsX + ghostsY) * ghost;
    };
    EnergySums s;
    double kin = 0.0;
    double pot = 0.0;
#pragma omp simd reduction(+ : kin, pot)
    for (int i = 1; i < nx - 1; ++i) {
        const double lu = double(u0[i - 1]) + u0[i + 1] + uUp[i] + uDn[i] - 4.0 * double(u0[i]);
        const double lp = double(p0[i - 1]) + p0[i + 1] + pUp[i] + pDn[i] - 4.0 * double(p0[i]);
        const double w = double(u0[i]) - p0[i];
        const double v = crankNicolson ? keep * w + a * (lu + lp) : w;
        kin += v * v;
        const double dxu = double(u0[i]) - u0[i + 1];
        const double dxp = double(p0[i]) - p0[i + 1];
        const double dyu = below ? double(u0[i]) - uDn[i] : 0.0;
        const double dyp = below ? double(p0[i]) - pDn[i] : 0.0;
        const double ghost = crankNicolson ? double(u0[i]) * u0[i] : double(u0[i]) * p0[i];
        pot += (crankNicolson ? dxu * dxu + dyu * dyu : dxu * dxp + dyu * dyp) + ghostsY * ghost;
    }
    s.kinetic = kin;
    s.potential = pot;
    terms(0, s.kinetic, s.potential);
    if (nx > 1) {
        terms(nx - 1, s.kinetic, s.potential);
    }
    return s;
}

}  // namespace

double energy(const exec::Executor& ex, const GridCoeffs& k, bool crankNicolson, float cellSize,
              float waveSpeed, float dt, const float* u, const float* uPrev) {
    const float* zeros = zeroRow(k.nx);
    const EnergySums sums = ex.reduce(
        exec::chunkCount(k.ny, kEnergyChunkRows), EnergySums{},
        [&, zeros](std::ptrdiff_t c) {
            EnergySums part;
            const int first = static_cast<int>(c) * kEnergyChunkRows;
            for (int j = first; j < std::min(k.ny, first + kEnergyChunkRows); ++j) {
                const EnergySums row = energyRow(k, crankNicolson, u, uPrev, j, zeros);
                part.kinetic += row.kinetic;
                part.potential += row.potential;
            }
            return part;
        },
        [](EnergySums acc, const EnergySums& part) {
            acc.kinetic += part.kinetic;
            acc.potential += part.potential;
            return acc;
        },
        std::ptrdiff_t{k.nx} * k.ny);
    const double h2 = double(cellSize) * cellSize;
    const double kinetic = sums.kinetic / (double(dt) * dt);
    return 0.5 * h2 * kinetic + 0.5 * double(waveSpeed) * waveSpeed * sums.potential;
}

void retime(const Retime& r, const float* u, const float* uPrev, float* out, float* guess) {
    const GridCoeffs& k = r.to;
    const double s = r.dtRatio;
    for (int j = 0; j < k.ny; ++j) {
        for (int i = 0; i < k.nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
            const double dtv = dtVelocity(r.from, r.fromCn, u, uPrev, i, j);
            const double lu = lapRef(k, u, i, j);
            if (r.toCn) {
                const double beta = double(k.a) / (1.0 - k.g);
                out[c] = static_cast<float>(u[c] + beta * lu - s * dtv / (1.0 - k.g));
                guess[c] = static_cast<float>(u[c] - s * (double(u[c]) - uPrev[c]));
            } else {
                out[c] = static_cast<float>(u[c] + 2.0 * k.a * lu - (1.0 + k.g) * s * dtv);
            }
        }
    }
}

namespace {

// Calls f(cell, bump) for each cell whose centre lies within 3 radius of the impulse's centre,
// bump = amplitude exp(-(d / radius)^2) in float: the cells and values applyImpulse adds and
// impulseVolume sums (wave_disturb.comp forms the same bump on the GPU).
template <typename F>
void forImpulseCells(int nx, int ny, float cellSize, const Impulse& d, F&& f) {
    const float reach = 3.0f * d.radiusM;
    const int i0 = std::max(0, static_cast<int>(std::floor((d.xM - reach) / cellSize)));
    const int i1 = std::min(nx - 1, static_cast<int>(std::ceil((d.xM + reach) / cellSize)));
    const int j0 = std::max(0, static_cast<int>(std::floor((d.yM - reach) / cellSize)));
    const int j1 = std::min(ny - 1, static_cast<int>(std::ceil((d.yM + reach) / cellSize)));
    const float invR2 = 1.0f / (d.radiusM * d.radiusM);
    for (int j = j0; j <= j1; ++j) {
        for (int i = i0; i <= i1; ++i) {
            const float dx = (static_cast<float>(i) + 0.5f) * cellSize - d.xM;
            const float dy = (static_cast<float>(j) + 0.5f) * cellSize - d.yM;
            const float r2 = dx * dx + dy * dy;
            if (r2 < reach * reach) {
                f(static_cast<std::size_t>(j) * nx + i, d.amplitude * std::exp(-r2 * invR2));
            }
        }
    }
}

}  // namespace

void applyImpulse(const GridCoeffs& k, float cellSize, const Impulse& d, float* u, float* uPrev) {
    forImpulseCells(k.nx, k.ny, cellSize, d, [&](std::size_t c, float bump) {
        u[c] += bump;
        if (d.bothLevels != 0u) {
            uPrev[c] += bump;
        }
    });
}

double impulseVolume(int nx, int ny, float cellSize, const Impulse& d) {
    double sum = 0.0;
    forImpulseCells(nx, ny, cellSize, d,
                    [&](std::size_t, float bump) { sum += static_cast<double>(bump); });
    return sum;
}

}  // namespace ww::wave
