// Scene options small enough that a scripted run of any scene takes well under a second: the
// app tests that build scenes through the registry share them.
#pragma once

#include "app/cli/scene_options.h"

namespace ww::app::test {

inline SceneOptionValues smallScenes() {
    SceneOptionValues v;
    v.wall = "4x3";
    v.grid = "32x32";
    return v;
}

}  // namespace ww::app::test
