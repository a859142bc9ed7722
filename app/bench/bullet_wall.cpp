// The wall in Bullet (wall_peers.h): btDiscreteDynamicsWorld with the sequential-impulse solver
// (projected Gauss-Seidel on contact rows, warm started from the persistent manifolds),
// 10 iterations, one fixed 1/60 s step per frame, btBoxShape bricks on a btStaticPlaneShape,
// deactivation disabled on every body. Everything else is Bullet's default: ERP 0.2, split
// impulse for penetration recovery, btDefaultCollisionConfiguration (btBoxBoxDetector for
// box-box, up to 4 points kept per persistent manifold), btDbvtBroadphase, no CCD.
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>

#include "app/bench/wall_peers.h"

namespace ww::bench {
namespace {

constexpr int kIterations = 10;

btVector3 toBt(const rigid::Vec3& v) {
    return {v.x, v.y, v.z};
}

class BulletWall final : public PeerWall {
  public:
    explicit BulletWall(const PeerWallSetup& s)
        : m_dispatcher(&m_config),
          m_world(&m_dispatcher, &m_broadphase, &m_solver, &m_config),
          m_ground(btVector3(0, 1, 0), 0),
          m_box(toBt(s.brickHalfExtents)),
          m_dt(s.dtSeconds),
          // Bullet combines two bodies' friction as the product of their coefficients
          // (btManifoldResult::calculateCombinedFriction): sqrt(mu) on every body gives every
          // contact mu.
          m_bodyFriction(std::sqrt(s.friction)) {
        m_world.setGravity(btVector3(0, -9.81f, 0));
        m_world.getSolverInfo().m_numIterations = kIterations;
        addBody(&m_ground, 0.0f, btVector3(0, 0, 0), btVector3(0, 0, 0));
        m_bricks.reserve(s.brickCentres.size());
        for (const rigid::Vec3& c : s.brickCentres) {
            m_bricks.push_back(addBody(&m_box, s.brickMassKg, toBt(c), btVector3(0, 0, 0)));
        }
    }

    ~BulletWall() override {
        for (auto& b : m_bodies) {
            m_world.removeRigidBody(b.get());
        }
    }

    void step() override { m_world.stepSimulation(m_dt, 1, m_dt); }

    void shoot(const PeerShot& shot) override {
        m_sphere = std::make_unique<btSphereShape>(shot.radiusM);
        addBody(m_sphere.get(), shot.massKg, toBt(shot.from), toBt(shot.velocityMps));
    }

    void brickPoses(std::vector<BrickPose>& out) const override {
        out.resize(m_bricks.size());
        for (std::size_t i = 0; i < m_bricks.size(); ++i) {
            const btVector3& p = m_bricks[i]->getCenterOfMassPosition();
            const btQuaternion q = m_bricks[i]->getOrientation();
            out[i] = {{p.x(), p.y(), p.z()}, {q.w(), q.x(), q.y(), q.z()}};
        }
    }

    rigid::Vec3 brickWorldPoint(std::size_t brick, const rigid::Vec3& local) const override {
        const btVector3 w = m_bricks.at(brick)->getCenterOfMassTransform() * toBt(local);
        return {w.x(), w.y(), w.z()};
    }

  private:
    btRigidBody* addBody(btCollisionShape* shape, float massKg, const btVector3& position,
                         const btVector3& velocity) {
        btVector3 inertia(0, 0, 0);
        if (massKg > 0.0f) {
            shape->calculateLocalInertia(massKg, inertia);
        }
        btRigidBody::btRigidBodyConstructionInfo info(massKg, nullptr, shape, inertia);
        info.m_startWorldTransform.setIdentity();
        info.m_startWorldTransform.setOrigin(position);
        info.m_friction = m_bodyFriction;
        info.m_restitution = 0.0f;
        auto body = std::make_unique<btRigidBody>(info);
        body->setLinearVelocity(velocity);
        body->setActivationState(DISABLE_DEACTIVATION);
        m_world.addRigidBody(body.get());
        m_bodies.push_back(std::move(body));
        return m_bodies.back().get();
    }

    btDefaultCollisionConfiguration m_config;
    btCollisionDispatcher m_dispatcher;
    btDbvtBroadphase m_broadphase;
    btSequentialImpulseConstraintSolver m_solver;
    btDiscreteDynamicsWorld m_world;
    btStaticPlaneShape m_ground;
    btBoxShape m_box;
    std::unique_ptr<btSphereShape> m_sphere;
    std::vector<std::unique_ptr<btRigidBody>> m_bodies;
    std::vector<btRigidBody*> m_bricks;
    float m_dt;
    float m_bodyFriction;
};

}  // namespace

std::unique_ptr<PeerWall> makeBulletWall(const PeerWallSetup& setup) {
    return std::make_unique<BulletWall>(setup);
}

std::string bulletDescription() {
    const btContactSolverInfo defaults;
    char text[200];
    std::snprintf(text, sizeof text,
                  "Bullet %d.%02d: sequential impulse (PGS), %d iterations, contact ERP %.2g, "
                  "split impulse %s, warm start %s, no sleeping, friction sqrt(mu) per body",
                  btGetVersion() / 100, btGetVersion() % 100, kIterations,
                  static_cast<double>(defaults.m_erp2), defaults.m_splitImpulse ? "on" : "off",
                  (defaults.m_solverMode & SOLVER_USE_WARMSTARTING) != 0 ? "on" : "off");
    return text;
}

}  // namespace ww::bench
