"""One package per game (``games/<name>/``): its rules and its spec, which it registers when
imported. The registry finds every package here by itself
(:func:`levata.engine.registry.game_packages`)."""
