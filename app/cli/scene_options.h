// The scene options of CLI.md, registered once for the command line and config files, and
// turned into validated scene settings. Defaults come from the solver's own parameter structs,
// so they live in one place.
#pragma once

#include <string>

#include "app/cli/option_table.h"
#include "app/scenes/splash_scene.h"
#include "app/scenes/wall_scene.h"
#include "app/scenes/water_scene.h"

namespace ww::app {

/// Flat option values as the user writes them ("10x6", "2n", "on").
struct SceneOptionValues {
    SceneOptionValues();

    // Wall / LCP.
    std::string wall = "10x6";
    std::string layout = "wall";
    float slideSpeed = 0;  ///< m/s (layout slide)
    float slideAngle = 0;  ///< degrees about the vertical (layout slide)
    float omega = 0;       ///< 0: the method's default (rigid::defaultWallOmega)
    std::string iterations;
    float tolerance = 0;
    std::string warmStart = "on";
    std::string adaptiveOmega = "on";
    float chebyshevRho = 0;
    std::string restingLoadGuess = "on";
    int shockSweeps = 0;  ///< rigid::WorldParams::shockSweeps (0 = off)
    std::string sleep = "off";
    std::string keepManifolds = "on";  ///< rigid::WorldParams::keepManifolds
    float friction = 0;
    std::string lcpMode;
    std::string lcpOperator;
    std::string lcpSolver;
    float columnGap = 0;  ///< m between neighbouring columns of the wall (0: touching)
    float erp = 0;
    int substeps = 1;
    double iterationBudget = 0;  ///< LCP multiply-adds per step (WorldParams::iterationBudgetMacs)

    // Water / CG.
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

    // Splash (the wall and the grid, pool and CG options above apply too).
    float brickDensity = 500;  ///< kg/m^3
    float brickSize = 0.5f;    ///< side of a cubic brick, m
    float waterDepth = 0.6f;   ///< m
    float wallX = 0;           ///< the wall's centre from the pool's centre, m
    float wallZ = 0;

    // Shared: time step in seconds; 0 = the scene's default (or --dt-ratio for water). A float,
    // as the scenes hold it, so that the range check sees the step they will take.
    float dt = 0;

    /// --threads / config key `threads` (empty: WAVEWALL_THREADS, else every hardware thread;
    /// see thread_option.h).
    std::string threads;
};

void registerSceneOptions(OptionTable& table, SceneOptionValues& values);

/// Validates the wall options; errors name the option and the accepted range. The settings
/// get the executor of the resolved thread count (thread_option.h).
Result<WallSceneSettings> makeWallSettings(const SceneOptionValues& v);

/// The most bricks --wall accepts (512 x 512); below it the memory rule decides.
inline constexpr long long kMaxWallBricks = 262144;
/// Bytes a wall scene of `bricks` bricks needs at its peak (a collapse), from measured runs.
double wallMemoryBytes(long long bricks);
/// An error naming what --wall `wall` would need when that exceeds 80 % of physicalBytes.
Status checkWallMemory(const std::string& wall, long long bricks, double physicalBytes);

/// Validates the water options; errors name the option and the accepted range.
Result<WaterSceneSettings> makeWaterSettings(const SceneOptionValues& v, std::uint64_t seed);

/// Validates the splash options (pool against wall, density, depth); errors name the option.
Result<SplashSceneSettings> makeSplashSettings(const SceneOptionValues& v);

/// The backend to ask for (--backend cpu|gpu|auto) given the scene's LCP method: Gauss-Seidel
/// runs on the CPU only, so with it "gpu" is an input error and "auto" becomes "cpu" (said on
/// stderr). Other scenes and Jacobi get `choice` back.
Result<std::string> lcpBackendChoice(const std::string& choice, const std::string& scene,
                                     const SceneOptionValues& v);

/// Parses "AxB" into two positive integers; error names `option`.
Status parseSize(const std::string& text, const char* option, int& a, int& b);

}  // namespace ww::app
