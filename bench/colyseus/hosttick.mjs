// Colyseus state sync (@colyseus/schema) measured the way Tandem's
// BenchmarkHostTick (net/session/bench_test.go) measures a host tick: a world of
// 20,000 networked entities with a position, an angle and a velocity, one
// synced client, and per tick k entities moved (x += 1, rotating through the
// entities), the changes encoded and the bytes handed to a send that does
// nothing. The client decodes each patch outside the timer, as the Go
// benchmark steps its client outside the timer.
//
// It prints Go benchmark lines that benchstat reads:
//
//   BenchmarkColyseusHostTick/changes-1000  2085  479627 ns/op  8982 bytes/tick
//
// Usage: node --expose-gc hosttick.mjs [-benchtime 1s] [-changes 100,1000]
//        [-entities 20000] [-fields quantized|float32|number]
//
// -fields picks how the six numbers of an entity are declared:
//   quantized  (default) t.quantized/t.angle, the narrowest widths that hold
//              Tandem's wire precisions (Colyseus offers 8, 16 or 32 bits):
//              position to 1/512 unit within ±4,194,304 (32 bits, as Tandem),
//              angle 16 bits (Tandem: 14), velocity within ±16,384 units/s
//              (32 bits; Tandem: 1/8 unit/s, 18 bits), angular velocity within
//              ±256 rad/s (16 bits: 1/128 rad/s; Tandem: 1/64)
//   float32    t.float32() for all six
//   number     t.number() for all six (Colyseus picks int or float per value)

import { Decoder, Encoder, schema, t } from "@colyseus/schema";
import { readFileSync } from "node:fs";
import os from "node:os";

// schemaVersion is the installed package's version, read from its
// package.json (the package does not export that path).
const schemaVersion = JSON.parse(readFileSync(
  new URL("./node_modules/@colyseus/schema/package.json", import.meta.url), "utf8")).version;

// roomStatePatch stands for the message-type byte a room writes before each
// patch (the encoder starts after it, at offset 1).
const roomStatePatch = 15;

function parseArgs(argv) {
  const opts = { benchtime: 1e9, changes: [100, 1000], entities: 20000, fields: "quantized" };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--?/, "");
    const value = argv[++i];
    if (value === undefined) throw new Error(`-${name} needs a value`);
    switch (name) {
      case "benchtime": opts.benchtime = parseDuration(value); break;
      case "changes": opts.changes = value.split(",").map((s) => positiveInt(name, s)); break;
      case "entities": opts.entities = positiveInt(name, value); break;
      case "fields":
        if (!(value in fieldSets)) throw new Error(`-fields ${value}: give one of ${Object.keys(fieldSets).join(", ")}`);
        opts.fields = value;
        break;
      default: throw new Error(`unknown flag -${name}; flags: -benchtime, -changes, -entities, -fields`);
    }
  }
  return opts;
}

function positiveInt(name, s) {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`-${name} ${s}: give a positive integer`);
  return n;
}

// parseDuration reads a Go-style duration ("1s", "500ms", "2.5s") into ns.
function parseDuration(s) {
  const m = /^([0-9.]+)(ns|us|µs|ms|s)$/.exec(s);
  if (!m) throw new Error(`-benchtime ${s}: give a duration such as 1s or 500ms`);
  const unit = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9 }[m[2]];
  return Number(m[1]) * unit;
}

// fieldSets declares an entity's replicated numbers: Tandem's Transform (x, y,
// angle) and Velocity (x, y, angular). Its NetworkIdentity is the map key
// (the net id) and the owner field.
const fieldSets = {
  quantized: () => ({
    x: t.quantized({ min: -4194304, max: 4194304, bits: 32 }),
    y: t.quantized({ min: -4194304, max: 4194304, bits: 32 }),
    angle: t.angle({ bits: 16 }),
    vx: t.quantized({ min: -16384, max: 16384, bits: 32 }),
    vy: t.quantized({ min: -16384, max: 16384, bits: 32 }),
    angular: t.quantized({ min: -256, max: 256, bits: 16 }),
  }),
  float32: () => ({
    x: t.float32(), y: t.float32(), angle: t.float32(),
    vx: t.float32(), vy: t.float32(), angular: t.float32(),
  }),
  number: () => ({
    x: t.number(), y: t.number(), angle: t.number(),
    vx: t.number(), vy: t.number(), angular: t.number(),
  }),
};

function defineState(fields) {
  const Entity = schema({ ...fieldSets[fields](), owner: t.uint16() }, "Entity");
  const World = schema({ entities: t.map(Entity) }, "World");
  return { Entity, World };
}

// Room is the host side: the state, its encoder, and the bytes sent.
class Room {
  constructor(types, n) {
    this.state = new types.World();
    this.entities = [];
    for (let i = 0; i < n; i++) {
      const e = new types.Entity();
      e.x = i % 1000;
      e.y = Math.floor(i / 1000);
      this.state.entities.set(String(i + 1), e);
      this.entities.push(e);
    }
    this.encoder = new Encoder(this.state);
    this.sentBytes = 0;
    this.sentPatches = 0;
    this.last = undefined;
  }

  // join returns the full state a joining client receives, encoded into a
  // buffer of its own sized for it (the shared buffer, Encoder.BUFFER_SIZE,
  // stays at its default and holds each tick's patch).
  join() {
    const buf = new Uint8Array(64 * this.entities.length + 1024);
    return this.encoder.encodeAll({ offset: 0 }, buf);
  }

  // change moves k entities, as a game system would.
  change(k, round) {
    const ents = this.entities;
    const n = ents.length;
    for (let i = 0; i < k; i++) {
      ents[(round * k + i) % n].x += 1;
    }
  }

  // tick encodes what changed for the room's clients and hands it to send,
  // as a Colyseus room does at each patch (no filters: one encode for all).
  tick() {
    const enc = this.encoder;
    if (!enc.hasChanges) {
      this.last = undefined;
      return;
    }
    const it = { offset: 1 };
    enc.sharedBuffer[0] = roomStatePatch;
    const bytes = enc.encode(it);
    this.send(bytes);
    enc.discardChanges();
  }

  send(bytes) {
    this.sentBytes += bytes.length;
    this.sentPatches++;
    this.last = bytes;
  }
}

// Client is the one synced client: it decodes what the room sent.
class Client {
  constructor(types) {
    this.state = new types.World();
    this.decoder = new Decoder(this.state);
  }

  apply(bytes, offset) {
    this.decoder.decode(bytes, { offset });
  }
}

// check fails unless the client holds every entity as the host does.
function check(room, client) {
  const n = room.entities.length;
  if (client.state.entities.size !== n) {
    throw new Error(`client holds ${client.state.entities.size} entities, host ${n}`);
  }
  for (let i = 0; i < n; i++) {
    const h = room.entities[i];
    const c = client.state.entities.get(String(i + 1));
    if (!c || c.x !== h.x || c.y !== h.y || c.angle !== h.angle) {
      throw new Error(`entity ${i + 1}: client (${c?.x}, ${c?.y}, ${c?.angle}), host (${h.x}, ${h.y}, ${h.angle})`);
    }
  }
}

function bench(types, opts, k) {
  const n = opts.entities;
  const room = new Room(types, n);
  const client = new Client(types);
  client.apply(room.join(), 0);
  room.encoder.discardChanges();

  // Warm up to steady state, as the Go benchmark does: every entity changed
  // once, then 1,100 more ticks.
  let round = 0;
  const warm = Math.floor(n / k) + 1100;
  for (let i = 0; i < warm; i++) {
    room.change(k, round++);
    room.tick();
    if (room.last) client.apply(room.last, 1);
  }
  check(room, client);

  globalThis.gc?.();
  room.sentBytes = 0;
  room.sentPatches = 0;
  let elapsed = 0n;
  let ticks = 0;
  const budget = BigInt(Math.round(opts.benchtime));
  while (elapsed < budget) {
    const start = process.hrtime.bigint();
    room.change(k, round++);
    room.tick();
    elapsed += process.hrtime.bigint() - start;
    ticks++;
    if (room.last) client.apply(room.last, 1);
  }
  check(room, client);
  if (room.sentPatches !== ticks) {
    throw new Error(`${room.sentPatches} patches sent in ${ticks} ticks`);
  }
  const nsPerOp = Number(elapsed) / ticks;
  const bytesPerTick = room.sentBytes / ticks;
  console.log(`BenchmarkColyseusHostTick/changes-${k}\t${String(ticks).padStart(8)}\t${nsPerOp.toFixed(0).padStart(10)} ns/op\t${bytesPerTick.toFixed(0).padStart(8)} bytes/tick`);
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const types = defineState(opts.fields);
  console.log(`goos: ${os.platform()}`);
  console.log(`goarch: ${os.arch() === "x64" ? "amd64" : os.arch()}`);
  console.log(`pkg: tandem/bench/colyseus`);
  console.log(`cpu: ${os.cpus()[0]?.model ?? "unknown"}`);
  console.log(`node: ${process.version}`);
  console.log(`colyseus-schema: ${schemaVersion}`);
  console.log(`fields: ${opts.fields}`);
  console.log(`entities: ${opts.entities}`);
  if (!globalThis.gc) console.error("note: run node with --expose-gc to collect garbage before each timed run");
  for (const k of opts.changes) bench(types, opts, k);
}

main();
