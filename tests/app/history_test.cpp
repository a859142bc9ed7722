// The demo's history ring (app/demo/history.h): bounded by simulated seconds and by bytes
// (oldest dropped first, the newest always kept), moving back and forth clamps to the ring,
// and pushing while an older state is shown drops the newer ones (a re-run), on fresh random
// sequences of pushes and moves checked against a plain model of the same rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "app/demo/history.h"
#include "support/seed.h"

namespace ww::demo {
namespace {

struct Tagged final : SavedState {
    int tag;
    std::size_t size;
    Tagged(int t, std::size_t s) : tag(t), size(s) {}
    std::size_t bytes() const override { return size; }
};

// The model: a vector of (tag, bytes, time), a position; the same rules written directly.
struct Model {
    struct E {
        int tag;
        std::size_t bytes;
        double t;
    };
    std::vector<E> e;
    int pos = -1;
    std::size_t maxBytes;
    double maxSeconds;
    void push(int tag, std::size_t bytes, double t) {
        if (pos >= 0) {
            e.resize(static_cast<std::size_t>(pos) + 1);
        }
        e.push_back({tag, bytes, t});
        auto total = [&] {
            std::size_t s = 0;
            for (const E& x : e) {
                s += x.bytes;
            }
            return s;
        };
        while (e.size() > 1 && (total() > maxBytes || e.back().t - e.front().t > maxSeconds)) {
            e.erase(e.begin());
        }
        pos = static_cast<int>(e.size()) - 1;
    }
};

TEST(History, MatchesAPlainModelOnFreshRandomUse) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const std::size_t maxBytes = std::uniform_int_distribution<std::size_t>(500, 5000)(rng);
    const double maxSeconds = std::uniform_real_distribution<double>(0.2, 3.0)(rng);
    History h(maxBytes, maxSeconds);
    Model m{{}, -1, maxBytes, maxSeconds};
    int tag = 0;
    std::uniform_int_distribution<int> op(0, 9);
    for (int i = 0; i < 3000; ++i) {
        const int o = op(rng);
        if (o < 6) {
            const std::size_t bytes = std::uniform_int_distribution<std::size_t>(10, 400)(rng);
            const double t = (m.pos >= 0 ? m.e[static_cast<std::size_t>(m.pos)].t : 0.0) +
                             std::uniform_int_distribution<int>(1, 4)(rng) / 60.0;
            h.push(std::make_unique<Tagged>(++tag, bytes), t);
            m.push(tag, bytes, t);
        } else if (o < 9) {
            const int delta = std::uniform_int_distribution<int>(-5, 3)(rng);
            const SavedState* s = h.move(delta);
            const int want =
                m.e.empty() ? -1 : std::clamp(m.pos + delta, 0, static_cast<int>(m.e.size()) - 1);
            if (want == m.pos || want < 0) {
                EXPECT_EQ(s, nullptr) << "a move to the state shown restores nothing";
            } else {
                ASSERT_NE(s, nullptr);
                EXPECT_EQ(static_cast<const Tagged*>(s)->tag,
                          m.e[static_cast<std::size_t>(want)].tag);
                m.pos = want;
            }
        } else {
            const int index = std::uniform_int_distribution<int>(-1, 40)(rng);
            const SavedState* s = h.moveTo(index);
            if (index < 0 || index >= static_cast<int>(m.e.size()) || index == m.pos) {
                EXPECT_EQ(s, nullptr);
            } else {
                ASSERT_NE(s, nullptr);
                EXPECT_EQ(static_cast<const Tagged*>(s)->tag,
                          m.e[static_cast<std::size_t>(index)].tag);
                m.pos = index;
            }
        }
        ASSERT_EQ(h.size(), static_cast<int>(m.e.size())) << "after op " << i;
        ASSERT_EQ(h.position(), m.pos);
        std::size_t bytes = 0;
        for (const auto& x : m.e) {
            bytes += x.bytes;
        }
        ASSERT_EQ(h.bytes(), bytes);
        // The budgets hold unless a single state is over them (the newest always stays).
        if (h.size() > 1) {
            EXPECT_LE(h.bytes(), maxBytes);
            EXPECT_LE(h.spanSeconds(), maxSeconds + 1e-12);
        }
        if (!m.e.empty()) {  // moves before the first push leave it empty
            EXPECT_NEAR(h.backSeconds(), m.e.back().t - m.e[static_cast<std::size_t>(m.pos)].t,
                        1e-12);
        }
    }
}

TEST(History, ARerunFromAnOlderStateDropsTheNewerOnes) {
    History h(1 << 20, 100.0);
    for (int i = 0; i < 10; ++i) {
        h.push(std::make_unique<Tagged>(i, 8), i / 60.0);
    }
    const SavedState* s = h.move(-4);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(static_cast<const Tagged*>(s)->tag, 5);
    EXPECT_EQ(h.stepsBack(), 4);
    EXPECT_NEAR(h.backSeconds(), 4 / 60.0, 1e-12);
    h.push(std::make_unique<Tagged>(100, 8), h.shownSeconds() + 1 / 60.0);
    EXPECT_EQ(h.size(), 7);  // 0..5, then 100
    EXPECT_EQ(h.stepsBack(), 0);
    EXPECT_EQ(h.reruns(), 1);
    EXPECT_NEAR(h.spanSeconds(), 6 / 60.0, 1e-12);
    h.clear();
    EXPECT_EQ(h.size(), 0);
    EXPECT_EQ(h.move(-1), nullptr);
}

}  // namespace
}  // namespace ww::demo
