// One table of named options shared by the command line and JSON config files: each option
// is registered once with its flag (`--omega`), its config key (`"omega"`) and its target
// variable. After CLI11 has parsed the flags, applyConfig() fills every option the user did
// not give on the command line from the file, so flags override the file. Unknown keys,
// wrong types and malformed JSON are errors naming the file, line and key.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "solver/core/result.h"

namespace ww::app {

class OptionTable {
  public:
    explicit OptionTable(CLI::App& command) : m_command(&command) {}

    /// Registers `--name` and config key `name` bound to `target` (int, float, double,
    /// std::string). `allowed` (strings only) lists the accepted values.
    template <typename T>
    CLI::Option* add(const std::string& name, T& target, const std::string& help,
                     std::vector<std::string> allowed = {}) {
        CLI::Option* opt = m_command->add_option("--" + name, target, help);
        if constexpr (std::is_same_v<T, float>) {
            opt->capture_default_str();
            opt->check(CLI::Validator([](std::string& text) { return checkFloatText(text); }, ""));
        } else if constexpr (!std::is_same_v<T, std::string>) {
            opt->capture_default_str();
        } else {
            opt->capture_default_str();
            if (!allowed.empty()) {
                opt->check(CLI::IsMember(allowed));
            }
        }
        m_entries.push_back({name, opt,
                             [&target, name, allowed](const nlohmann::json& v) {
                                 return assign(name, v, target, allowed);
                             },
                             [&target] { return toJson(target); }, std::is_same_v<T, float>});
        return opt;
    }

    /// Applies `path` to every registered option not given on the command line.
    Status applyConfig(const std::string& path);
    /// The keys the user gave: on the command line or in the config file applied.
    std::set<std::string> givenKeys() const;
    /// Keys every config file may hold (for docs and --help).
    std::vector<std::string> keys() const;
    /// The keys of float options (the solvers' type), each checked by toOptionFloat().
    std::vector<std::string> floatKeys() const;
    /// Every option's current value by key: a config file that applyConfig() reads back to
    /// the same values (floats written as the shortest text that rounds back to them).
    nlohmann::json values() const;
    /// `e` with the config file's place in front when its message names an option (`--NAME`)
    /// whose value came from the file applied: a value whose type was right but which a later
    /// check refuses (`{"wall": 10}`) is then reported at the file and line that gave it.
    Error locate(Error e) const;

  private:
    struct Entry {
        std::string name;
        CLI::Option* option;
        std::function<std::string(const nlohmann::json&)> assign;  // "" or the type error
        std::function<nlohmann::json()> read;
        bool isFloat;
    };

    static std::string checkFloatText(const std::string& text);
    static nlohmann::json toJson(float v);
    template <typename T>
    static nlohmann::json toJson(const T& v) {
        return v;
    }

    static std::string assign(const std::string& name, const nlohmann::json& v, int& t,
                              const std::vector<std::string>&);
    static std::string assign(const std::string& name, const nlohmann::json& v, float& t,
                              const std::vector<std::string>&);
    static std::string assign(const std::string& name, const nlohmann::json& v, double& t,
                              const std::vector<std::string>&);
    static std::string assign(const std::string& name, const nlohmann::json& v, std::string& t,
                              const std::vector<std::string>& allowed);
    static std::string assign(const std::string& name, const nlohmann::json& v, std::uint64_t& t,
                              const std::vector<std::string>&);

    CLI::App* m_command;
    std::vector<Entry> m_entries;
    std::set<std::string> m_fromConfig;                ///< keys applyConfig() set
    std::map<std::string, std::string> m_configPlace;  ///< those keys' "FILE:LINE"
};

/// `value` rounded to the float the solvers use, or an error naming `--name` when that float is
/// not the number written: not finite, beyond float's range, or non-zero but rounded to 0
/// (e.g. 1e-46). Every float option, from a flag or a config file, passes through here; the
/// scenes' range checks then see exactly the value the model gets.
Result<float> toOptionFloat(const std::string& name, long double value);

/// The file a --config value names: `given` itself when that file exists; else, when `given`
/// holds no '/', the preset of that name (NAME or NAME.json) in the presets folder
/// (demo::findAssetsDir: beside the executable, its install's share/wavewall/assets or the
/// source tree's assets/), so `--config wall` works from any folder; else `given` unchanged.
std::string resolveConfigPath(const std::string& given);

/// Reads a JSON file; a syntax error names file, line and column.
Result<nlohmann::json> readJsonFile(const std::string& path);
/// Writes `doc` as indented JSON (summaries, reports, snapshots); an error names the path.
Status writeJsonFile(const std::string& path, const nlohmann::json& doc);
/// 1-based line of the first occurrence of `"key"` in the file text (0 if not found), so
/// messages about a key can point at it.
int lineOfKey(const std::string& text, const std::string& key);

}  // namespace ww::app
