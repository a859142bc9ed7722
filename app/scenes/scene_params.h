// Each scene's parameters as one table of rows. A row holds the key (the command-line flag
// --key and the config key "key"), where the value lives as the user writes it (a member of
// SceneOptionValues), the accepted range or values, the unit, the help text, the panel widget,
// and how the value is read from and written into the scene's settings. The command line and
// config files (app/cli/scene_options.cpp), saving the demo's settings (app/cli/demo_config.cpp)
// and the panel (app/demo/param_widgets.h) all come from these rows, so a parameter's range,
// help and default live in one place: a new wall parameter is one row of wallParams() (and the
// member it is written to).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "app/scenes/splash_scene.h"
#include "app/scenes/wall_scene.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"
#include "solver/wave/wave_params.h"

namespace ww::app {

/// Flat option values as the user writes them ("10x6", "2n", "on"). The defaults are those of
/// the solvers' parameter structs, read through the tables' rows.
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
    std::string adaptiveOmega;
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

/// Where a row's value lives in SceneOptionValues.
using ParamField = std::variant<int SceneOptionValues::*, float SceneOptionValues::*,
                                double SceneOptionValues::*, std::string SceneOptionValues::*>;

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

/// The wall scene's parameters (geometry, layout and the rigid world's solver settings).
const std::vector<ParamRow<WallSceneSettings>>& wallParams();
/// The water scene's parameters (the grid, the wave equation and its CG solver).
const std::vector<ParamRow<wave::WaveParams>>& waterParams();
/// The splash scene's own parameters (its wall and water take the two tables above): the
/// bricks, the water's depth and where the wall stands in the pool.
const std::vector<ParamRow<SplashSceneSettings>>& splashParams();
/// Whether the splash's wall stands inside its pool; an error naming the option to change.
Status checkSplashFit(const SplashSceneSettings& s);

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

/// The most bricks --wall accepts (512 x 512); below it the memory rule decides.
inline constexpr long long kMaxWallBricks = 262144;
/// Bytes a wall scene of `bricks` bricks needs at its peak (a collapse), from measured runs.
double wallMemoryBytes(long long bricks);
/// An error naming what --wall `wall` would need when that exceeds 80 % of physicalBytes.
Status checkWallMemory(const std::string& wall, long long bricks, double physicalBytes);

/// Every row's value read from `settings` into `v` (the other fields of `v` kept).
template <typename Settings>
void readParams(const std::vector<ParamRow<Settings>>& rows, const Settings& settings,
                SceneOptionValues& v) {
    for (const ParamRow<Settings>& row : rows) {
        row.read(settings, v);
    }
}

}  // namespace ww::app
