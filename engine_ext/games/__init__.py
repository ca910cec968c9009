"""One module per game; importing a module registers its game."""
