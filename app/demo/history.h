// The demo's history: a bounded ring of saved scene states, one per frame that stepped, so
// that the user can step back and forward through the last seconds while paused (← / →, the
// panel's slider) and re-run from any of them with other settings (Jacobi or Gauss–Seidel,
// another ω, the other backend): stepping from a past state drops the states after it and
// records the new run in their place.
//
// Bounded twice: at most `maxSeconds` of simulated time and `maxBytes` of states (a 512²
// pool's state is 2 MB, so its history is shorter than the wall's). The oldest go first.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>

namespace ww::demo {

/// A scene's saved state, opaque to the demo (the scene that made it restores it).
class SavedState {
  public:
    virtual ~SavedState() = default;
    virtual std::size_t bytes() const = 0;
};

class History {
  public:
    static constexpr std::size_t kDefaultMaxMegabytes = 256;
    static constexpr std::size_t kDefaultMaxBytes = kDefaultMaxMegabytes << 20;
    static constexpr double kDefaultMaxSeconds = 10.0;

    explicit History(std::size_t maxBytes = kDefaultMaxBytes,
                     double maxSeconds = kDefaultMaxSeconds)
        : m_maxBytes(maxBytes), m_maxSeconds(maxSeconds) {}

    /// Forgets everything (a reset, another scene).
    void clear();
    /// Records the state shown at simulated time `simSeconds`. When an older state is being
    /// shown, the states after it are dropped first (the run continues from there). Then the
    /// oldest states go until both budgets hold (the newest always stays).
    void push(std::unique_ptr<SavedState> state, double simSeconds);
    /// Shows the state `delta` entries away from the one shown (clamped to the ring); returns
    /// it, or null when there is nothing to move to.
    const SavedState* move(int delta);
    /// Shows entry `index` (0 = oldest); null when out of range or already shown.
    const SavedState* moveTo(int index);

    int size() const { return static_cast<int>(m_entries.size()); }
    /// Index of the state shown (size() - 1 when live).
    int position() const { return m_position; }
    /// Entries between the shown state and the newest (0 when live).
    int stepsBack() const { return m_entries.empty() ? 0 : size() - 1 - m_position; }
    /// Simulated time from the oldest to the newest state, and from the shown to the newest.
    double spanSeconds() const;
    double backSeconds() const;
    /// Simulated time of the state shown (0 when empty): the next push adds its steps to it.
    double shownSeconds() const;
    std::size_t bytes() const { return m_bytes; }
    /// How many times a run continued from a past state (dropping newer ones).
    int reruns() const { return m_reruns; }

  private:
    struct Entry {
        std::unique_ptr<SavedState> state;
        double simSeconds = 0.0;
    };
    std::deque<Entry> m_entries;
    int m_position = -1;
    std::size_t m_bytes = 0;
    std::size_t m_maxBytes;
    double m_maxSeconds;
    int m_reruns = 0;
};

}  // namespace ww::demo
