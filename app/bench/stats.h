// Order statistics of timing samples, shared by the bench suites and the headless summary.
// quantile() interpolates linearly between order statistics (Hyndman & Fan's type 7, as
// numpy.quantile and R's default): q = 0.5 is the median (the mean of the two middle samples
// for an even count), q = 0 the minimum, q = 1 the maximum.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ww::bench {

/// Linearly interpolated quantile q in [0, 1] of `v` (0 when `v` is empty; q is clamped).
inline double quantile(std::vector<double> v, double q) {
    if (v.empty()) {
        return 0.0;
    }
    std::sort(v.begin(), v.end());
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

/// Median of `v` (0 when empty).
inline double median(std::vector<double> v) {
    return quantile(std::move(v), 0.5);
}

/// Percentile p in [0, 100] of `v`: quantile(v, p / 100).
inline double percentile(std::vector<double> v, double p) {
    return quantile(std::move(v), p / 100.0);
}

}  // namespace ww::bench
