"""A bot in plain Python with no levata import: the JSON-lines bridge protocol.

Run it with:  LEVATA_TOKEN=T levata bot bridge --server HOST:PORT -- python3 first_legal.py

Each input line is a DecisionRequest (protobuf JSON mapping, lowerCamelCase names); each
output line is a reply. It plays the highest-numbered bid, else the first legal card play,
else the first legal action, and checks that the view's history is complete.
"""

import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    legal = request["legal"]
    history = request["view"].get("history", [])
    seqs = [int(e.get("seq", 0)) for e in history]
    assert seqs == sorted(seqs), "history arrives in order"
    bids = [a for a in legal if a["action"]["kind"] == "bid"]
    plays = [a for a in legal if a["action"]["kind"] == "play"]
    if bids:
        choice = {"action": {"notation": bids[-1]["action"]["notation"]}}  # by notation
    elif plays:
        choice = {"index": plays[0].get("index", 0)}
    else:
        choice = {"index": legal[0].get("index", 0)}
    print(json.dumps(choice), flush=True)
