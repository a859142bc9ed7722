// Broad phase: sort and sweep along x. Bounding boxes (fattened by the contact margin) are
// kept in an order that persists between steps, so the insertion sort that restores it is
// O(n) when little moves; the sweep then tests only boxes whose x-intervals overlap, for
// O(n log n + pairs) per step instead of O(n^2). Planes are unbounded and are paired with
// every non-static body directly. Each box is fattened by what its speed can carry it in
// one step, so fast projectiles find their contacts before they tunnel. Static-static pairs are
// skipped.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/rigid/body.h"

namespace ww::rigid {

/// margin + (|v| + |w| R) dt, R the distance of the body's farthest point from its centre (the
/// box's half diagonal, the sphere's radius): how far ahead a body looks for contacts, m, at
/// least as far as any of its points moves in a step.
float speculativeMargin(const Body& b, float margin, float dt);

class BroadPhase {
  public:
    /// Candidate pairs (i < j, sorted) whose bounds overlap, each body's bounds fattened by
    /// margin + |v| * dt (speculative: what it can reach within the step). `pairs` is cleared
    /// first. With an executor the sweep runs on its threads in fixed chunks of the order (the
    /// same pairs).
    void findPairs(const std::vector<Body>& bodies, float margin, float dt,
                   std::vector<std::pair<int, int>>& pairs, const exec::Executor* ex = nullptr);
    /// Reference path for tests: all pairs tested directly, same output.
    static void findPairsBruteForce(const std::vector<Body>& bodies, float margin, float dt,
                                    std::vector<std::pair<int, int>>& pairs);

    /// Forgets the persistent order (call when bodies are added or removed).
    void invalidate() { m_order.clear(); }

  private:
    static constexpr std::size_t kSweepLanes = 8;  ///< candidates a vector step tests

    /// The pairs of order position k with the positions after it (the sweep's inner loop).
    void sweepFrom(std::size_t k, std::vector<std::pair<int, int>>& out) const;

    std::vector<int> m_order;  ///< indices of bounded bodies, sorted by lower x
    std::vector<Aabb> m_bounds;
    /// The bounds in m_order's order by plane (lower x, upper x, lower y, ... upper z), and
    /// whether each is a static body's (-1) or not (0), each kSweepLanes past the last body:
    /// what the sweep streams, a body's candidates one after another (in a wall sorted by x, a
    /// body's candidates are its column and the next one: 40-150 of them), eight to a load.
    std::vector<float> m_sweepBounds[6];
    std::vector<std::int32_t> m_sweepStatic;
    std::vector<std::vector<std::pair<int, int>>> m_chunkPairs;  ///< the sweep's, per chunk
    std::vector<int> m_firstStart;                               ///< pairs by first body
    std::vector<std::pair<int, int>> m_sorted;
};

}  // namespace ww::rigid
