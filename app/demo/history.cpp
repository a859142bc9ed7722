#include "app/demo/history.h"

#include <algorithm>

namespace ww::demo {

void History::clear() {
    m_entries.clear();
    m_position = -1;
    m_bytes = 0;
}

void History::push(std::unique_ptr<SavedState> state, double simSeconds) {
    if (!state) {
        return;
    }
    if (stepsBack() > 0) {
        while (size() - 1 > m_position) {
            m_bytes -= m_entries.back().state->bytes();
            m_entries.pop_back();
        }
        ++m_reruns;
    }
    m_bytes += state->bytes();
    m_entries.push_back({std::move(state), simSeconds});
    while (m_entries.size() > 1 &&
           (m_bytes > m_maxBytes ||
            m_entries.back().simSeconds - m_entries.front().simSeconds > m_maxSeconds)) {
        m_bytes -= m_entries.front().state->bytes();
        m_entries.pop_front();
    }
    m_position = size() - 1;
}

const SavedState* History::move(int delta) {
    if (m_entries.empty()) {
        return nullptr;
    }
    return moveTo(std::clamp(m_position + delta, 0, size() - 1));
}

const SavedState* History::moveTo(int index) {
    if (index < 0 || index >= size() || index == m_position) {
        return nullptr;
    }
    m_position = index;
    return m_entries[static_cast<std::size_t>(index)].state.get();
}

double History::spanSeconds() const {
    return m_entries.empty() ? 0.0 : m_entries.back().simSeconds - m_entries.front().simSeconds;
}

double History::shownSeconds() const {
    return m_entries.empty() ? 0.0 : m_entries[static_cast<std::size_t>(m_position)].simSeconds;
}

double History::backSeconds() const {
    return m_entries.empty() ? 0.0
                             : m_entries.back().simSeconds -
                                   m_entries[static_cast<std::size_t>(m_position)].simSeconds;
}

}  // namespace ww::demo
