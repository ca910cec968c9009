"""A bot in plain Python with no levata import: the JSON-lines bridge protocol (docs/bots.md).

Run it with:  LEVATA_TOKEN=T levata bot bridge --server HOST:PORT -- python3 first_legal.py

Each input line is one message (protobuf JSON mapping, lowerCamelCase names, every field
present): ``matchStart``, ``request``, ``error`` or ``matchEnd``. It answers each request with
one line: the highest-numbered bid, else the first legal card play, else the first legal
action; it checks that the view's history is complete and says on stderr why a reply was
refused.
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "error" in message:
        print(f"refused: {message['error']['message']}", file=sys.stderr)
        continue
    if "request" not in message:
        continue  # matchStart, matchEnd: nothing to answer
    request = message["request"]
    legal = request["legal"]
    seqs = [int(e["seq"]) for e in request["view"]["history"]]
    assert seqs == sorted(seqs), "history arrives in order"
    bids = [a for a in legal if a["action"]["kind"] == "bid"]
    plays = [a for a in legal if a["action"]["kind"] == "play"]
    if bids:
        choice = {"action": {"notation": bids[-1]["action"]["notation"]}}  # by notation
    elif plays:
        choice = {"index": plays[0]["index"]}
    else:
        choice = {"index": legal[0]["index"]}
    print(json.dumps(choice), flush=True)
