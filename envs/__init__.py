"""levata.envs: every registered game as a reinforcement-learning environment.

* :mod:`levata.envs.pettingzoo`: a PettingZoo AEC environment (``pip install levata[envs]``);
* :mod:`levata.envs.openspiel`: an OpenSpiel Python game per levata game, registered with
  ``pyspiel`` on import (``pip install levata[envs]`` too);
* :mod:`levata.envs.encoding`: the observation tensor and fixed action space both share,
  derived from each game's declarations; ``python -m levata.envs describe GAME`` prints it.

The environments stand on the engine alone (never the server, nor the bots): importing this
package imports neither PettingZoo nor OpenSpiel. See docs/envs.md.
"""
