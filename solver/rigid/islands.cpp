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
                          IslandSet& out) {
    const int n = static_cast<int>(bodies.size());
    m_parent.resize(n);
    for (int i = 0; i < n; ++i) {
        m_parent[i] = i;
    }
    for (const Contact& c : contacts) {
        if (bodies[c.bodyA].isStatic() || bodies[c.bodyB].isStatic()) {
            continue;
        }
        const int ra = find(c.bodyA);
        const int rb = find(c.bodyB);
        if (ra != rb) {
            m_parent[std::max(ra, rb)] = std::min(ra, rb);  // root = smallest index
        }
    }
    // Label islands by their root (the smallest body index) in increasing order.
    m_label.assign(n, -1);
    int islands = 0;
    for (int i = 0; i < n; ++i) {
        const int r = find(i);
        if (r == i) {
            m_label[i] = islands++;
        }
    }
    const auto islandOf = [&](const Contact& c) {
        const int body = bodies[c.bodyA].isStatic() ? c.bodyB : c.bodyA;
        return m_label[find(body)];
    };
    m_counts.assign(islands + 1, 0);
    for (const Contact& c : contacts) {
        ++m_counts[islandOf(c) + 1];
    }
    // Keep only islands that have contacts.
    out.islandStart.clear();
    out.islandStart.push_back(0);
    std::vector<int>& offset = m_counts;
    int running = 0;
    for (int k = 0; k < islands; ++k) {
        const int cnt = offset[k + 1];
        offset[k + 1] = running;
        running += cnt;
        if (cnt > 0) {
            out.islandStart.push_back(running);
        }
    }
    out.contactOrder.resize(contacts.size());
    for (int ci = 0; ci < static_cast<int>(contacts.size()); ++ci) {
        out.contactOrder[offset[islandOf(contacts[ci]) + 1]++] = ci;
    }
}

}  // namespace ww::rigid
