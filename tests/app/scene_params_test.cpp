// The scenes' parameter tables (app/scenes/scene_params.h), from which the command line, the
// config keys, the demo's saved settings and the panel widgets all come: every row's default
// passes its own check, every row's value written into the settings reads back as itself
// (fresh random values across each row's range and every choice), the check accepts each
// closed end and refuses the number just past it, and every row is one option of the command
// line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

#include "app/cli/scene_options.h"
#include "app/cli/scene_registry.h"
#include "app/scenes/param_rows.h"
#include "app/scenes/splash/splash_params.h"
#include "app/scenes/wall/wall_params.h"
#include "app/scenes/water/water_params.h"
#include "support/seed.h"

namespace ww::app {
namespace {

// A value inside the row's accepted range (numbers: uniform over the slider's span where it
// has one, else over the range with an infinite end cut at 10; strings: one of the choices;
// the text rows a form they accept).
template <typename Settings>
void drawValue(const ParamRow<Settings>& row, std::mt19937& rng, SceneOptionValues& v) {
    const ParamInfo& info = row.info;
    visitParam(
        info.field, v, [&](auto& value) {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, std::string>) {
                if (!info.choices.empty()) {
                    value = info.choices[std::uniform_int_distribution<std::size_t>(
                        0, info.choices.size() - 1)(rng)];
                } else {
                    std::uniform_int_distribution<int> side(8, 40);
                    value = info.key == "iterations" && side(rng) % 2 == 0
                                ? std::string("2n")
                                : std::to_string(side(rng)) +
                                      (info.key == "iterations" ? std::string()
                                                                : "x" + std::to_string(side(rng)));
                }
            } else {
                const ParamRange& r = info.range;
                const bool slider = r.dragHi > r.dragLo;
                const double lo = slider ? std::max(r.lo, r.dragLo) : r.lo;
                const double hi = slider ? std::min(r.hi, r.dragHi) : std::min(r.hi, 10.0 + r.lo);
                do {
                    if constexpr (std::is_same_v<T, int>) {
                        value = std::uniform_int_distribution<int>(static_cast<int>(lo),
                                                                   static_cast<int>(hi))(rng);
                    } else {
                        value = static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng));
                    }
                } while (!checkParam(info, v).ok());  // an open end drawn, or rounded onto
            }
        });
}

template <typename Settings>
void expectRowsRoundTrip(const std::vector<ParamRow<Settings>>& rows, unsigned seed) {
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 50; ++trial) {
        for (const ParamRow<Settings>& row : rows) {
            SCOPED_TRACE(row.info.key);
            SceneOptionValues v;
            drawValue(row, rng, v);
            ASSERT_TRUE(checkParam(row.info, v).ok()) << paramText(row.info, v);
            Settings settings{};
            const Status written = row.write(v, settings);
            ASSERT_TRUE(written.ok()) << written.error().message;
            SceneOptionValues back;
            row.read(settings, back);
            EXPECT_EQ(paramText(row.info, back), paramText(row.info, v));
        }
    }
}

// Every choice of every choice row, not only the drawn ones.
template <typename Settings>
void expectEveryChoiceRoundTrips(const std::vector<ParamRow<Settings>>& rows) {
    for (const ParamRow<Settings>& row : rows) {
        for (const std::string& choice : row.info.choices) {
            SCOPED_TRACE(row.info.key + " " + choice);
            SceneOptionValues v;
            std::get<ParamAccess<std::string>>(row.info.field)(v) = choice;
            Settings settings{};
            ASSERT_TRUE(row.write(v, settings).ok());
            SceneOptionValues back;
            row.read(settings, back);
            EXPECT_EQ(paramText(row.info, back), choice);
        }
    }
}

// Every row the registry's scenes read (a new scene's rows included).
std::vector<ParamInfo> everyRow() {
    std::vector<ParamInfo> rows;
    for (const SceneEntry& scene : sceneRegistry()) {
        rows.insert(rows.end(), scene.params.begin(), scene.params.end());
    }
    return rows;
}

TEST(SceneParams, EveryDefaultPassesItsOwnCheck) {
    const SceneOptionValues v;
    for (const ParamInfo& info : everyRow()) {
        EXPECT_TRUE(checkParam(info, v).ok()) << info.key;
    }
}

// Fails when a row writes one member and reads another, or drops a choice on its way.
TEST(SceneParams, EveryRowReadsBackWhatItWrote) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    expectRowsRoundTrip(wallParams(), seed);
    expectRowsRoundTrip(waterParams(), seed + 1);
    expectRowsRoundTrip(splashParams(), seed + 2);
    expectEveryChoiceRoundTrips(wallParams());
    expectEveryChoiceRoundTrips(waterParams());
}

// Each closed end of a number row is accepted and the next number past it (in the field's
// type) refused with an error naming --key; NaN is refused everywhere, and infinity past an
// open infinite end.
void expectEdges(const std::vector<ParamInfo>& rows) {
    for (const ParamInfo& info : rows) {
        SCOPED_TRACE(info.key);
        std::visit(
            [&](const auto& access) {
                using T = std::decay_t<decltype(access(std::declval<SceneOptionValues&>()))>;
                if constexpr (!std::is_same_v<T, std::string>) {
                    const ParamRange& r = info.range;
                    const auto expectAt = [&](T value, bool ok) {
                        SceneOptionValues v;
                        access(v) = value;
                        const Status s = checkParam(info, v);
                        EXPECT_EQ(s.ok(), ok) << paramText(info, v);
                        if (!s.ok()) {
                            EXPECT_NE(s.error().message.find("--" + info.key), std::string::npos)
                                << s.error().message;
                        }
                    };
                    const auto past = [](T x, T toward) {
                        if constexpr (std::is_same_v<T, int>) {
                            return toward > x ? x + 1 : x - 1;
                        } else {
                            return std::nextafter(x, toward);
                        }
                    };
                    if (std::isfinite(r.lo)) {
                        const T lo = static_cast<T>(r.lo);
                        expectAt(lo, !r.loOpen);
                        expectAt(past(lo, std::numeric_limits<T>::lowest()), false);
                    }
                    if (std::isfinite(r.hi)) {
                        const T hi = static_cast<T>(r.hi);
                        expectAt(hi, !r.hiOpen);
                        expectAt(past(hi, std::numeric_limits<T>::max()), false);
                    }
                    if constexpr (!std::is_same_v<T, int>) {
                        expectAt(std::numeric_limits<T>::quiet_NaN(), false);
                        expectAt(std::numeric_limits<T>::infinity(), false);
                        expectAt(-std::numeric_limits<T>::infinity(), false);
                    }
                }
            },
            info.field);
    }
}

TEST(SceneParams, ClosedEndsAreAcceptedAndTheNextNumberPastThemRefused) {
    expectEdges(everyRow());
}

// The command line and config files register each row once, under its key, with its choices
// (an unlisted choice is refused by the parser).
TEST(SceneParams, EveryRowIsOneOptionOfTheCommandLine) {
    CLI::App app("test");
    OptionTable table(app);
    SceneOptionValues values;
    registerSceneOptions(table, values);
    const std::vector<std::string> keys = table.keys();
    const auto expectOnce = [&](const ParamInfo& info) {
        EXPECT_EQ(std::count(keys.begin(), keys.end(), info.key), 1) << info.key;
        if (!info.choices.empty()) {
            CLI::App bad("test");
            OptionTable badTable(bad);
            SceneOptionValues badValues;
            registerSceneOptions(badTable, badValues);
            EXPECT_THROW(bad.parse(std::vector<std::string>{"no-such-choice", "--" + info.key}),
                         CLI::ValidationError)
                << info.key;
        }
    };
    for (const ParamInfo& info : everyRow()) {
        expectOnce(info);
    }
}

// The rows below name only the fields they set, as the scenes' tables do.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// A scene whose keys are its own keeps them in its own values struct
// (SceneOptionValues::scene, rows bound with sceneField): its defaults are the struct's, a flag
// reaches it through the row, it is written into the settings like any row, and a copy of the
// values is a copy of it.
struct ExampleValues {
    float stiffness = 4.0f;
    std::string spring = "on";
};
struct ExampleSettings {
    float k = 0.0f;
    bool spring = false;
};

TEST(SceneParams, AScenesOwnValuesStructHoldsItsRows) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const std::vector<ParamRow<ExampleSettings>> rows = {
        numberRow<ExampleSettings>(
            {.key = "example-k", .label = "k", .help = "k", .range = {.lo = 0, .hi = 100}},
            sceneField(&ExampleValues::stiffness), [](auto& s) -> auto& { return s.k; }),
        toggleRow<ExampleSettings>(
            {.key = "example-spring", .label = "spring", .help = "spring"},
            sceneField(&ExampleValues::spring), [](auto& s) -> auto& { return s.spring; }),
    };
    SceneOptionValues v;
    const SceneOptionValues& constValues = v;
    EXPECT_EQ(constValues.scene<ExampleValues>().stiffness, 4.0f);
    EXPECT_EQ(paramText(rows[0].info, v), "4");

    const float k = std::uniform_real_distribution<float>(0.0f, 100.0f)(rng);
    CLI::App app("test");
    OptionTable table(app);
    for (const auto& row : rows) {
        visitParam(row.info.field, v,
                   [&](auto& value) { table.add(row.info.key, value, row.info.help); });
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(k));
    app.parse(std::vector<std::string>{"off", "--example-spring", text, "--example-k"});
    EXPECT_EQ(v.scene<ExampleValues>().stiffness, k);

    ExampleSettings settings;
    ASSERT_TRUE(writeParams(rows, v, settings).ok());
    EXPECT_EQ(settings.k, k);
    EXPECT_FALSE(settings.spring);

    SceneOptionValues copy = v;
    copy.scene<ExampleValues>().stiffness = 200.0f;
    EXPECT_EQ(v.scene<ExampleValues>().stiffness, k);
    const Status refused = checkParam(rows[0].info, copy);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("--example-k"), std::string::npos);
}

}  // namespace
}  // namespace ww::app
