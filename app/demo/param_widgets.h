// The panel's widgets for a scene's parameter table (app/scenes/scene_params.h): each row drawn
// as its widget over its value, its help (and unit) as the tooltip, greyed out with the reason
// when it does not act, and a changed value written back through the row, after the same
// range check the command line and config files get.
#pragma once

#include <string>
#include <vector>

#include "app/scenes/scene_params.h"

namespace ww::app {

/// What one widget did this frame.
struct ParamEdit {
    bool changed = false;    ///< the value in `v` changed
    bool committed = false;  ///< the edit is finished (slider released, Enter, a click)
};

/// Draws the row's widget over its field of `v`; `inactiveWhy` non-empty greys it out.
ParamEdit drawParamWidget(const ParamInfo& info, SceneOptionValues& v,
                          const std::string& inactiveWhy);

/// What drawing a set of rows did.
struct ParamPanelEdit {
    bool liveChanged = false;  ///< a row that acts on the running scene was written
    bool rebuild = false;      ///< a row that needs a rebuild finished its edit
    std::string error;         ///< a value a row refused, with the reason
};

/// Draws every row with a widget that `pick` accepts. Rows that rebuild the scene read and
/// write `staged` (applied when their edit is committed), the others `live`.
template <typename Settings, typename Pick>
void drawParams(const std::vector<ParamRow<Settings>>& rows, Pick pick, Settings& live,
                Settings& staged, Backend backend, SceneOptionValues& v, ParamPanelEdit& out) {
    for (const ParamRow<Settings>& row : rows) {
        row.read(row.info.rebuilds ? staged : live, v);
    }
    for (const ParamRow<Settings>& row : rows) {
        if (row.info.widget == ParamWidget::kNone || !pick(row.info)) {
            continue;
        }
        Settings& target = row.info.rebuilds ? staged : live;
        const std::string why = row.inactive ? row.inactive(target, backend) : std::string();
        const ParamEdit edit = drawParamWidget(row.info, v, why);
        if (edit.changed) {
            Status s = checkParam(row.info, v);
            if (s) {
                s = row.write(v, target);
            }
            if (!s) {
                out.error = s.error().message;
                row.read(target, v);
                continue;
            }
            out.liveChanged = out.liveChanged || !row.info.rebuilds;
        }
        out.rebuild = out.rebuild || (row.info.rebuilds && edit.committed);
    }
}

}  // namespace ww::app
