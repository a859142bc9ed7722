// Bajaj et al.'s Table 3 problem and its stationary solvers (see poisson3d.h).
#include "app/bench/poisson3d.h"

#include <cmath>
#include <utility>

#include "solver/core/timer.h"

namespace ww::bench {

cg::BandedOperator poisson3d(int nx, int ny, int nz) {
    const std::size_t n = static_cast<std::size_t>(nx) * ny * nz;
    const int sy = nx;
    const int sz = nx * ny;
    std::vector<int> offsets = {-sz, -sy, -1, 0, 1, sy, sz};
    std::vector<std::vector<float>> bands(offsets.size(), std::vector<float>(n, 0.0f));
    for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                const std::size_t r = static_cast<std::size_t>(k) * sz + j * sy + i;
                float diag = 6.0f;
                const bool has[7] = {k > 0,      j > 0,      i > 0,     false,
                                     i + 1 < nx, j + 1 < ny, k + 1 < nz};
                for (int d = 0; d < 7; ++d) {
                    if (has[d]) {
                        bands[d][r] = -1.0f;
                    } else if (d != 3 && d != 2 && d != 4) {
                        diag -= 1.0f;  // Neumann (y, z): the mirrored neighbour is x_ijk
                    }
                }
                bands[3][r] = diag;
            }
        }
    }
    return std::move(cg::BandedOperator::create(n, std::move(offsets), std::move(bands))).value();
}

void gaussSeidelSweep(const cg::BandedOperator& a, std::span<const float> b, std::span<float> x) {
    const long n = static_cast<long>(a.size());
    const std::vector<int>& off = a.offsets();
    const int diagBand = a.diagonalBand();
    const float* bands = a.bandData().data();
    const int nb = static_cast<int>(off.size());
    for (long i = 0; i < n; ++i) {
        float s = b[static_cast<std::size_t>(i)];
        for (int d = 0; d < nb; ++d) {
            const long j = i + off[static_cast<std::size_t>(d)];
            if (d != diagBand && j >= 0 && j < n) {
                s -= bands[static_cast<std::size_t>(d) * n + i] * x[static_cast<std::size_t>(j)];
            }
        }
        x[static_cast<std::size_t>(i)] = s / bands[static_cast<std::size_t>(diagBand) * n + i];
    }
}

double relativeResidual(const cg::BandedOperator& a, std::span<const float> b,
                        std::span<const float> x) {
    std::vector<double> xd(x.begin(), x.end());
    std::vector<double> ax(x.size());
    a.applyReference(xd, ax);
    double rr = 0.0;
    double bb = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double r = double(b[i]) - ax[i];
        rr += r * r;
        bb += double(b[i]) * double(b[i]);
    }
    return bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

std::vector<Crossing> sweepToTolerances(const std::function<void()>& sweep,
                                        const std::function<double()>& residual,
                                        const std::vector<double>& tolerances, int checkEvery,
                                        int maxSweeps) {
    std::vector<Crossing> out;
    for (double t : tolerances) {
        out.push_back({t, 0, 0.0});
    }
    std::size_t next = 0;
    Stopwatch sw;
    for (int s = 1; s <= maxSweeps && next < out.size(); ++s) {
        sweep();
        if (s % checkEvery != 0 && s != maxSweeps) {
            continue;
        }
        const double r = residual();
        while (next < out.size() && r <= out[next].tolerance) {
            out[next].iterations = s;
            out[next].ms = sw.elapsedMs();
            ++next;
        }
    }
    return out;
}

}  // namespace ww::bench
