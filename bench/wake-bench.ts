// `busWakeP50`: how soon a wake session is handed the notice of a peer's message, beside the mail
// half's delivery latency measured in the same run, on the same fresh folder, message by message.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { createFsBusStore } from "../src/adapters/fs/bus/fs-bus-store.js";
import type { FsLike } from "../src/adapters/fs/shared/fs-like.js";
import { cryptoEntropy } from "../src/adapters/node/crypto-entropy.js";
import { nodeFs } from "../src/adapters/node/node-fs.js";
import { currentUid } from "../src/adapters/node/process-user.js";
import type { BusMessage } from "../src/domain/bus/bus-files.js";
import type { MailNotice } from "../src/ports/bus/bus-host.js";
import type { RepoPlace } from "../src/ports/bus/repo-resolver.js";
import { busFolder, createNodeBus } from "../src/wiring/node-bus.js";
import { freshRoot, quiet, startEngine, timeArrival } from "./fs-bench.js";
import { median, nowUs, percentile } from "./stats.js";

export interface WakeFigures {
  /** A peer's publish (just after the rename into inbox/<id>/ returns) → the wake session's host
   * called with `raiseTurn` (the time taken inside it). */
  wakeP50Us: number;
  wakeP99Us: number;
  /** The mail half's delivery, interleaved with it: the rename into new/ → `message:inbound`. */
  deliveryP50Us: number;
  deliveryP99Us: number;
  messages: number;
  /** Messages of each half sent first and not counted: the first calls run unoptimized code. */
  warmUp: number;
}

const wakeId = "019ad0e0-0000-7000-8000-0000000000ab";
const peerId = "019ad0e0-0000-7000-8000-0000000000ac";
const mailId = "019ad0e0-0000-7000-8000-0000000000bb";
/** As long as the mail half's request, so both read a file of the same size. */
const text = (i: number) =>
  `Please run the test suite and tell me which tests fail, with the first line of each error. #${i}`;

/**
 * Each message: from a quiet loop (a timer turn, as the mail half's), a peer publishes one message
 * into the wake session's inbox with the bus store (a temp file in tmp/ renamed in; the time is
 * taken as that rename returns), and the time is taken again inside the session host's
 * `raiseTurn`. Then, untimed, the session does what Pi does with a raised turn: the run starts, the
 * agent reads its inbox (consuming the message, so the inbox does not grow over the run), the run
 * settles; so the next message can raise again. The mail half's delivery (`timeArrival` on an
 * engine with the watcher on) takes turns with it, each going first every other message.
 */
export async function benchWake(messages: number, warmUp: number): Promise<WakeFigures> {
  // One fresh folder for both halves: the mailbox at its top, the bus under its agent dir.
  const root = realpathSync(freshRoot("wake"));
  const mail = startEngine(root, mailId, { watch: true, pollMs: 250 });
  let inbound: (() => void) | undefined;
  mail.onInbound(() => inbound?.());

  const repo = join(root, "repo");
  const place: RepoPlace = { key: "bench", common: repo, root: repo, cwd: repo };
  const agentDir = join(root, "agent");
  let raised: ((at: number, notice: MailNotice) => void) | undefined;
  const session = createNodeBus({
    host: {
      raiseTurn(notice) {
        const at = nowUs();
        raised?.(at, notice);
      },
      warn(warning) {
        throw new Error(`bus warning: ${JSON.stringify(warning)}`);
      },
    },
    agentDir,
    place,
  });
  session.sessionStarted({ id: wakeId, name: "woken" }, "startup");
  const joined = session.join({ wake: true });
  if (joined.isErr() || !joined.value.wake) throw new Error(`wake join failed: ${JSON.stringify(joined)}`);

  // The peer: the bus store a sender publishes with, on node fs, noting when its rename returns.
  let published = 0;
  const timedFs: FsLike = {
    ...nodeFs,
    renameSync(from, to) {
      nodeFs.renameSync(from, to);
      published = nowUs();
    },
  };
  const peer = createFsBusStore({
    fs: timedFs,
    root: busFolder(agentDir, place),
    uid: currentUid(),
    entropy: cryptoEntropy,
  });
  const opened = peer.open();
  if (opened.isErr()) throw new Error(`bus open failed: ${opened.error.kind}`);

  const wakeOnce = async (i: number): Promise<number> => {
    const message: BusMessage = {
      id: cryptoEntropy.uuid(),
      from: peerId,
      fromLabel: "peer",
      to: wakeId,
      kind: "message",
      text: text(i),
      paths: [],
      sentAt: new Date().toISOString(),
      hops: 0,
    };
    await quiet();
    let at = 0;
    const turn = new Promise<void>((resolve, reject) => {
      raised = (t, notice) => {
        at = t;
        raised = undefined;
        if (notice.messages.length === 1 && notice.messages[0]?.id === message.id) resolve();
        else reject(new Error(`raised for ${notice.messages.map((m) => m.id).join(", ")}, not ${message.id}`));
      };
    });
    const delivered = peer.deliver(message, Date.now());
    if (delivered.isErr()) throw new Error(`deliver failed: ${delivered.error.kind}`);
    const t0 = published;
    await turn;
    session.runStarted();
    const read = session.inbox(1);
    if (read.isErr() || read.value.rows.length !== 1) throw new Error(`inbox failed: ${JSON.stringify(read)}`);
    session.runSettled(false);
    return at - t0;
  };
  const mailOnce = (i: number): Promise<number> =>
    timeArrival(join(root, mailId), mailId, i, (arrived) => {
      inbound = arrived;
    });

  // The bus's watcher and ticker never keep a process alive (Pi does): this does, until the end.
  const alive = setInterval(() => {}, 3_600_000);
  const wake: number[] = [];
  const delivery: number[] = [];
  for (let i = -warmUp; i < messages; i++) {
    const counted = i >= 0;
    const turns = [
      async () => {
        const us = await mailOnce(i);
        if (counted) delivery.push(us);
      },
      async () => {
        const us = await wakeOnce(i);
        if (counted) wake.push(us);
      },
    ];
    // Each goes first every other message, so neither always meets the warmer file system.
    const first = ((i % 2) + 2) % 2;
    await turns[first]!();
    await turns[1 - first]!();
    inbound = undefined;
  }
  clearInterval(alive);
  session.shutdown("quit");
  mail.shutdown();
  return {
    wakeP50Us: median(wake),
    wakeP99Us: percentile(wake, 99),
    deliveryP50Us: median(delivery),
    deliveryP99Us: percentile(delivery, 99),
    messages,
    warmUp,
  };
}
