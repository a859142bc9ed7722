// The events every scene with a wall of bricks takes (wall, splash): shoot a sphere, remove a
// brick, push a brick. One parser and one action for both, so that `--event`, the demo's
// buttons and clicks mean the same in each.
//   shoot[:X,Y,Z[,VX,VY,VZ]]   the scene's default shot, or from X,Y,Z (and at VX,VY,VZ m/s)
//   remove:COL,ROW             takes the brick out of the wall
//   push:COL,ROW[,VX,VY,VZ]    adds VX,VY,VZ m/s to the brick (default 0,0,-3: into the wall)
#pragma once

#include "app/scenes/scene_event.h"
#include "solver/core/result.h"
#include "solver/rigid/scenes.h"
#include "solver/rigid/world.h"

namespace ww::app {

/// Whether `e` is one of the brick events (by action name).
bool isBrickEvent(const SceneEvent& e);
/// The event's arguments checked (count and numbers); an error quoting the event.
Status validateBrickEvent(const SceneEvent& e);
/// Carries out a validated brick event on `world`, shooting from `shot` unless the event says
/// where from; an error when no brick stands at COL,ROW.
Status applyBrickEvent(const SceneEvent& e, rigid::World& world, const rigid::ShotParams& shot);

}  // namespace ww::app
