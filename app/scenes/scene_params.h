// The parameter tables every scene's parameters are written in. A row holds the key (the
// command-line flag --key and the config key "key"), where the value lives as the user writes it
// (a member of SceneOptionValues, or of a scene's own values struct held in it), the accepted
// range or values, the unit, the help text, the panel widget, and how the value is read from and
// written into the scene's settings. The command line and config files (app/cli/scene_options.h),
// saving the demo's settings (app/cli/demo_config.cpp) and the panel (app/demo/param_widgets.h)
// all come from these rows, so a parameter's range, help and default live in one place. Each
// scene's own table lives in its folder (app/scenes/wall/wall_params.h, ...); the row makers are
// in app/scenes/param_rows.h.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <typeindex>
#include <utility>
#include <variant>
#include <vector>

#include "solver/core/backend.h"
#include "solver/core/result.h"

namespace ww::app {

/// Option values as the user writes them ("10x6", "2n", "on"). The defaults are those of the
/// solvers' parameter structs, read through the tables' rows. The built-in scenes' values are
/// flat members (the splash reads the wall's and the water's keys too); a scene whose keys are
/// its own keeps them in its own struct, reached through scene<Values>(), so adding it edits
/// nothing here.
struct SceneOptionValues {
    SceneOptionValues();

    // Wall / LCP (wallParams()).
    std::string wall;
    std::string layout;
    float slideSpeed = 0;  ///< m/s (layout slide)
    float slideAngle = 0;  ///< degrees about the vertical (layout slide)
    float omega = 0;       ///< 0: the method's default (rigid::defaultWallOmega)
    std::string iterations;
    float tolerance = 0;
    std::string warmStart;
    std::string warmStartMoving;
    std::string adaptiveOmega;
    float localStepOmega = 0;  ///< rigid::WorldParams::localStepOmega (0 = off)
    float chebyshevRho = 0;
    std::string restingLoadGuess;
    int shockSweeps = 0;  ///< rigid::WorldParams::shockSweeps (0 = off)
    std::string sleep;
    std::string keepManifolds;
    float friction = 0;
    std::string lcpMode;
    std::string lcpOperator;
    std::string lcpSolver;
    float columnGap = 0;  ///< m between neighbouring columns of the wall (0: touching)
    float erp = 0;
    int substeps = 1;
    double iterationBudget = 0;  ///< LCP multiply-adds per step (WorldParams::iterationBudgetMacs)

    // Water / CG (waterParams()).
    std::string grid;
    float poolSize = 0;
    float waveSpeed = 0;
    float dtRatio = 0;
    float damping = 0;
    std::string scheme;
    std::string boundary;
    float cgTolerance = 0;
    int cgMaxIterations = 0;
    int cgCheckEvery = 0;

    // Splash (splashParams(); the wall and the grid, pool and CG options above apply too).
    float brickDensity = 0;  ///< kg/m^3
    float brickSize = 0;     ///< side of a cubic brick, m
    float waterDepth = 0;    ///< m
    float wallX = 0;         ///< the wall's centre from the pool's centre, m
    float wallZ = 0;

    // Shared: time step in seconds; 0 = the scene's default (or --dt-ratio for water). A float,
    // as the scenes hold it, so that the range check sees the step they will take.
    float dt = 0;

    /// --threads / config key `threads` (empty: WAVEWALL_THREADS, else every hardware thread;
    /// see thread_option.h).
    std::string threads;

    /// The keys the user gave, by a flag or a config key (OptionTable::givenKeys); a scene's
    /// own default for a key it shares (SceneDefault) applies only to a key not given.
    std::set<std::string> given;

    /// The scene's own values struct, default-constructed (its defaults) on first use.
    template <typename Values>
    Values& scene() {
        std::any& slot = m_scenes[std::type_index(typeid(Values))];
        if (!slot.has_value()) {
            slot = Values{};
        }
        return *std::any_cast<Values>(&slot);
    }
    template <typename Values>
    const Values& scene() const {
        // Created on first use even through a const reference (the store is mutable), so a
        // reference handed out stays valid for the life of these values.
        return const_cast<SceneOptionValues*>(this)->scene<Values>();
    }

  private:
    // Each scene's own values by type; mutable so that reading a scene's default through
    // const values creates it. Map nodes do not move: references into them stay valid.
    mutable std::map<std::type_index, std::any> m_scenes;
};

/// How the panel shows a parameter.
enum class ParamWidget {
    kNone,       ///< not in the panel
    kSlider,     ///< a number dragged over the row's drag span; ctrl+click types any accepted one
    kLogSlider,  ///< the same on a logarithmic scale
    kInput,      ///< a number typed
    kToggle,     ///< "on" / "off" as a checkbox
    kChoice,     ///< one of the row's choices
    kText,       ///< text, applied on Enter ("10x6", "2n")
};

/// The numbers a row accepts: [lo, hi], either end open (an infinite open end is no bound, but
/// still refuses infinity); NaN is never accepted.
struct ParamRange {
    double lo = 0.0;
    double hi = 0.0;
    bool loOpen = false;
    bool hiOpen = false;
    /// The panel slider's span (within [lo, hi]); ctrl+click on it types any accepted value.
    double dragLo = 0.0;
    double dragHi = 0.0;
    /// Closes the range error, e.g. "(0 turns the acceleration off)".
    std::string note;
};

/// Where a row's value lives: a function giving a reference to it within the values. A member
/// pointer of SceneOptionValues converts to it (`.field = &SceneOptionValues::grid`);
/// sceneField() makes one for a member of a scene's own values struct.
template <typename T>
using ParamAccess = std::function<T&(SceneOptionValues&)>;
using ParamField = std::variant<ParamAccess<int>, ParamAccess<float>, ParamAccess<double>,
                                ParamAccess<std::string>>;

/// The field `member` of the scene's own values struct `Values` (SceneOptionValues::scene).
template <typename Values, typename T>
ParamAccess<T> sceneField(T Values::*member) {
    return [member](SceneOptionValues& v) -> T& { return v.scene<Values>().*member; };
}

/// Calls `f` with a reference to the row's value within `v` (an int, float, double or string).
template <typename F>
decltype(auto) visitParam(const ParamField& field, SceneOptionValues& v, F&& f) {
    return std::visit([&](const auto& access) -> decltype(auto) { return f(access(v)); }, field);
}
/// The same for reading: `f` gets a const reference.
template <typename F>
decltype(auto) visitParam(const ParamField& field, const SceneOptionValues& v, F&& f) {
    // The access functions take non-const values (the rows also write through them); nothing
    // here writes, and a scene's own struct is created in its mutable store.
    SceneOptionValues& values = const_cast<SceneOptionValues&>(v);
    return std::visit(
        [&](const auto& access) -> decltype(auto) { return f(std::as_const(access(values))); },
        field);
}

/// What every row holds apart from its settings type.
struct ParamInfo {
    std::string key;    ///< --key and config key "key"
    std::string label;  ///< the panel's label
    std::string help;   ///< --help, the man page and the panel's tooltip
    std::string unit;   ///< "m/s", "1/s"; empty when none
    ParamField field;
    ParamWidget widget = ParamWidget::kNone;
    ParamRange range;                  ///< numbers only
    std::vector<std::string> choices;  ///< strings: the accepted values (empty: write checks)
    bool rebuilds = false;             ///< the panel applies it by rebuilding the scene
};

/// One parameter of a scene whose settings are `Settings`.
template <typename Settings>
struct ParamRow {
    ParamInfo info;
    /// The settings' value, as the user writes it, into its field.
    std::function<void(const Settings&, SceneOptionValues&)> read;
    /// The field's value (already checked against the range and choices) into the settings; an
    /// error for what the range cannot say ("12abc" iterations).
    std::function<Status(const SceneOptionValues&, Settings&)> write;
    /// Non-empty when the parameter does not act on these settings and backend: the panel
    /// greys it out with this text as its tooltip. Null: always acts.
    std::function<std::string(const Settings&, Backend)> inactive;
};

/// A scene's own default for a key it shares with other scenes, where it differs from the
/// default of the key's row (the splash's wave damping against the water's): it applies when
/// the user gave the key no value, neither flag nor config key (SceneOptionValues::given). A
/// scene's registry row lists them; --help and the man page name them beside the row's default.
struct SceneDefault {
    std::string key;
    std::string value;  ///< as the user writes it ("0.1")
};

/// Sets the row's value in `v` from text as the user writes it; an error naming the key when a
/// number row gets text that is not a number.
Status setParamText(const ParamInfo& info, SceneOptionValues& v, const std::string& text);

/// "--key (config key "key") what": how every parameter error starts.
Error paramError(const std::string& key, const std::string& what);
/// The row's value in `v` checked against its range (numbers) or its choices (strings).
Status checkParam(const ParamInfo& info, const SceneOptionValues& v);
/// The row's value in `v` as text ("0.5", "on").
std::string paramText(const ParamInfo& info, const SceneOptionValues& v);

/// Checks every row's value and writes it into `settings`; the first error, naming its key.
template <typename Settings>
Status writeParams(const std::vector<ParamRow<Settings>>& rows, const SceneOptionValues& v,
                   Settings& settings) {
    for (const ParamRow<Settings>& row : rows) {
        if (Status s = checkParam(row.info, v); !s) {
            return s;
        }
        if (Status s = row.write(v, settings); !s) {
            return s;
        }
    }
    return {};
}

/// Parses "AxB" into two positive integers; error names `option`.
Status parseSize(const std::string& text, const char* option, int& a, int& b);

/// The rows' descriptions, without their settings type (a scene's registry row lists them).
template <typename Settings>
std::vector<ParamInfo> paramInfos(const std::vector<ParamRow<Settings>>& rows) {
    std::vector<ParamInfo> infos;
    for (const ParamRow<Settings>& row : rows) {
        infos.push_back(row.info);
    }
    return infos;
}

/// Every row's value read from `settings` into `v` (the other fields of `v` kept).
template <typename Settings>
void readParams(const std::vector<ParamRow<Settings>>& rows, const Settings& settings,
                SceneOptionValues& v) {
    for (const ParamRow<Settings>& row : rows) {
        row.read(settings, v);
    }
}

}  // namespace ww::app
