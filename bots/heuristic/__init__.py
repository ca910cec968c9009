"""Hand-written, explainable bots: one module per game, each with a ``HeuristicBot`` class."""
