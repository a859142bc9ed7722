// Scripted events for headless runs: `--event STEP:ACTION[:ARGS]`, e.g. `60:shoot`,
// `120:remove:3,0` (brick at column 3, row 0), `10:drop:0.5,0.5`, `0:rain:on`.
#pragma once

#include <string>
#include <vector>

#include "solver/core/result.h"

namespace ww::app {

struct SceneEvent {
    int step = 0;                   ///< applied before this step (0 = before the first)
    std::string action;             ///< shoot, remove, push, drop, rain, wake, ...
    std::vector<std::string> args;  ///< comma-separated arguments after the second colon
    std::string text;               ///< as written, for messages

    /// Argument i as a number; an error naming the event if it is missing or not a number.
    Result<double> number(std::size_t i) const;
    /// Argument i as a number, or `fallback` when there are not that many arguments.
    Result<double> numberOr(std::size_t i, double fallback) const;
};

/// Parses one `--event` value; the error says what is wrong and shows the expected form.
Result<SceneEvent> parseEvent(const std::string& text);

}  // namespace ww::app
