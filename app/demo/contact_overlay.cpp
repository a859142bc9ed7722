#include "app/demo/contact_overlay.h"

#include <cmath>

#include "solver/rigid/islands.h"

namespace ww::app {

namespace {

glm::vec3 toGlm(const rigid::Vec3& v) {
    return {v.x, v.y, v.z};
}

// Well-separated hues for consecutive islands (golden-ratio steps around the colour wheel).
glm::vec4 islandColour(int island) {
    if (island < 0) {
        return kNoIslandColour;
    }
    const float h = std::fmod(0.13f + 0.6180339f * static_cast<float>(island), 1.0f) * 6.0f;
    const float s = 0.7f;
    const float v = 0.92f;
    const float f = h - std::floor(h);
    const float p = v * (1.0f - s);
    const float q = v * (1.0f - s * f);
    const float t = v * (1.0f - s * (1.0f - f));
    switch (static_cast<int>(h) % 6) {
        case 0:
            return {v, t, p, 1.0f};
        case 1:
            return {q, v, p, 1.0f};
        case 2:
            return {p, v, t, 1.0f};
        case 3:
            return {p, q, v, 1.0f};
        case 4:
            return {t, p, v, 1.0f};
        default:
            return {v, p, q, 1.0f};
    }
}

void colourBodies(const rigid::World& world, demo::BodyColouring mode, render::DrawData& out) {
    const std::vector<rigid::Body>& bodies = world.bodies();
    std::vector<int> islands;
    std::vector<char> unconverged;
    if (mode == demo::BodyColouring::kIsland) {
        islands = islandOfBodies(world);
    } else if (mode == demo::BodyColouring::kConvergence) {
        unconverged = unconvergedBodies(world);
    }
    std::vector<char> solved(bodies.size(), 0);
    for (int k = 0; k < static_cast<int>(world.lcpBlocks().size()); ++k) {
        for (int c : world.blockContacts(k)) {
            const rigid::Contact& contact = world.contacts()[static_cast<std::size_t>(c)];
            solved[static_cast<std::size_t>(contact.bodyA)] = 1;
            solved[static_cast<std::size_t>(contact.bodyB)] = 1;
        }
    }
    std::size_t box = 0;
    std::size_t sphere = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const rigid::Body& b = bodies[i];
        glm::vec4* colour = nullptr;
        if (b.kind == rigid::BodyKind::kBox && box < out.boxes.size()) {
            colour = &out.boxes[box++].color;
        } else if (b.kind == rigid::BodyKind::kSphere && sphere < out.spheres.size()) {
            colour = &out.spheres[sphere++].color;
        }
        if (colour == nullptr || b.isStatic()) {
            continue;
        }
        switch (mode) {
            case demo::BodyColouring::kIsland:
                *colour = islandColour(islands[i]);
                break;
            case demo::BodyColouring::kSleep:
                *colour = b.asleep ? kAsleepColour : kAwakeColour;
                break;
            case demo::BodyColouring::kConvergence:
                *colour = unconverged[i] != 0 ? kNotConvergedColour
                          : solved[i] != 0    ? kConvergedColour
                                              : kUnsolvedColour;
                break;
            case demo::BodyColouring::kMaterial:
                break;
        }
    }
}

}  // namespace

float autoMetresPerImpulse(const rigid::World& world) {
    double mass = 0.0;
    int dynamic = 0;
    for (const rigid::Body& b : world.bodies()) {
        if (!b.isStatic()) {
            mass += 1.0 / static_cast<double>(b.invMass);
            ++dynamic;
        }
    }
    const float weightImpulse = static_cast<float>(mass / std::max(dynamic, 1)) *
                                rigid::length(world.params().gravity) * world.params().dtSeconds;
    return dynamic > 0 && weightImpulse > 0.0f ? demo::ContactOverlay::kAutoLengthM / weightImpulse
                                               : 1.0f;
}

std::vector<int> islandOfBodies(const rigid::World& world) {
    rigid::IslandBuilder builder;
    rigid::IslandSet set;
    builder.build(world.bodies(), world.contacts(), set);
    std::vector<int> island(world.bodies().size(), -1);
    for (int k = 0; k < set.count(); ++k) {
        for (int c : set.contactsOf(k)) {
            const rigid::Contact& contact = world.contacts()[static_cast<std::size_t>(c)];
            for (int b : {contact.bodyA, contact.bodyB}) {
                if (!world.bodies()[static_cast<std::size_t>(b)].isStatic()) {
                    island[static_cast<std::size_t>(b)] = k;
                }
            }
        }
    }
    return island;
}

std::vector<char> unconvergedBodies(const rigid::World& world) {
    std::vector<char> out(world.bodies().size(), 0);
    const bool toleranceSet = world.params().lcp.tolerance > 0.0f;
    const auto reports = world.blockReports();
    for (int k = 0; k < static_cast<int>(reports.size()); ++k) {
        const lcp::LcpReport& r = reports[static_cast<std::size_t>(k)];
        const bool failed = r.status == lcp::LcpStatus::kDiverged ||
                            (toleranceSet && r.status != lcp::LcpStatus::kConverged);
        if (!failed) {
            continue;
        }
        for (int c : world.blockContacts(k)) {
            const rigid::Contact& contact = world.contacts()[static_cast<std::size_t>(c)];
            out[static_cast<std::size_t>(contact.bodyA)] = 1;
            out[static_cast<std::size_t>(contact.bodyB)] = 1;
        }
    }
    return out;
}

void addContactOverlay(const rigid::World& world, const demo::ContactOverlay& overlay,
                       render::DrawData& out) {
    const float scale =
        overlay.metresPerImpulse > 0.0f ? overlay.metresPerImpulse : autoMetresPerImpulse(world);
    for (const rigid::Contact& c : world.contacts()) {
        const glm::vec3 p = toGlm(c.point);
        // The impulses act on body a along +n and on body b along -n: show the one on the body
        // that moves (the ground is often a).
        const float signedScale =
            world.bodies()[static_cast<std::size_t>(c.bodyA)].isStatic() ? -scale : scale;
        if (overlay.points) {
            out.points.push_back({p, kContactPointColour});
        }
        if (overlay.normals) {
            out.lines.push_back(
                {p, p + signedScale * c.impulse[0] * toGlm(c.normal), kNormalImpulseColour});
        }
        if (overlay.friction) {
            const glm::vec3 f = c.impulse[1] * toGlm(c.tangent1) + c.impulse[2] * toGlm(c.tangent2);
            out.lines.push_back({p, p + signedScale * f, kFrictionImpulseColour});
        }
    }
    if (overlay.bodies != demo::BodyColouring::kMaterial) {
        colourBodies(world, overlay.bodies, out);
    }
}

}  // namespace ww::app
