"""levata.bots: the bot interface and the reference bots.

A bot is anything with ``act(view, legal) -> Action``, or that function alone; the same
object plays in-process or, through the SDK, over gRPC (``docs/python-bots.md``).

>>> from levata.bots import make_bot
>>> bot = make_bot("random", game="whist", seed=1)
>>> bot.name
'random'
"""

from levata.bots.base import Bot, RandomBot, as_bot, bot_names, make_bot
from levata.bots.play import BotFailed, play_match

__all__ = ["Bot", "BotFailed", "RandomBot", "as_bot", "bot_names", "make_bot", "play_match"]
