"""The Penguins player's ``name`` call, on its own: a game master asks it before every game,
and it must cost no more than starting the interpreter (nothing else is imported).

The id is ``id=TEXT`` when given (non-empty, no spaces), else ``penguins-STRATEGY``; other
arguments are ignored, as the spec says, and an invalid ``id=`` or ``strategy=`` too.
"""

__all__ = ["DEFAULT_STRATEGY", "STRATEGY_NAMES", "name_of"]

#: The strategies of :data:`penguins.strategies.STRATEGIES`, by name (a test keeps them equal).
STRATEGY_NAMES = ("random", "greedy", "alphabeta", "minimax2", "territory")
DEFAULT_STRATEGY = "territory"


def name_of(argv: list[str]) -> str:
    """The id ``name`` prints for this command line."""
    ident, strategy = None, DEFAULT_STRATEGY
    for argument in argv:
        key, equals, value = argument.partition("=")
        if not equals:
            continue
        if key == "id" and value and not any(ch.isspace() for ch in value):
            ident = value
        elif key == "strategy" and value in STRATEGY_NAMES:
            strategy = value
    return ident if ident is not None else f"penguins-{strategy}"
