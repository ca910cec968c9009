"""Search bots: they play any game through the contract and the game's own search hooks."""
