// A levata bot in C++17: it plays through `levata bot bridge` (docs/bots.md), reading one
// JSON message per line on stdin and answering each request with one line on stdout.
//
// Its rule: play the lowest-ranked card it may (ties: the first listed), else bid the
// smallest number it may, else take the first legal action. Any game, any seat.
//
// Build:  g++ -std=c++17 -O2 -o lowest lowest.cpp      (JSON: nlohmann-json3-dev)
// Run:    LEVATA_TOKEN=T levata bot bridge --server HOST:PORT -- ./lowest

#include <iostream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

using nlohmann::json;

// The index of the action to take among request["legal"] (never empty in a request).
static int choose(const json& legal) {
    int best = -1;
    long best_key = std::numeric_limits<long>::max();
    for (const json& option : legal) {
        const json& action = option["action"];
        const std::string kind = action["kind"];
        long key;
        if (kind == "play" && action.contains("card")) {
            key = action["card"]["rank"].get<int>();  // 2..14, the ace is 14
        } else if (kind == "bid" && action.contains("number")) {
            key = 100 + action["number"].get<long>();  // after any card: plays come first
        } else {
            continue;
        }
        if (key < best_key) {
            best_key = key;
            best = option["index"].get<int>();
        }
    }
    return best >= 0 ? best : legal[0]["index"].get<int>();
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    long played = 0;
    while (std::getline(std::cin, line)) {
        const json message = json::parse(line);
        if (message.contains("request")) {
            const json& request = message["request"];
            json reply = {{"index", choose(request["legal"])}};
            std::cout << reply.dump() << std::endl;  // endl flushes: the reply goes now
            ++played;
        } else if (message.contains("error")) {
            std::cerr << "refused: " << message["error"]["message"].get<std::string>() << "\n";
        } else if (message.contains("matchEnd")) {
            const json& result = message["matchEnd"]["result"];
            std::cerr << "match " << message["matchEnd"]["matchId"].get<std::string>()
                      << " over after " << played << " decisions: " << result["reason"]
                      << "\n";
            played = 0;
        }
    }
    return 0;
}
