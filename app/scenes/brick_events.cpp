#include "app/scenes/brick_events.h"

#include <string>

namespace ww::app {

bool isBrickEvent(const SceneEvent& e) {
    return e.action == "shoot" || e.action == "remove" || e.action == "push";
}

Status validateBrickEvent(const SceneEvent& e) {
    for (std::size_t i = 0; i < e.args.size(); ++i) {
        if (auto v = e.number(i); !v) {
            return v.error();
        }
    }
    const std::size_t n = e.args.size();
    if (e.action == "shoot" && n != 0 && n != 3 && n != 6) {
        return inputError("--event " + e.text +
                          ": shoot takes no arguments, X,Y,Z (from) or X,Y,Z,VX,VY,VZ");
    }
    if (e.action == "remove" && n != 2) {
        return inputError("--event " + e.text + ": remove takes COL,ROW");
    }
    if (e.action == "push" && n != 2 && n != 5) {
        return inputError("--event " + e.text + ": push takes COL,ROW[,VX,VY,VZ]");
    }
    return {};
}

Status applyBrickEvent(const SceneEvent& e, rigid::World& world, const rigid::ShotParams& shot) {
    const auto at = [&e](std::size_t i) { return static_cast<float>(*e.number(i)); };
    if (e.action == "shoot") {
        rigid::ShotParams s = shot;
        if (e.args.size() >= 3) {
            s.from = {at(0), at(1), at(2)};
        }
        if (e.args.size() == 6) {
            s.velocity = {at(3), at(4), at(5)};
        }
        rigid::shootSphere(world, s);
        return {};
    }
    const int col = static_cast<int>(*e.number(0));
    const int row = static_cast<int>(*e.number(1));
    const bool found = e.action == "remove"
                           ? rigid::removeBrick(world, col, row)
                           : rigid::pushBrick(world, col, row,
                                              {static_cast<float>(*e.numberOr(2, 0.0)),
                                               static_cast<float>(*e.numberOr(3, 0.0)),
                                               static_cast<float>(*e.numberOr(4, -3.0))});
    if (!found) {
        return inputError("--event " + e.text + ": there is no brick at column " +
                          std::to_string(col) + ", row " + std::to_string(row));
    }
    return {};
}

}  // namespace ww::app
