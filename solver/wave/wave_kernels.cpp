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

void cnRhs(const exec::Executor& ex, const GridCoeffs& k, const float* u, const float* uPrev,
           float* rhs, float* guess, bool warmStart) {
    const float* zeros = zeroRow(k.nx);
    forRows(ex, k, [&, zeros](int j) {
        // Locals, not captures: the loops' stores could alias a captured reference, and each
        // step would reload it.
        const float a = k.a;
        const float inv = 1.0f / (1.0f + k.g);
        const float keep = 1.0f - k.g;
        // The warm start (wave_kernels.h): y = 2 u - uPrev, then one Jacobi sweep of
        // (I - alpha L) x = rhs from y, its L y = 2 L u - L uPrev from the Laplacians above.
        const float alpha = a * inv;
        const float invDiag = 1.0f / (1.0f + 4.0f * alpha);
        const int nx = k.nx;
        const Rows ru = rowsOf(k, u, j, zeros);
        const Rows rp = rowsOf(k, uPrev, j, zeros);
        float* out = rhs + static_cast<std::size_t>(j) * nx;
        float* gs = guess + static_cast<std::size_t>(j) * nx;
        const float* u0 = ru.row;
        const float* p0 = rp.row;
        const auto edge = [&](int i) {
            const float lu = lapAt(ru, i, nx, k.neumannX);
            const float lp = lapAt(rp, i, nx, k.neumannX);
            out[i] = (2.0f * u0[i] - keep * p0[i] + a * (2.0f * lu + lp)) * inv;
            const float y = 2.0f * u0[i] - p0[i];
            gs[i] = y + (out[i] - (y - alpha * (2.0f * lu - lp))) * invDiag;
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
            gs[i] = y + (b - (y - alpha * (2.0f * lu - lp))) * invDiag;
        }
        edge(0);
        edge(nx - 1);
        if (!warmStart) {
            std::fill(gs, gs + nx, 0.0f);
        }
    });
}

namespace {

// Value at (i, j) with ghost cells, for the scalar references.
double at(const GridCoeffs& k, const float* u, int i, int j, int ci, int cj) {
    if (i >= 0 && i < k.nx && j >= 0 && j < k.ny) {
        return u[static_cast<std::size_t>(j) * k.nx + i];
    }
    const bool mirrored = (i < 0 || i >= k.nx) ? k.neumannX : k.neumannY;
    return mirrored ? u[static_cast<std::size_t>(cj) * k.nx + ci] : 0.0;
}

double lapRef(const GridCoeffs& k, const float* u, int i, int j) {
    return at(k, u, i - 1, j, i, j) + at(k, u, i + 1, j, i, j) + at(k, u, i, j - 1, i, j) +
           at(k, u, i, j + 1, i, j) - 4.0 * at(k, u, i, j, i, j);
}

}  // namespace

void cnRhsReference(const GridCoeffs& k, const float* u, const float* uPrev, float* rhs,
                    float* guess) {
    const double alpha = double(k.a) / (1.0 + k.g);
    for (int j = 0; j < k.ny; ++j) {
        for (int i = 0; i < k.nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * k.nx + i;
            const double lu = lapRef(k, u, i, j);
            const double lp = lapRef(k, uPrev, i, j);
            const double b =
                (2.0 * u[c] - (1.0 - k.g) * uPrev[c] + k.a * (2.0 * lu + lp)) / (1.0 + k.g);
            rhs[c] = static_cast<float>(b);
            if (guess != nullptr) {
                const double y = 2.0 * u[c] - double(uPrev[c]);
                guess[c] = static_cast<float>(y + (b - (y - alpha * (2.0 * lu - lp))) /
                                                      (1.0 + 4.0 * alpha));
            }
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

double energy(const GridCoeffs& k, bool crankNicolson, float cellSize, float waveSpeed, float dt,
              const float* u, const float* uPrev) {
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
