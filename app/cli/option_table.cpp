#include "app/cli/option_table.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "app/demo/saved_settings.h"

namespace ww::app {

namespace {

std::string typeError(const std::string& name, const char* expected, const nlohmann::json& v) {
    return "key \"" + name + "\" must be " + expected + ", not " + std::string(v.type_name()) +
           " " + v.dump();
}

std::string readText(const std::string& path, bool& ok) {
    std::ifstream in(path);
    ok = static_cast<bool>(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

namespace {

// Why `value` is no float the solvers could use, or "" with `out` set to it.
std::string floatProblem(long double value, float& out) {
    char text[32];
    std::snprintf(text, sizeof text, "%Lg", value);
    if (!std::isfinite(value)) {
        return std::string(text) + " is not a finite number";
    }
    // Checked before the conversion, which is undefined for values beyond float's range.
    constexpr long double kMax = std::numeric_limits<float>::max();
    if (value > kMax || value < -kMax) {
        return std::string(text) +
               " is beyond the range of a float (|x| <= 3.4e38), the solvers' type; write a "
               "smaller number";
    }
    out = static_cast<float>(value);
    if (out == 0.0f && value != 0.0L) {
        return std::string(text) +
               " is 0 as a float (the solvers' type; its smallest positive value is 1.4e-45); "
               "write 0 or a larger number";
    }
    return {};
}

}  // namespace

Result<float> toOptionFloat(const std::string& name, long double value) {
    float f = 0.0f;
    if (const std::string why = floatProblem(value, f); !why.empty()) {
        return inputError("--" + name + " (config key \"" + name + "\"): " + why);
    }
    return f;
}

std::string OptionTable::checkFloatText(const std::string& text) {
    char* end = nullptr;
    const long double value = std::strtold(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
        return {};  // not a number at all: CLI11's conversion reports that
    }
    float f = 0.0f;
    return floatProblem(value, f);  // CLI11 puts the flag's name in front
}

int lineOfKey(const std::string& text, const std::string& key) {
    const std::size_t pos = text.find("\"" + key + "\"");
    if (pos == std::string::npos) {
        return 0;
    }
    return 1 +
           static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

Result<nlohmann::json> readJsonFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return Error{ErrorKind::kIo,
                     path + ": is a folder; give a config file (one JSON object of option keys)"};
    }
    bool ok = false;
    const std::string text = readText(path, ok);
    if (!ok) {
        return Error{ErrorKind::kIo, path + ": cannot open config file; check the path"};
    }
    try {
        // A key given twice at the top level would silently keep its last value.
        std::set<std::string> seen;
        std::string twice;
        const nlohmann::json::parser_callback_t noteKeys =
            [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
                if (event == nlohmann::json::parse_event_t::key && depth == 1 && twice.empty() &&
                    !seen.insert(parsed.get<std::string>()).second) {
                    twice = parsed.get<std::string>();
                }
                return true;
            };
        nlohmann::json doc = nlohmann::json::parse(text, noteKeys);
        if (!twice.empty()) {
            // The second occurrence's line.
            const std::size_t first = text.find("\"" + twice + "\"");
            const std::size_t second = text.find("\"" + twice + "\"", first + 1);
            const std::size_t at = second == std::string::npos ? first : second;
            const auto line =
                1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
            return inputError(path + ":" + std::to_string(line) + ": key \"" + twice +
                              "\" is given twice (only the last would count); keep one");
        }
        return doc;
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is the 1-based offset where parsing failed.
        const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
        const std::size_t lineStart = text.rfind('\n', at == 0 ? 0 : at - 1);
        const std::size_t column = lineStart == std::string::npos ? at + 1 : at - lineStart;
        std::string what = e.what();
        if (const auto p = what.find("syntax error"); p != std::string::npos) {
            what = what.substr(p);
        }
        return inputError(path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                          ": malformed JSON: " + what);
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond a double's range (found by fuzz_config: 1e616 threw out of main).
        // The message quotes the number; its first occurrence gives the line.
        std::string what = e.what();
        if (const auto p = what.find("] "); p != std::string::npos) {
            what = what.substr(p + 2);
        }
        std::string where = path;
        const auto open = what.find('\'');
        const auto close = what.rfind('\'');
        if (open != std::string::npos && close > open + 1) {
            const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
            if (at != std::string::npos) {
                where += ":" +
                         std::to_string(1 + std::count(text.begin(),
                                                       text.begin() + static_cast<long>(at), '\n'));
            }
        }
        return inputError(where + ": " + what + " (numbers must fit in a double)");
    }
}

Status writeJsonFile(const std::string& path, const nlohmann::json& doc) {
    std::ofstream out(path);
    out << doc.dump(2) << "\n";
    if (!out) {
        return Error{ErrorKind::kIo, path + ": write failed"};
    }
    return {};
}

std::string OptionTable::assign(const std::string& name, const nlohmann::json& v, int& t,
                                const std::vector<std::string>&) {
    if (!v.is_number_integer()) {
        return typeError(name, "an integer", v);
    }
    const auto x = v.get<long long>();
    if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
        return "key \"" + name + "\" is out of the integer range";
    }
    t = static_cast<int>(x);
    return {};
}

std::string OptionTable::assign(const std::string& name, const nlohmann::json& v, std::uint64_t& t,
                                const std::vector<std::string>&) {
    if (!v.is_number_unsigned()) {
        return typeError(name, "a non-negative integer", v);
    }
    t = v.get<std::uint64_t>();
    return {};
}

std::string OptionTable::assign(const std::string& name, const nlohmann::json& v, float& t,
                                const std::vector<std::string>&) {
    if (!v.is_number()) {
        return typeError(name, "a number", v);
    }
    // Integers too: a uint64 beyond float's range is a finding of the same kind as 1e39.
    Result<float> f = toOptionFloat(name, v.get<long double>());
    if (!f) {
        return f.error().message;
    }
    t = *f;
    return {};
}

std::string OptionTable::assign(const std::string& name, const nlohmann::json& v, double& t,
                                const std::vector<std::string>&) {
    if (!v.is_number()) {
        return typeError(name, "a number", v);
    }
    t = v.get<double>();
    return {};
}

std::string OptionTable::assign(const std::string& name, const nlohmann::json& v, std::string& t,
                                const std::vector<std::string>& allowed) {
    std::string s;
    if (v.is_string()) {
        s = v.get<std::string>();
    } else if (v.is_boolean() && std::find(allowed.begin(), allowed.end(), "on") != allowed.end()) {
        s = v.get<bool>() ? "on" : "off";
    } else if (v.is_number_integer() && allowed.empty()) {
        s = std::to_string(v.get<long long>());  // e.g. "iterations": 40 next to "2n"
    } else {
        return typeError(name, "a string", v);
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) {
            list += (list.empty() ? "" : ", ") + a;
        }
        return "key \"" + name + "\" is \"" + s + "\"; expected one of: " + list;
    }
    t = s;
    return {};
}

std::string resolveConfigPath(const std::string& given) {
    std::error_code ec;
    if (given.empty() || given.find('/') != std::string::npos ||
        std::filesystem::exists(given, ec)) {
        return given;
    }
    const std::string dir = demo::findAssetsDir();
    if (dir.empty()) {
        return given;
    }
    for (const std::string& name : {given, given + ".json"}) {
        const std::filesystem::path preset = std::filesystem::path(dir) / name;
        if (std::filesystem::is_regular_file(preset, ec)) {
            return preset.string();
        }
    }
    return given;
}

Status OptionTable::applyConfig(const std::string& given) {
    const std::string path = resolveConfigPath(given);
    Result<nlohmann::json> doc = readJsonFile(path);
    if (!doc) {
        if (doc.error().kind == ErrorKind::kIo && given.find('/') == std::string::npos) {
            // Neither a file nor a preset: say which presets there are.
            std::string tried;
            const std::string dir = demo::findAssetsDir(&tried);
            std::string names;
            for (const std::string& preset : demo::listPresets(dir)) {
                names +=
                    (names.empty() ? "" : ", ") + std::filesystem::path(preset).stem().string();
            }
            return Error{ErrorKind::kIo,
                         doc.error().message +
                             (dir.empty() ? " (no presets folder found: looked in " + tried + ")"
                                          : ", or name a preset of " + dir + ": " + names)};
        }
        return doc.error();
    }
    bool ok = false;
    const std::string text = readText(path, ok);
    auto place = [&](const std::string& key) {
        const int line = lineOfKey(text, key);
        return path + (line > 0 ? ":" + std::to_string(line) : std::string());
    };
    auto where = [&](const std::string& key) { return place(key) + ": "; };
    if (!doc->is_object()) {
        return inputError(path + ": a config file must hold one JSON object of option keys");
    }
    for (const auto& item : doc->items()) {
        const std::string key = item.key();
        const nlohmann::json& value = item.value();
        auto it = std::find_if(m_entries.begin(), m_entries.end(),
                               [&](const Entry& e) { return e.name == key; });
        if (it == m_entries.end()) {
            return inputError(where(key) + "unknown key \"" + key + "\" (see `wavewall " +
                              m_command->get_name() +
                              " --help` for the options; each flag --NAME has the key \"NAME\")");
        }
        if (it->option->count() > 0) {
            continue;  // given on the command line: flags override the file
        }
        const std::string err = it->assign(value);
        if (!err.empty()) {
            return inputError(where(key) + err);
        }
        m_fromConfig.insert(key);
        m_configPlace[key] = place(key);
    }
    return {};
}

Error OptionTable::locate(Error e) const {
    const std::string& m = e.message;
    for (std::size_t at = m.find("--"); at != std::string::npos; at = m.find("--", at + 2)) {
        std::size_t end = at + 2;
        while (end < m.size() &&
               (std::islower(static_cast<unsigned char>(m[end])) != 0 ||
                std::isdigit(static_cast<unsigned char>(m[end])) != 0 || m[end] == '-')) {
            ++end;
        }
        const auto it = m_configPlace.find(m.substr(at + 2, end - at - 2));
        if (it != m_configPlace.end()) {
            e.message = it->second + ": key \"" + it->first + "\": " + m;
            return e;
        }
    }
    return e;
}

std::set<std::string> OptionTable::givenKeys() const {
    std::set<std::string> keys = m_fromConfig;
    for (const Entry& e : m_entries) {
        if (e.option->count() > 0) {
            keys.insert(e.name);
        }
    }
    return keys;
}

std::vector<std::string> OptionTable::floatKeys() const {
    std::vector<std::string> k;
    for (const Entry& e : m_entries) {
        if (e.isFloat) {
            k.push_back(e.name);
        }
    }
    return k;
}

nlohmann::json OptionTable::toJson(float v) {
    // The shortest decimal that reads back as this float, so 0.6f is written 0.6 rather than
    // the double 0.60000002384185791.
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, v).ptr;
    return std::strtod(std::string(text, end).c_str(), nullptr);
}

nlohmann::json OptionTable::values() const {
    nlohmann::json doc = nlohmann::json::object();
    for (const Entry& e : m_entries) {
        doc[e.name] = e.read();
    }
    return doc;
}

std::vector<std::string> OptionTable::keys() const {
    std::vector<std::string> k;
    for (const Entry& e : m_entries) {
        k.push_back(e.name);
    }
    return k;
}

}  // namespace ww::app
