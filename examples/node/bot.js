#!/usr/bin/env node
// A minimal levata bot in Node.js: speaks protocol version "1" of levata.v1.ArenaService
// and plays every match it is seated in by picking one of the legal actions the referee
// lists. It knows no rules: the referee's DecisionRequest.legal list is all it needs.
//
//   LEVATA_TOKEN=TOKEN node bot.js --server HOST:PORT [--name NAME] [--seed N]
//               [--token-file FILE] [--policy random|first] [--tls-ca FILE] [--proto DIR]
//               [--connect-timeout MS] [--reconnect-timeout MS] [--matches N]
//   node bot.js --check-protos [--proto DIR]      (offline self-check, used by `npm test`)
//
// The token comes from $LEVATA_TOKEN or --token-file, never from the command line (which
// every local user can read).
//
// When the stream breaks (the referee restarts, the network drops) the bot reconnects with
// exponential backoff, for up to --reconnect-timeout: its Hello carries the resume token of
// the last Welcome and the last event seen per match, so a referee that kept the match
// resumes the seat where it was; a restarted one treats it as a fresh Hello and seats the
// bot again in every match that waits for it (the match goes on from its record).
//
// Exit status: 0 when the server ends the stream cleanly or on SIGINT/SIGTERM; 1 when the
// server cannot be reached (at start, or again within --reconnect-timeout) or the stream
// fails otherwise; 2 on bad usage; 3 when the token is rejected.
'use strict';

const fs = require('fs');
const path = require('path');
const { parseArgs } = require('util');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOCOL_VERSION = '1';
const USAGE = 'usage: LEVATA_TOKEN=TOKEN node bot.js --server HOST:PORT [--token-file FILE] [--name NAME] [--seed N]\n' +
  '                   [--policy random|first] [--tls-ca FILE] [--proto DIR] [--connect-timeout MS]\n' +
  '                   [--reconnect-timeout MS] [--matches N]\n' +
  '       node bot.js --check-protos [--proto DIR]';

function die(code, message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

// ---- command line ---------------------------------------------------------------------
function parseCommandLine() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        server: { type: 'string' },
        'token-file': { type: 'string' },
        name: { type: 'string', default: 'node-bot' },
        seed: { type: 'string', default: '1' },
        policy: { type: 'string', default: 'random' },
        'tls-ca': { type: 'string' },
        proto: { type: 'string', default: path.join(__dirname, '..', '..', 'proto') },
        'connect-timeout': { type: 'string', default: '10000' },
        'reconnect-timeout': { type: 'string', default: '60000' },
        matches: { type: 'string', default: '0' },
        'check-protos': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    die(2, `${err.message}\n${USAGE}`);
  }
  if (values.help) { process.stdout.write(USAGE + '\n'); process.exit(0); }
  if (!values['check-protos']) {
    if (!values.server) die(2, `--server is required\n${USAGE}`);
    values.token = readToken(values['token-file']);
  }
  if (!Object.hasOwn(POLICIES, values.policy)) die(2, `unknown --policy ${values.policy} (${Object.keys(POLICIES).join('|')})`);
  if (!/^-?\d+$/.test(values.seed)) die(2, `--seed must be an integer, got ${values.seed}`);
  if (!/^\d+$/.test(values.matches)) die(2, `--matches must be a count, got ${values.matches}`);
  for (const flag of ['connect-timeout', 'reconnect-timeout']) {
    if (!/^\d+$/.test(values[flag])) die(2, `--${flag} must be milliseconds, got ${values[flag]}`);
  }
  return values;
}

// The bot's token: --token-file (owner-only, like an ssh key) or $LEVATA_TOKEN.
function readToken(file) {
  if (file) {
    let st;
    try { st = fs.statSync(file); } catch (err) { die(2, `cannot read ${file}: ${err.code}`); }
    if (st.mode & 0o077) die(2, `${file} is readable by others: chmod 600 ${file}`);
    const token = fs.readFileSync(file, 'utf8').trim();
    if (!token) die(2, `${file} is empty`);
    return token;
  }
  const token = (process.env.LEVATA_TOKEN || '').trim();
  if (!token) die(2, `no token: set LEVATA_TOKEN or pass --token-file FILE\n${USAGE}`);
  return token;
}

// ---- protocol definitions, loaded from the .proto files at runtime ----------------------
// google/protobuf/{timestamp,struct}.proto are bundled with protobufjs, so proto/ is enough.
// int64 fields arrive as decimal strings (longs: String), enums as their names, and the
// `message` / `choice` fields name the member of each oneof that is set.
function loadArena(protoDir) {
  const file = path.join(protoDir, 'levata', 'v1', 'arena.proto');
  if (!fs.existsSync(file)) die(2, `no ${file}; pass --proto DIR (the repository's proto/ folder)`);
  const definition = protoLoader.loadSync('levata/v1/arena.proto', {
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
    includeDirs: [protoDir],
  });
  return grpc.loadPackageDefinition(definition).levata.v1;
}

function checkProtos(protoDir) {
  const service = loadArena(protoDir).ArenaService.service;
  process.stdout.write(`levata.v1.ArenaService methods: ${Object.keys(service).join(', ')}\n`);
  const play = service.Play;
  if (!play || !play.requestStream || !play.responseStream) die(1, 'ArenaService has no bidirectional Play');
  // A zero index is a real choice: it must survive encoding (it is a oneof member).
  const wire = play.requestSerialize({ reply: { match_id: 'm', request_id: 'r', state_version: '7', index: 0 } });
  const back = play.requestDeserialize(wire);
  if (back.message !== 'reply' || back.reply.choice !== 'index' || back.reply.index !== 0) die(1, 'index 0 does not round-trip');
  process.stdout.write('ok: Play is bidirectional streaming; a reply with index 0 round-trips\n');
}

// ---- policies -------------------------------------------------------------------------
// mulberry32: a tiny seeded PRNG returning floats in [0, 1).
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// FNV-1a of the seed and the match id: each match gets its own random stream, so a match
// replays the same way however the matches on the stream interleave.
function matchSeed(seed, matchId) {
  let h = 0x811c9dc5;
  for (const ch of `${seed}/${matchId}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return h >>> 0;
}

// A policy picks one entry of `legal` (a list of {index, action}) and returns it. The
// request carries the seat's whole view (request.view) for smarter policies.
const POLICIES = {
  first: (legal) => legal[0],
  random: (legal, request, rng) => legal[Math.floor(rng() * legal.length)],
};

// ---- reconnecting ---------------------------------------------------------------------
// A broken stream is retried when the referee may come back: it restarts (UNAVAILABLE: "the
// referee is stopping; reconnect", or the connection refused), is busy (RESOURCE_EXHAUSTED),
// or the connection broke mid-stream. A rejected token or protocol never is.
const RETRYABLE = new Set([
  grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.INTERNAL,
  grpc.status.UNKNOWN, grpc.status.DEADLINE_EXCEEDED,
]);

// Exponential backoff with full jitter: 100 ms, 200 ms, ... up to 5 s between tries, each
// drawn at random below its cap so that many bots of one restarted referee do not all come
// back in the same instant. A stream that got its Welcome resets it.
class Backoff {
  constructor(rng, firstMs = 100, maxMs = 5000) {
    Object.assign(this, { rng, firstMs, maxMs, tries: 0 });
  }
  next() {
    const cap = Math.min(this.maxMs, this.firstMs * 2 ** this.tries);
    this.tries += 1;
    return Math.round(cap / 2 + (this.rng() * cap) / 2);
  }
  reset() { this.tries = 0; }
}

// ---- playing --------------------------------------------------------------------------
function play(opts) {
  const arena = loadArena(opts.proto);
  let credentials = grpc.credentials.createInsecure();
  if (opts['tls-ca']) {
    try {
      credentials = grpc.credentials.createSsl(fs.readFileSync(opts['tls-ca']));
    } catch (err) {
      die(2, `cannot read --tls-ca ${opts['tls-ca']}: ${err.message}`);
    }
  }
  const client = new arena.ArenaService(opts.server, credentials);
  const policy = POLICIES[opts.policy];
  // match_id -> {game, seat, rng, pending: {request, tried}, lastSeq}; kept across streams
  const matches = new Map();
  const backoff = new Backoff(mulberry32(matchSeed(opts.seed, 'reconnect')));
  let shuttingDown = false;
  let call = null;
  let finished = 0; // matches over, for --matches
  let resumeToken = ''; // from the last Welcome: a referee that kept our seats resumes them
  let lostSince = null; // when the stream broke (null: connected, or never yet)

  // On SIGINT/SIGTERM: half-close the stream, give the server a second to end it, then cancel.
  const stop = () => {
    if (shuttingDown) return;
    shuttingDown = true;
    if (!call) process.exit(0);
    call.end();
    setTimeout(() => { call.cancel(); process.exit(0); }, 1000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  function matchState(matchId) {
    if (!matches.has(matchId)) {
      matches.set(matchId, { game: '?', seat: -1, rng: mulberry32(matchSeed(opts.seed, matchId)), pending: null, lastSeq: null });
    }
    return matches.get(matchId);
  }

  // Per match, the last event received: sent in Hello so that a resumed seat gets only what
  // it missed.
  function lastSeen() {
    const seen = {};
    for (const [id, m] of matches) if (m.lastSeq !== null) seen[id] = m.lastSeq;
    return seen;
  }

  // The stream broke: try again after a backoff while the allowance lasts, else give up.
  function reconnect(why) {
    const now = Date.now();
    lostSince = lostSince || now;
    const left = lostSince + Number(opts['reconnect-timeout']) - now;
    if (left <= 0) die(1, `lost the server at ${opts.server}: ${why} (no way back in ${opts['reconnect-timeout']} ms)`);
    const wait = Math.min(backoff.next(), left);
    process.stderr.write(`stream lost (${why}); reconnecting in ${wait} ms\n`);
    for (const m of matches.values()) m.pending = null; // a fresh request comes on the new stream
    setTimeout(() => connect(lostSince + Number(opts['reconnect-timeout'])), wait);
  }

  function connect(deadline) {
    client.waitForReady(deadline, (err) => {
      if (shuttingDown) return;
      if (err) {
        if (lostSince !== null) die(1, `lost the server at ${opts.server}: cannot reconnect: ${err.message}`);
        die(1, `cannot connect to ${opts.server}: ${err.message}`);
      }
      openStream();
    });
  }

  function openStream() {
    call = client.Play();
    const stream = call;
    const send = (msg) => { if (!shuttingDown) stream.write(msg); };

    // Choose among the legal actions not yet refused for this request, and reply.
    function answer(match, pending) {
      const options = pending.request.legal.filter((l) => !pending.tried.has(l.index));
      if (options.length === 0) {
        process.stderr.write(`match ${pending.request.match_id}: no untried legal action for request ${pending.request.request_id}\n`);
        return;
      }
      const choice = policy(options, pending.request, match.rng);
      pending.tried.add(choice.index);
      const { match_id, request_id, state_version } = pending.request;
      send({ reply: { match_id, request_id, state_version, index: choice.index } });
    }

    const handlers = {
      welcome(w) {
        const again = lostSince === null ? '' : w.resumed ? ' again, seats resumed'
          : ' again, a fresh session (the referee restarted)';
        process.stderr.write(`connected as ${w.bot_name} (protocol ${w.protocol_version})${again}\n`);
        resumeToken = w.resume_token;
        lostSince = null;
        backoff.reset();
      },
      match_start(s) {
        Object.assign(matchState(s.match_id), { game: s.game, seat: s.seat });
      },
      // A smarter bot would track the match here; this one notes only how far it has seen.
      event(e) {
        const seq = Number(e.event && e.event.seq);
        const match = matchState(e.match_id);
        if (Number.isFinite(seq) && (match.lastSeq === null || seq > match.lastSeq)) match.lastSeq = seq;
      },
      request(r) {
        if (r.legal.length === 0) {
          process.stderr.write(`match ${r.match_id}: request ${r.request_id} lists no legal action\n`);
          return;
        }
        // In real-time games a newer request supersedes the previous one: answer each.
        const match = matchState(r.match_id);
        match.pending = { request: r, tried: new Set() };
        answer(match, match.pending);
      },
      applied(a) {
        const match = matchState(a.match_id);
        if (match.pending && match.pending.request.request_id === a.request_id) match.pending = null;
        if (a.substituted) process.stderr.write(`match ${a.match_id}: too slow, referee played ${a.action.notation} (strikes ${a.strikes})\n`);
      },
      error(e) {
        process.stderr.write(`match ${e.match_id}: reply to ${e.request_id} refused: ${e.code} ${e.message}\n`);
        // Only an illegal or malformed answer to the current request is worth another try;
        // a stale or unknown request has been superseded (a fresh request will come).
        const match = matches.get(e.match_id);
        const pending = match && match.pending;
        if (pending && pending.request.request_id === e.request_id &&
            ['REPLY_ERROR_CODE_ILLEGAL_ACTION', 'REPLY_ERROR_CODE_MALFORMED'].includes(e.code)) {
          answer(match, pending);
        }
      },
      match_end(m) {
        const match = matchState(m.match_id);
        const r = m.result || {};
        const list = (xs) => `[${(xs || []).join(', ')}]`;
        process.stdout.write(`match ${m.match_id} (${match.game}, seat ${match.seat}) over: ` +
          `ranks ${list(r.ranks)} scores ${list(r.scores)} reason ${r.reason || '?'}\n`);
        matches.delete(m.match_id);
        finished += 1;
        if (Number(opts.matches) > 0 && finished >= Number(opts.matches)) stop(); // --matches N
      },
    };

    stream.on('data', (msg) => {
      const handler = handlers[msg.message];
      if (handler) handler(msg[msg.message]);
      else process.stderr.write(`ignoring unknown message ${JSON.stringify(msg)}\n`);
    });
    stream.on('error', () => {}); // The final 'status' event reports every outcome.
    stream.on('status', (status) => {
      if (shuttingDown || status.code === grpc.status.OK) { client.close(); process.exit(0); }
      if (status.code === grpc.status.UNAUTHENTICATED || status.code === grpc.status.PERMISSION_DENIED) {
        die(3, `the server rejected the token: ${status.details}`);
      }
      if (RETRYABLE.has(status.code)) {
        reconnect(`${grpc.status[status.code]}: ${status.details}`);
        return;
      }
      die(1, `stream ended with ${grpc.status[status.code]}: ${status.details}`);
    });

    stream.write({
      hello: {
        token: opts.token, name: opts.name, protocol_version: PROTOCOL_VERSION, games: [],
        resume_token: resumeToken, last_seen: lastSeen(),
      },
    });
  }

  connect(Date.now() + Number(opts['connect-timeout']));
}

const opts = parseCommandLine();
if (opts['check-protos']) checkProtos(opts.proto);
else play(opts);
