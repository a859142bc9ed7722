// Makers of the common kinds of parameter rows (app/scenes/scene_params.h): a number, an on/off
// toggle and a choice held as an enum. Each scene's table (app/scenes/<scene>/<scene>_params.cpp)
// is written with them; a row they do not fit ("10x6", "2n") is written out in full.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "app/scenes/scene_params.h"

namespace ww::app {

/// An open end of a ParamRange that is no bound.
inline constexpr double kNoBound = std::numeric_limits<double>::infinity();

/// The value `field` names within `v`, for reading (a const reference).
template <typename Field>
decltype(auto) fieldValue(const Field& field, const SceneOptionValues& v) {
    // The access functions take non-const values; this only reads (see visitParam).
    return std::as_const(std::invoke(field, const_cast<SceneOptionValues&>(v)));
}

// `field` is where the value lives (a member pointer of SceneOptionValues, or sceneField()); `ref`
// a generic lambda returning a reference to the settings' member, so one accessor serves reading
// (const settings) and writing.

/// A number.
template <typename S, typename Field, typename Ref>
ParamRow<S> numberRow(ParamInfo info, Field field, Ref ref) {
    info.field = field;
    ParamRow<S> row{std::move(info), {}, {}, {}};
    row.read = [field, ref](const S& s, SceneOptionValues& v) { std::invoke(field, v) = ref(s); };
    row.write = [field, ref](const SceneOptionValues& v, S& s) -> Status {
        ref(s) = fieldValue(field, v);
        return {};
    };
    return row;
}

/// A bool, written "on" / "off".
template <typename S, typename Field, typename Ref>
ParamRow<S> toggleRow(ParamInfo info, Field field, Ref ref) {
    info.field = field;
    info.widget = ParamWidget::kToggle;
    info.choices = {"on", "off"};
    ParamRow<S> row{std::move(info), {}, {}, {}};
    row.read = [field, ref](const S& s, SceneOptionValues& v) {
        std::invoke(field, v) = ref(s) ? "on" : "off";
    };
    row.write = [field, ref](const SceneOptionValues& v, S& s) -> Status {
        ref(s) = fieldValue(field, v) == "on";
        return {};
    };
    return row;
}

/// A choice held as an enum: `name` gives its text, `parse` the enum of a text (optional).
template <typename S, typename Field, typename Ref, typename Name, typename Parse>
ParamRow<S> choiceRow(ParamInfo info, Field field, Ref ref, Name name, Parse parse) {
    info.field = field;
    info.widget = ParamWidget::kChoice;
    ParamRow<S> row{std::move(info), {}, {}, {}};
    row.read = [field, ref, name](const S& s, SceneOptionValues& v) {
        std::invoke(field, v) = name(ref(s));
    };
    row.write = [field, ref, parse](const SceneOptionValues& v, S& s) -> Status {
        ref(s) = *parse(fieldValue(field, v));
        return {};
    };
    return row;
}

}  // namespace ww::app
