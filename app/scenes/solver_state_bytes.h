// The solvers' saved states as bytes (state_bytes.h), written and read in one place for every
// scene that holds them: the rigid world (wall, splash) and the water surface (water, splash).
// A scene appends its own fields after these.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "app/scenes/state_bytes.h"
#include "solver/rigid/world.h"
#include "solver/wave/wave_model.h"

namespace ww::app {

static_assert(std::is_trivially_copyable_v<rigid::Body>);

/// The bodies (with their sleep state), the warm-start cache, the step count, the lambda_max
/// estimate's start (World::State::lambdaModes) and the bodies' last estimates (lambdaOfBody).
inline void putWorldState(ByteWriter& w, const rigid::World::State& s) {
    w.putVector(s.bodies);
    w.putVector(s.cache.entries());
    w.put(static_cast<std::int64_t>(s.steps));
    w.putVector(s.lambdaModes);
    w.putVector(s.lambdaOfBody);
}

enum class WorldBytes {
    kOk,
    kTruncated,    ///< the bytes end early
    kUnknownBody,  ///< the warm-start cache names a body the state does not have
};

/// Reads what putWorldState() wrote.
inline WorldBytes getWorldState(ByteReader& r, rigid::World::State& s) {
    std::vector<rigid::ContactCache::Entry> cache;
    std::int64_t steps = 0;
    if (!r.getVector(s.bodies) || !r.getVector(cache) || !r.get(steps) ||
        !r.getVector(s.lambdaModes) || !r.getVector(s.lambdaOfBody)) {
        return WorldBytes::kTruncated;
    }
    // None yet, or kBodyFloats (one) a body: anything else is not a world's.
    if ((!s.lambdaModes.empty() &&
         s.lambdaModes.size() != lcp::RowOperator::kBodyFloats * s.bodies.size()) ||
        (!s.lambdaOfBody.empty() && s.lambdaOfBody.size() != s.bodies.size())) {
        return WorldBytes::kTruncated;
    }
    const auto n = static_cast<int>(s.bodies.size());
    for (const auto& e : cache) {
        if (e.bodyA < 0 || e.bodyA >= n || e.bodyB < 0 || e.bodyB >= n) {
            return WorldBytes::kUnknownBody;
        }
    }
    s.cache.setEntries(std::move(cache));
    s.steps = static_cast<long>(steps);
    return WorldBytes::kOk;
}

/// The heights u^n and u^n-1, queued drops, the rain (with its random state), the wake, the
/// step count and the time.
inline void putWaveState(ByteWriter& w, const wave::WaveModel::State& m) {
    w.putVector(m.u);
    w.putVector(m.uPrev);
    w.putVector(m.pending);
    w.put(static_cast<std::uint8_t>(m.rainOn));
    w.put(m.rainRate);
    w.put(m.rainAmplitude);
    w.put(m.rainRadius);
    w.put(m.rng);
    w.putVector(m.wakePath);
    w.put(m.wakeSpeed);
    w.put(m.wakeDepthRate);
    w.put(m.wakeRadius);
    w.put(m.wakeDistance);
    w.put(static_cast<std::int64_t>(m.steps));
    w.put(m.time);
}

/// Reads what putWaveState() wrote; false when the bytes end early.
inline bool getWaveState(ByteReader& r, wave::WaveModel::State& m) {
    std::uint8_t rain = 0;
    std::int64_t steps = 0;
    if (!(r.getVector(m.u) && r.getVector(m.uPrev) && r.getVector(m.pending) && r.get(rain) &&
          r.get(m.rainRate) && r.get(m.rainAmplitude) && r.get(m.rainRadius) && r.get(m.rng) &&
          r.getVector(m.wakePath) && r.get(m.wakeSpeed) && r.get(m.wakeDepthRate) &&
          r.get(m.wakeRadius) && r.get(m.wakeDistance) && r.get(steps) && r.get(m.time))) {
        return false;
    }
    m.rainOn = rain != 0;
    m.steps = static_cast<long>(steps);
    return true;
}

}  // namespace ww::app
