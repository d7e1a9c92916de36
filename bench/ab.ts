// Two builds of the mail engine in one process: A (a git revision) and B (the working tree), each
// delivering one message in turn with the bare-claim and validated floors, in a random order per
// message. What a change did to the delivery latency, under the same machine load: across separate
// runs this VM's load moves deliveryClaimP50 by 0.1 to 0.4, while inside one run a build against
// itself measures 0.95 to 1.04 a round, and the median of a few rounds about 0.98. Each build is a
// bundle of its own, and the floors read with a third copy of the envelope code, so neither build
// warms the other's code, nor the floors theirs.
// Run through bench/ab.sh: npm run bench:ab -- <revision> [messages] [rounds].
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Address } from "../src/domain/mail/address.js";
import type { MailboxEngine } from "../src/domain/mail/engine/index.js";
import { decodeEnvelope } from "../src/domain/mail/envelope.js";
import type { createNodeMailbox } from "../src/wiring/node-mailbox.js";
import { freshRoot, journaledClaimer, makeBox, rawClaimer, readingHost, removeRoots, timeArrival } from "./fs-bench.js";
import { median } from "./stats.js";

type MakeMailbox = typeof createNodeMailbox;

function start(make: MakeMailbox, root: string, address: string): MailboxEngine {
  let self: MailboxEngine | undefined;
  const engine = make({
    host: readingHost(() => self),
    agentDir: join(root, "agent"),
    root,
    durable: true,
    pollIntervalMs: 250,
    watch: true,
  });
  self = engine;
  engine.sessionStarted({ address: address as Address, name: address.slice(0, 8), cwd: root });
  return engine;
}

/** A small seeded generator: the same order of turns in every run. */
function seeded(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % below;
  };
}

interface Round {
  claim: number;
  validated: number;
  a: number;
  b: number;
}

async function round(makeA: MakeMailbox, makeB: MakeMailbox, messages: number, seed: number): Promise<Round> {
  const root = freshRoot("ab");
  const claimBox = makeBox(root, "claim");
  const validatedBox = makeBox(root, "validated");
  const claimer = rawClaimer(claimBox);
  const validated = journaledClaimer(validatedBox, (text) => decodeEnvelope(text)._unsafeUnwrap());
  const a = "019ad0e0-0000-7000-8000-0000000000a1";
  const b = "019ad0e0-0000-7000-8000-0000000000b1";
  // The engine started first measured a few percent slower: each round swaps who starts first.
  const bFirst = seed % 2 === 1 ? start(makeB, root, b) : undefined;
  const engineA = start(makeA, root, a);
  const engineB = bFirst ?? start(makeB, root, b);
  let inboundA: (() => void) | undefined;
  let inboundB: (() => void) | undefined;
  engineA.onInbound(() => inboundA?.());
  engineB.onInbound(() => inboundB?.());
  await new Promise((resolve) => setTimeout(resolve, 50));
  const times: number[][] = [[], [], [], []];
  const below = seeded(seed);
  for (let i = 0; i < messages; i++) {
    const turns = [
      () => timeArrival(claimBox, "claim", i, (arrived) => claimer.arm(arrived)),
      () => timeArrival(validatedBox, "validated", i, (arrived) => validated.arm(arrived)),
      () =>
        timeArrival(join(root, a), a, i, (arrived) => {
          inboundA = arrived;
        }),
      () =>
        timeArrival(join(root, b), b, i, (arrived) => {
          inboundB = arrived;
        }),
    ];
    // A random order each message: neither build follows the other, or a floor, more often.
    const order = [0, 1, 2, 3];
    for (let k = order.length - 1; k > 0; k--) {
      const j = below(k + 1);
      [order[k], order[j]] = [order[j]!, order[k]!];
    }
    for (const k of order) times[k]!.push(await turns[k]!());
  }
  claimer.close();
  validated.close();
  engineA.shutdown();
  engineB.shutdown();
  removeRoots();
  const [claim, validatedP50, ap50, bp50] = times.map(median) as [number, number, number, number];
  return { claim, validated: validatedP50, a: ap50, b: bp50 };
}

const [aPath, bPath, messagesArg, roundsArg] = process.argv.slice(2);
if (aPath === undefined || bPath === undefined) throw new Error("usage: run.mjs <a.mjs> <b.mjs> [messages] [rounds]");
const load = async (path: string): Promise<MakeMailbox> =>
  ((await import(pathToFileURL(path).href)) as { createNodeMailbox: MakeMailbox }).createNodeMailbox;
const makeA = await load(aPath);
const makeB = await load(bPath);
const messages = Number(messagesArg ?? 1000);
const rounds = Number(roundsArg ?? 3);
const us = (value: number) => `${value.toFixed(1)} µs`;
const ratiosBA: number[] = [];
for (let r = 0; r < rounds; r++) {
  const one = await round(makeA, makeB, messages, 42 + r);
  ratiosBA.push(one.b / one.a);
  console.log(
    `round ${r + 1}: claim floor ${us(one.claim)}, validated ${us(one.validated)}, A ${us(one.a)} (${(one.a / one.claim).toFixed(2)}× claim), B ${us(one.b)} (${(one.b / one.claim).toFixed(2)}× claim), B/A ${(one.b / one.a).toFixed(3)}`,
  );
}
console.log(`B/A median over ${rounds} rounds: ${median(ratiosBA).toFixed(3)}`);
