// The wall in ODE (wall_peers.h): dWorldQuickStep (projected SOR, over-relaxation 1.3, on the
// contact rows; no warm start across steps), 20 iterations, one 1/60 s step per frame, box
// geoms on a plane in a hash space, auto-disable off. Contacts are rebuilt every step from
// dCollide, at most 4 per pair (as our narrow phase and Bullet's manifolds keep), with
// dContactApprox1 so that mu is a Coulomb coefficient (friction bounded by mu times the
// normal impulse; without it ODE reads mu as a force in N). ERP and CFM stay ODE's defaults
// (ERP 0.2; CFM 1e-10 in this double-precision build): the wall is a rigid-contact
// benchmark, so we give ODE no softness that the other engines do not have.
#include <ode/ode.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "app/bench/wall_peers.h"

namespace ww::bench {
namespace {

constexpr int kIterations = 20;
constexpr int kMaxContactsPerPair = 4;

/// ODE's error and debug handlers (its internal assertions, e.g. cullPoints() on a box pair
/// whose points went non-finite in a 10 000-brick collapse) must not return: ODE aborts the
/// process when they do. They throw PeerFailure instead, which unwinds through ODE's C++ frames
/// to OdeWall::step.
[[noreturn]] void throwOdeFailure(int num, const char* msg, va_list ap) {
    char text[512];
    std::vsnprintf(text, sizeof text, msg, ap);
    throw PeerFailure("ODE internal error " + std::to_string(num) + ": " + text);
}

/// The ODE objects of walls abandoned after an internal error: never destroyed (ODE's state is
/// not consistent then), and held here for the process's lifetime, so that what they own stays
/// reachable (a leak checker reports it otherwise).
struct Abandoned {
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
};
std::vector<Abandoned>& abandoned() {
    static auto* list = new std::vector<Abandoned>();  // never freed: see above
    return *list;
}

void initOde() {
    static std::once_flag once;
    std::call_once(once, [] {
        dInitODE2(0);
        dSetErrorHandler(&throwOdeFailure);
        dSetDebugHandler(&throwOdeFailure);
    });
}

class OdeWall final : public PeerWall {
  public:
    explicit OdeWall(const PeerWallSetup& s) : m_dt(s.dtSeconds), m_friction(s.friction) {
        initOde();
        // QuickStep shuffles its rows with ODE's global random generator: reseeding it makes a
        // run independent of the runs before it in the same process.
        dRandSetSeed(0);
        m_world = dWorldCreate();
        m_space = dHashSpaceCreate(nullptr);
        m_contacts = dJointGroupCreate(0);
        dWorldSetGravity(m_world, 0, -9.81, 0);
        dWorldSetQuickStepNumIterations(m_world, kIterations);
        dWorldSetAutoDisableFlag(m_world, 0);
        dCreatePlane(m_space, 0, 1, 0, 0);
        m_bricks.reserve(s.brickCentres.size());
        const rigid::Vec3 h = s.brickHalfExtents;
        for (const rigid::Vec3& c : s.brickCentres) {
            dMass mass;
            dMassSetBoxTotal(&mass, s.brickMassKg, 2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
            const dGeomID geom = dCreateBox(m_space, 2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
            m_bricks.push_back(addBody(geom, mass, c, {}));
        }
    }

    ~OdeWall() override {
        if (m_failed) {
            abandoned().push_back({m_world, m_space, m_contacts});
            return;
        }
        dJointGroupDestroy(m_contacts);
        dSpaceDestroy(m_space);  // and its geoms
        dWorldDestroy(m_world);  // and its bodies
    }

    OdeWall(const OdeWall&) = delete;
    OdeWall& operator=(const OdeWall&) = delete;

    void step() override {
        try {
            dSpaceCollide(m_space, this, &OdeWall::nearCallback);
            dWorldQuickStep(m_world, m_dt);
            dJointGroupEmpty(m_contacts);
        } catch (const PeerFailure&) {
            m_failed = true;
            throw;
        }
    }

    void shoot(const PeerShot& shot) override {
        dMass mass;
        dMassSetSphereTotal(&mass, shot.massKg, shot.radiusM);
        addBody(dCreateSphere(m_space, shot.radiusM), mass, shot.from, shot.velocityMps);
    }

    void brickPoses(std::vector<BrickPose>& out) const override {
        out.resize(m_bricks.size());
        for (std::size_t i = 0; i < m_bricks.size(); ++i) {
            const dReal* p = dBodyGetPosition(m_bricks[i]);
            const dReal* q = dBodyGetQuaternion(m_bricks[i]);  // w, x, y, z
            out[i] = {
                {static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])},
                {static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2]),
                 static_cast<float>(q[3])}};
        }
    }

    rigid::Vec3 brickWorldPoint(std::size_t brick, const rigid::Vec3& local) const override {
        dVector3 w;
        dBodyGetRelPointPos(m_bricks.at(brick), local.x, local.y, local.z, w);
        return {static_cast<float>(w[0]), static_cast<float>(w[1]), static_cast<float>(w[2])};
    }

  private:
    dBodyID addBody(dGeomID geom, const dMass& mass, const rigid::Vec3& position,
                    const rigid::Vec3& velocity) {
        const dBodyID body = dBodyCreate(m_world);
        dBodySetMass(body, &mass);
        dBodySetPosition(body, position.x, position.y, position.z);
        dBodySetLinearVel(body, velocity.x, velocity.y, velocity.z);
        dGeomSetBody(geom, body);
        return body;
    }

    static void nearCallback(void* data, dGeomID a, dGeomID b) {
        auto* self = static_cast<OdeWall*>(data);
        dContactGeom points[kMaxContactsPerPair];
        const int n = dCollide(a, b, kMaxContactsPerPair, points, sizeof(dContactGeom));
        for (int i = 0; i < n; ++i) {
            dContact c{};
            c.surface.mode = dContactApprox1;
            c.surface.mu = self->m_friction;
            c.geom = points[i];
            const dJointID joint = dJointCreateContact(self->m_world, self->m_contacts, &c);
            dJointAttach(joint, dGeomGetBody(a), dGeomGetBody(b));
        }
    }

    dWorldID m_world = nullptr;
    dSpaceID m_space = nullptr;
    dJointGroupID m_contacts = nullptr;
    std::vector<dBodyID> m_bricks;
    dReal m_dt;
    dReal m_friction;
    bool m_failed = false;  ///< an internal error stopped a step
};

}  // namespace

std::unique_ptr<PeerWall> makeOdeWall(const PeerWallSetup& setup) {
    return std::make_unique<OdeWall>(setup);
}

std::string odeDescription() {
    initOde();
    const dWorldID w = dWorldCreate();
    char text[200];
    std::snprintf(text, sizeof text,
                  "ODE " WW_ODE_VERSION
                  ": QuickStep (projected SOR, w %.2g), %d iterations, ERP %.2g, CFM %.2g, "
                  "<= %d contacts per pair, dContactApprox1, no auto-disable",
                  static_cast<double>(dWorldGetQuickStepW(w)), kIterations,
                  static_cast<double>(dWorldGetERP(w)), static_cast<double>(dWorldGetCFM(w)),
                  kMaxContactsPerPair);
    dWorldDestroy(w);
    return text;
}

}  // namespace ww::bench
