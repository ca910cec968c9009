"""levata.bots: the bot interface and the reference bots.

A bot is anything with ``act(view, legal) -> Action``; the same object plays in-process or,
through the SDK, over gRPC.

>>> from levata.bots import make_bot
>>> bot = make_bot("random", game="whist", seed=1)
>>> bot.name
'random'
"""

from levata.bots.base import Bot, RandomBot, bot_names, make_bot
from levata.bots.play import play_match

__all__ = ["Bot", "RandomBot", "bot_names", "make_bot", "play_match"]
