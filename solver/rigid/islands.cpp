// Union-find over contacts (see islands.h).
#include "solver/rigid/islands.h"

#include <algorithm>

namespace ww::rigid {

int IslandBuilder::find(int i) {
    while (m_parent[i] != i) {
        m_parent[i] = m_parent[m_parent[i]];
        i = m_parent[i];
    }
    return i;
}

void IslandBuilder::build(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                          IslandSet& out, const exec::Executor* ex) {
    const int n = static_cast<int>(bodies.size());
    const auto nc = static_cast<int>(contacts.size());
    constexpr std::ptrdiff_t kChunk = 2048;  // contacts per chunk of the per-contact passes
    // What the passes need of a contact (large records), read on the executor: its island's
    // body, its non-static body (body B's when A is static), and the body pair it joins when
    // both are non-static (-1 otherwise).
    m_contactBody.resize(static_cast<std::size_t>(nc));
    m_join.resize(static_cast<std::size_t>(nc));
    exec::forRanges(
        ex, nc, kChunk,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto ci = static_cast<std::size_t>(first); ci < static_cast<std::size_t>(last);
                 ++ci) {
                const Contact& c = contacts[ci];
                const bool staticA = bodies[static_cast<std::size_t>(c.bodyA)].isStatic();
                const bool staticB = bodies[static_cast<std::size_t>(c.bodyB)].isStatic();
                m_contactBody[ci] = staticA ? c.bodyB : c.bodyA;
                m_join[ci] = staticA || staticB ? std::pair{-1, -1} : std::pair{c.bodyA, c.bodyB};
            }
        },
        static_cast<std::ptrdiff_t>(8) * nc);
    // The islands are a function of these two arrays and the body count: when they are those
    // of the last build (a resting pile, step after step), so is the answer.
    if (n == m_lastBodies && exec::equalChunked(ex, m_contactBody, m_lastContactBody) &&
        exec::equalChunked(ex, m_join, m_lastJoin)) {
        out = m_last;
        return;
    }
    m_lastBodies = n;
    exec::copyChunked(ex, m_contactBody, m_lastContactBody);
    exec::copyChunked(ex, m_join, m_lastJoin);
    m_parent.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        m_parent[static_cast<std::size_t>(i)] = i;
    }
    // The unions, in contact order; a manifold's points name the same pair one after another
    // and join nothing new after the first.
    std::pair<int, int> previous{-1, -1};
    for (const std::pair<int, int>& pair : m_join) {
        if (pair.first < 0 || pair == previous) {
            continue;
        }
        previous = pair;
        const int ra = find(pair.first);
        const int rb = find(pair.second);
        if (ra != rb) {
            m_parent[static_cast<std::size_t>(std::max(ra, rb))] =
                std::min(ra, rb);  // root = smallest index
        }
    }
    // Label islands by their root (the smallest body index) in increasing order; a root comes
    // before the bodies of its island, so each body takes its root's label in the same pass.
    m_label.resize(static_cast<std::size_t>(n));
    int islands = 0;
    for (int i = 0; i < n; ++i) {
        const int r = find(i);
        m_label[static_cast<std::size_t>(i)] =
            r == i ? islands++ : m_label[static_cast<std::size_t>(r)];
    }
    // From here on a contact's entry is its island.
    exec::forRanges(
        ex, nc, kChunk,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto ci = static_cast<std::size_t>(first); ci < static_cast<std::size_t>(last);
                 ++ci) {
                m_contactBody[ci] = m_label[static_cast<std::size_t>(m_contactBody[ci])];
            }
        },
        static_cast<std::ptrdiff_t>(nc));
    m_counts.assign(static_cast<std::size_t>(islands) + 1, 0);
    for (const int island : m_contactBody) {
        ++m_counts[static_cast<std::size_t>(island) + 1];
    }
    // Keep only islands that have contacts.
    out.islandStart.clear();
    out.islandStart.push_back(0);
    std::vector<int>& offset = m_counts;
    int running = 0;
    for (int k = 0; k < islands; ++k) {
        const int cnt = offset[static_cast<std::size_t>(k) + 1];
        offset[static_cast<std::size_t>(k) + 1] = running;
        running += cnt;
        if (cnt > 0) {
            out.islandStart.push_back(running);
        }
    }
    out.contactOrder.resize(contacts.size());
    for (int ci = 0; ci < nc; ++ci) {
        const auto island = static_cast<std::size_t>(m_contactBody[static_cast<std::size_t>(ci)]);
        out.contactOrder[static_cast<std::size_t>(offset[island + 1]++)] = ci;
    }
    m_last = out;
}

}  // namespace ww::rigid
