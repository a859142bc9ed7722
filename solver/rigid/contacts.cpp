// Contact frames and warm-start persistence (see contacts.h).
#include "solver/rigid/contacts.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ww::rigid {

void tangentBasis(const Vec3& n, Vec3& t1, Vec3& t2) {
    // Cross with the world axis least aligned with n: continuous in n near the wall's
    // normals (x, y, z and their negatives), which is where persistence matters.
    const Vec3 ax = std::fabs(n.x) < 0.57735f
                        ? Vec3{1, 0, 0}
                        : (std::fabs(n.y) < 0.57735f ? Vec3{0, 1, 0} : Vec3{0, 0, 1});
    t1 = normalize(cross(n, ax));
    t2 = cross(n, t1);
}

void ContactCache::store(const std::vector<Contact>& contacts) {
    m_entries.clear();
    for (const Contact& c : contacts) {
        m_entries.push_back(
            {c.bodyA, c.bodyB, c.feature, {c.impulse[0], c.impulse[1], c.impulse[2]}, c.normal});
    }
    std::sort(m_entries.begin(), m_entries.end(), [](const Entry& x, const Entry& y) {
        return std::tie(x.bodyA, x.bodyB, x.feature) < std::tie(y.bodyA, y.bodyB, y.feature);
    });
}

int ContactCache::warmStart(std::vector<Contact>& contacts, float factor) const {
    int matched = 0;
    for (Contact& c : contacts) {
        const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), c,
                                         [](const Entry& e, const Contact& k) {
                                             return std::tie(e.bodyA, e.bodyB, e.feature) <
                                                    std::tie(k.bodyA, k.bodyB, k.feature);
                                         });
        // A feature whose normal turned by more than ~25 degrees is a different contact.
        if (it != m_entries.end() && it->bodyA == c.bodyA && it->bodyB == c.bodyB &&
            it->feature == c.feature && dot(it->normal, c.normal) > 0.9f) {
            for (int r = 0; r < 3; ++r) {
                c.impulse[r] = factor * it->impulse[r];
            }
            c.warmStarted = true;
            ++matched;
        } else {
            c.impulse[0] = c.impulse[1] = c.impulse[2] = 0.0f;
            c.warmStarted = false;
        }
    }
    return matched;
}

void ContactCache::removeBody(int body) {
    std::erase_if(m_entries, [&](const Entry& e) { return e.bodyA == body || e.bodyB == body; });
    for (Entry& e : m_entries) {
        e.bodyA -= e.bodyA > body ? 1 : 0;
        e.bodyB -= e.bodyB > body ? 1 : 0;
    }
    std::sort(m_entries.begin(), m_entries.end(), [](const Entry& x, const Entry& y) {
        return std::tie(x.bodyA, x.bodyB, x.feature) < std::tie(y.bodyA, y.bodyB, y.feature);
    });
}

}  // namespace ww::rigid
