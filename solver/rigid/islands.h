// Islands: connected components of the graph whose nodes are the non-static bodies and whose
// edges are contacts between two non-static bodies (static bodies do not connect islands:
// the ground carries every brick without coupling their contact problems). Each island's
// contacts form an independent dense LCP block; the LCP matrix of the whole scene is then
// block diagonal (Moravanszky's "dynamically decomposed into small sub-problems").
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/rigid/body.h"
#include "solver/rigid/contacts.h"

namespace ww::rigid {

/// Contacts grouped by island. Islands are ordered by their smallest body index and contacts
/// keep their relative order inside an island, so the grouping is deterministic.
struct IslandSet {
    std::vector<int> contactOrder;  ///< contact indices, island by island
    std::vector<int> islandStart;   ///< size islands + 1: offsets into contactOrder
    int count() const { return static_cast<int>(islandStart.size()) - 1; }
    /// The contact indices of island k.
    std::span<const int> contactsOf(int k) const {
        const auto begin = static_cast<std::size_t>(islandStart[static_cast<std::size_t>(k)]);
        const auto end = static_cast<std::size_t>(islandStart[static_cast<std::size_t>(k) + 1]);
        return std::span<const int>(contactOrder).subspan(begin, end - begin);
    }
};

class IslandBuilder {
  public:
    /// Groups the contacts by island; the per-contact passes run on `ex` when given (the same
    /// result).
    void build(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
               IslandSet& out, const exec::Executor* ex = nullptr);

  private:
    int find(int i);
    std::vector<int> m_parent;
    std::vector<int> m_label;        ///< per body: its island's label
    std::vector<int> m_contactBody;  ///< per contact: its non-static body, then its island
    std::vector<std::pair<int, int>> m_join;  ///< per contact: the bodies it joins, or (-1, -1)
    std::vector<int> m_counts;
    /// The last build's per-contact arrays (before labelling), body count and answer: the
    /// same arrays give the same islands.
    std::vector<int> m_lastContactBody;
    std::vector<std::pair<int, int>> m_lastJoin;
    int m_lastBodies = -1;
    IslandSet m_last;
};

}  // namespace ww::rigid
