"""What each agent has been told it sees (spec dungeon.md section 3), kept so that every
``seen: true`` is later matched by exactly one ``seen: false``.

An agent's *sightings* are the (location, entity) pairs it was last told are in sight: the enemy
heir wherever it is (always visible, reported only this way), every other enemy agent on the
agent's node or a neighbour, and every NPC there (entity -1). After anything moves, the engine
asks for the difference between what each agent should now see and what it was told: the pairs
that went away are reported unseen, then the new ones seen. Because a change of place is a new
pair, an entity that moves is reported unseen at its old node before seen at its new one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from dungeon.engine_io import AGENTS, HEIR, TEAM_SIZE, AgentId, Outbound
from dungeon.generation import Dungeon
from protocol import messages as wire

__all__ = ["NPC", "Sighting", "Sightings", "sighting_updates"]

#: The entity number of an NPC in `enemy` messages and `moved.killed`.
NPC = -1
#: (location, entity, seen)
Sighting = tuple[int, int, bool]


class Sightings:
    """The sightings of every watcher (agent index 0-11), and their updates.

    A watcher's sightings depend only on its node, the enemy agents' nodes and the NPCs' nodes.
    NPCs are only ever removed (a killed NPC is gone for good), so the number of NPCs left
    tells whether their set changed; an update whose inputs are those of the watcher's previous
    update has nothing to report and returns at once (most watchers, after most crossings), and
    one where only enemies moved looks at those enemies alone.
    """

    def __init__(
        self, views: Sequence[Set[int]] | Mapping[int, Set[int]], watchers: int = 12
    ) -> None:
        self._views = views
        self._told: list[set[tuple[int, int]]] = [set() for _ in range(watchers)]
        # Per watcher: (its node, the enemy agents' nodes..., NPCs left) at its last update.
        self._inputs: list[tuple[int, ...]] = [()] * watchers

    def told(self, watcher: int) -> frozenset[tuple[int, int]]:
        """The (location, entity) pairs the watcher was told it sees and not yet told it lost."""
        return frozenset(self._told[watcher])

    def clone(self) -> Sightings:
        twin = Sightings(self._views, len(self._told))
        twin._told = [set(told) for told in self._told]
        twin._inputs = list(self._inputs)
        return twin

    def update(
        self,
        watcher: int,
        here: int,
        enemy_locations: Sequence[int],
        npcs: Set[int],
    ) -> list[Sighting]:
        """Bring one watcher (standing on ``here``) up to date: its unseen, then its seen.

        ``npcs`` may only have lost members since the previous call (see the class docstring).
        """
        inputs = (here, *enemy_locations, len(npcs))
        before = self._inputs[watcher]
        if inputs == before:
            return []
        self._inputs[watcher] = inputs
        view = self._views[here]
        told = self._told[watcher]
        if before and before[0] == here and before[-1] == inputs[-1]:
            return _enemies_moved(told, view, before[1:-1], enemy_locations)
        # The enemy heir (entity 0) is always in sight, wherever it is.
        now = {(enemy_locations[0], 0)}
        for entity in range(1, len(enemy_locations)):
            location = enemy_locations[entity]
            if location in view:
                now.add((location, entity))
        # Set intersection walks the smaller set (a view has ~12 nodes, the NPCs ~75).
        for node in npcs & view:
            now.add((node, NPC))
        if now == told:
            return []
        self._told[watcher] = now
        lost = sorted(told - now)
        found = sorted(now - told)
        return [(loc, entity, False) for loc, entity in lost] + [
            (loc, entity, True) for loc, entity in found
        ]


def _enemies_moved(
    told: set[tuple[int, int]], view: Set[int], before: Sequence[int], after: Sequence[int]
) -> list[Sighting]:
    """Sightings.update for a watcher that stands where it stood and sees the same NPCs: only
    the enemies that moved change what it sees, so only they are looked at."""
    lost: list[Sighting] = []
    found: list[Sighting] = []
    for entity, (was, now) in enumerate(zip(before, after, strict=True)):
        if was == now:
            continue
        # The enemy heir (entity 0) is always in sight, wherever it is.
        if entity == 0 or was in view:
            told.remove((was, entity))
            lost.append((was, entity, False))
        if entity == 0 or now in view:
            told.add((now, entity))
            found.append((now, entity, True))
    # In update's order: each entity is in each list at most once, so its pairs sort them.
    lost.sort()
    found.sort()
    return lost + found


def sighting_updates(
    sightings: Sightings,
    dungeon: Dungeon,
    locations: Sequence[Sequence[int]],
    npcs: Set[int],
    arrivals: list[tuple[AgentId, int]] | None = None,
) -> list[Outbound]:
    """`enemy` messages bringing every agent's sightings up to date (unseen before seen), for
    agents standing on ``locations`` (by team, then agent) among ``npcs``.

    With ``arrivals`` (each agent put somewhere since the last update, with the node it
    left), only the watchers whose sightings may have changed are looked at: the agents
    that moved, everyone when the enemy heir moved (always in sight), and those whose view
    holds a node an enemy left or reached, or one where an NPC may have died (NPCs die
    only where an agent arrives). The others' enemies moved out of their sight, and a team
    mate's move alone changes nothing a watcher sees, so those are skipped: most of a
    match's sighting computations (see docs/dungeon.md, "Why the hot paths look so").
    """
    updates: list[Outbound] = []
    update = sightings.update
    views = dungeon.views
    everyone = arrivals is None
    npcs_at_start = dungeon.npcs
    movers: set[AgentId] = set()
    # touched[t]: the nodes where what team t's agents see may have changed.
    touched: tuple[set[int], set[int]] = (set(), set())
    heir_moved = [False, False]
    for mover, left in arrivals or ():
        movers.add(mover)
        reached = locations[mover.team][mover.agent]
        seen_by_enemy = touched[1 - mover.team]
        seen_by_enemy.add(left)
        seen_by_enemy.add(reached)
        if reached in npcs_at_start:
            touched[mover.team].add(reached)
        if mover.agent == HEIR:
            heir_moved[mover.team] = True
    for team in (0, 1):
        mine, theirs = locations[team], locations[1 - team]
        look_at_all = everyone or heir_moved[1 - team]
        changed_here = touched[team]
        for number, here in enumerate(mine):
            # AgentId is a NamedTuple: (team, number) finds it in ``movers``.
            if (
                not look_at_all
                and (team, number) not in movers
                and changed_here.isdisjoint(views[here])
            ):
                continue
            watcher = team * TEAM_SIZE + number
            changes = update(watcher, here, theirs, npcs)
            if changes:
                agent = AGENTS[watcher]
                updates += [
                    Outbound(agent, wire.Enemy(location, entity, seen))
                    for location, entity, seen in changes
                ]
    return updates
