#include "app/demo/param_widgets.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <type_traits>

namespace ww::app {

namespace {

// The tooltip: why the row is greyed out, else its help and unit, wrapped to a readable width.
void tooltip(const ParamInfo& info, const std::string& inactiveWhy) {
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        return;
    }
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    if (!inactiveWhy.empty()) {
        ImGui::TextUnformatted(inactiveWhy.c_str());
    } else {
        ImGui::TextUnformatted(info.help.c_str());
        if (!info.unit.empty()) {
            ImGui::TextDisabled("unit: %s; --%s, config key \"%s\"", info.unit.c_str(),
                                info.key.c_str(), info.key.c_str());
        } else {
            ImGui::TextDisabled("--%s, config key \"%s\"", info.key.c_str(), info.key.c_str());
        }
    }
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

template <typename T>
constexpr ImGuiDataType dataType() {
    if constexpr (std::is_same_v<T, int>) {
        return ImGuiDataType_S32;
    } else if constexpr (std::is_same_v<T, float>) {
        return ImGuiDataType_Float;
    } else {
        return ImGuiDataType_Double;
    }
}

template <typename T>
ParamEdit drawNumber(const ParamInfo& info, T& value) {
    ParamEdit edit;
    const char* label = info.label.c_str();
    if (info.widget == ParamWidget::kSlider || info.widget == ParamWidget::kLogSlider) {
        // The slider spans the drag range; ctrl+click types any value, which the range check
        // then accepts or refuses.
        const T lo = static_cast<T>(info.range.dragLo);
        const T hi = static_cast<T>(info.range.dragHi);
        const std::string format =
            std::string(std::is_same_v<T, int> ? "%d" : "%.3g") +
            (info.unit.empty() || info.unit.size() > 8 ? "" : " " + info.unit);
        const ImGuiSliderFlags flags =
            info.widget == ParamWidget::kLogSlider ? ImGuiSliderFlags_Logarithmic : 0;
        edit.changed =
            ImGui::SliderScalar(label, dataType<T>(), &value, &lo, &hi, format.c_str(), flags);
        edit.committed = ImGui::IsItemDeactivatedAfterEdit();
    } else {
        const char* format = std::is_same_v<T, int> ? "%d" : "%.6g";
        edit.changed = ImGui::InputScalar(label, dataType<T>(), &value, nullptr, nullptr, format,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
        edit.committed = edit.changed;
    }
    return edit;
}

ParamEdit drawText(const ParamInfo& info, std::string& value) {
    ParamEdit edit;
    if (info.widget == ParamWidget::kToggle) {
        bool on = value == "on";
        if (ImGui::Checkbox(info.label.c_str(), &on)) {
            value = on ? "on" : "off";
            edit.changed = edit.committed = true;
        }
    } else if (info.widget == ParamWidget::kChoice) {
        if (ImGui::BeginCombo(info.label.c_str(), value.c_str())) {
            for (const std::string& choice : info.choices) {
                const bool selected = choice == value;
                if (ImGui::Selectable(choice.c_str(), selected) && !selected) {
                    value = choice;
                    edit.changed = edit.committed = true;
                }
            }
            ImGui::EndCombo();
        }
    } else {
        std::array<char, 64> text{};
        value.copy(text.data(), text.size() - 1);
        if (ImGui::InputText(info.label.c_str(), text.data(), text.size(),
                             ImGuiInputTextFlags_EnterReturnsTrue)) {
            value = text.data();
            edit.changed = edit.committed = true;
        }
    }
    return edit;
}

}  // namespace

ParamEdit drawParamWidget(const ParamInfo& info, SceneOptionValues& v,
                          const std::string& inactiveWhy) {
    ImGui::BeginDisabled(!inactiveWhy.empty());
    const ParamEdit edit = visitParam(info.field, v, [&](auto& value) {
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
            return drawText(info, value);
        } else {
            return drawNumber(info, value);
        }
    });
    ImGui::EndDisabled();
    tooltip(info, inactiveWhy);
    return edit;
}

}  // namespace ww::app
