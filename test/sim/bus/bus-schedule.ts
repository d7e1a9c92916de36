// One seeded step of a bus schedule: an agent calls a tool or settles a run, a process crashes at
// an fs call or is killed (its pid sometimes reused), hangs, shuts down, a second pane resumes a
// session, the wall clock jumps, time passes, or two processes race inside one call.
import { sessionTtlMs } from "../../../src/domain/bus/limits.js";
import { pick } from "../shared/pick.js";
import * as call from "./bus-calls.js";
import * as guard from "./bus-guard-calls.js";
import { killProcess, startProcess, unhang } from "./bus-process.js";
import { advance, type BusProcess, type BusSlot, type BusWorld, jump, liveProcesses } from "./bus-world.js";

/** Fs calls into a call at which a crash or another process's step lands. */
const callsInMax = 40;
/** The same, counting only calls on the bus folder an outer call works in (claims/, inbox/, ...). */
const aimedCallsMax = 8;

type Action = (world: BusWorld, proc: BusProcess, clean: boolean) => string;
/** The folder of the bus an action's races are aimed at. */
type Folder = "claims" | "inbox" | "sessions" | "offers" | undefined;

/** The tool calls and host events an agent makes, with their weights. */
const actions: Array<[number, Action, Folder]> = [
  [8, (w, p) => call.join(w, p), "sessions"],
  [14, (w, p) => call.send(w, p), "inbox"],
  [10, (w, p) => call.inbox(w, p), "inbox"],
  [16, (w, p, clean) => call.claim(w, p, clean), "claims"],
  [7, (w, p) => call.release(w, p), "claims"],
  [8, (w, p, clean) => call.status(w, p, clean), "sessions"],
  [2, (w, p, clean) => call.status(w, p, clean, true), undefined],
  [10, (w, p) => call.agentStep(w, p), undefined],
  [2, (w, p) => call.shutdown(w, p), "sessions"],
  [12, (w, p, clean) => guard.edit(w, p, clean), "claims"],
  [4, (w, p, clean) => guard.offer(w, p, clean), "offers"],
  [5, (w, p, clean) => guard.accept(w, p, clean), "claims"],
];
const actionWeight = actions.reduce((sum, [weight]) => sum + weight, 0);

function someAimedAction(world: BusWorld): [Action, Folder] {
  let roll = world.prng.nextInt(actionWeight);
  for (const [weight, action, folder] of actions) {
    if (roll < weight) return [action, folder];
    roll -= weight;
  }
  throw new Error("unreachable: the weights cover the roll");
}

const someAction = (world: BusWorld): Action => someAimedAction(world)[0];

const runnable = (world: BusWorld) => liveProcesses(world).filter((p) => !p.hung);

/** A process for a slot with none: a fresh pid, or one a dead process left and another took. */
function restart(world: BusWorld, slot: BusSlot): string {
  // A pid reused by another process is in the host's namespace: a slot in a sandbox never gets one.
  const reusable = world.processes.filter(
    (p) =>
      slot.pidNamespace === undefined &&
      !p.alive &&
      world.table.status(p.pid) === "running" &&
      !liveProcesses(world).some((l) => l.pid === p.pid),
  );
  const reused = world.prng.nextFloat() < 0.5 ? pick(world, reusable) : undefined;
  const proc = startProcess(world, slot, {
    pid: reused?.pid,
    reason: world.prng.nextFloat() < 0.5 ? "resume" : "startup",
  });
  return `start ${slot.name} #${proc.serial} pid ${proc.pid}${reused === undefined ? "" : " (reused)"}`;
}

/** A second process on a running session's id (pi -c in another pane). */
function twin(world: BusWorld, proc: BusProcess): string {
  const second = startProcess(world, proc.slot, { reason: "resume" });
  if (world.prng.nextFloat() < 0.6) call.join(world, second);
  return `twin of ${proc.slot.name}: #${second.serial} pid ${second.pid}`;
}

/** Another process's step runs inside this call, at one or two of its fs calls: any call, or
 * (mostly) one on a folder the outer call works in, where the windows between a look and a write are. */
function race(world: BusWorld, proc: BusProcess): string {
  const others = runnable(world).filter((p) => p !== proc);
  const [outer, folder] = someAimedAction(world);
  const aimed = folder !== undefined && world.prng.nextFloat() < 0.75;
  const inner: string[] = [];
  const count = 1 + world.prng.nextInt(2);
  for (let i = 0; i < count; i++) {
    const other = pick(world, others);
    if (other === undefined) break;
    const act = world.prng.nextFloat() < 0.1 ? (w: BusWorld, p: BusProcess) => kill(w, p) : someAction(world);
    const at = world.prng.nextInt(aimed ? aimedCallsMax : callsInMax);
    const step = () => {
      if (other.alive && !other.hung) inner.push(act(world, other, false));
    };
    proc.interleave.at(at, step, aimed ? `${world.busRoot}/${folder}` : undefined);
  }
  const done = outer(world, proc, false);
  for (const left of proc.interleave.disarm()) left();
  return `race: ${done} | inside: ${inner.join(" | ") || "nothing"}`;
}

/** Two or three sessions claim overlapping paths at once: each next one inside the last one's
 * claim, between two of its calls on claims/ (the window between its look and its create). */
function contend(world: BusWorld, proc: BusProcess): string {
  const said: string[] = [];
  const chain: BusProcess[] = [];
  const nest = (outer: BusProcess, depth: number): void => {
    // A process's call never runs inside its own: the next one is another process.
    chain.push(outer);
    const others = runnable(world).filter((p) => !chain.includes(p));
    const next = depth < 2 ? pick(world, others) : undefined;
    if (next !== undefined) {
      const step = () => {
        if (next.alive && !next.hung) nest(next, depth + 1);
      };
      outer.interleave.at(world.prng.nextInt(aimedCallsMax), step, `${world.busRoot}/claims`);
    }
    const base = pick(world, ["src", "src/api", "docs"]) as string;
    const keys = call.claimKeys.filter((k) => k.startsWith(base) && world.prng.nextFloat() < 0.5);
    said.push(call.claim(world, outer, false, keys.length > 0 ? keys : [base]));
    for (const left of outer.interleave.disarm()) left();
  };
  nest(proc, 0);
  return `contend: ${said.join(" | ")}`;
}

function kill(world: BusWorld, proc: BusProcess): string {
  killProcess(world, proc);
  const reused = world.prng.nextFloat() < 0.5;
  if (reused) world.table.reuse(proc.pid);
  return `kill -9 ${proc.slot.name} pid ${proc.pid}${reused ? " (pid reused)" : ""}`;
}

function hang(world: BusWorld, proc: BusProcess): string {
  proc.hung = true;
  // Half the time it is stopped by a signal, which a probe can see; else merely silent.
  const stopped = world.prng.nextFloat() < 0.5;
  if (stopped) world.table.stop(proc.pid);
  return `hang ${proc.slot.name}${stopped ? " (SIGSTOP)" : ""}`;
}

function clockJump(world: BusWorld): string {
  const roll = world.prng.nextFloat();
  const ms =
    roll < 0.4
      ? sessionTtlMs + 1 + world.prng.nextInt(60_000)
      : roll < 0.5
        ? 25 * 60 * 60_000
        : -(1 + world.prng.nextInt(5_000));
  jump(world, ms);
  return `clock jump ${ms} ms`;
}

function tick(world: BusWorld): string {
  const roll = world.prng.nextFloat();
  // Half the long waits pass the observed lapse too (it is longer than the session TTL).
  if (roll < 0.012) return guard.lapse(world);
  const ms =
    roll < 0.02 ? sessionTtlMs + world.prng.nextInt(60_000) : roll < 0.3 ? 10_000 : 1 + world.prng.nextInt(3_000);
  advance(world, ms);
  return `tick ${ms}`;
}

export function busStep(world: BusWorld): string {
  const slot = pick(world, world.slots) as BusSlot;
  const proc = pick(
    world,
    slot.processes.filter((p) => p.alive),
  );
  const roll = world.prng.nextFloat();
  if (proc === undefined) return roll < 0.4 ? restart(world, slot) : tick(world);
  if (proc.hung) {
    if (roll < 0.15) {
      unhang(world, proc);
      return `unhang ${slot.name}`;
    }
    return roll < 0.2 ? kill(world, proc) : tick(world);
  }
  if (roll < 0.6) return someAction(world)(world, proc, true);
  if (roll < 0.66) {
    proc.crash.arm(world.prng.nextInt(callsInMax));
    return `crash armed ${slot.name}: ${someAction(world)(world, proc, false)}`;
  }
  if (roll < 0.68) return kill(world, proc);
  if (roll < 0.7) return hang(world, proc);
  if (roll < 0.71) return clockJump(world);
  if (roll < 0.72 && slot.processes.length === 1) return twin(world, proc);
  if (roll < 0.8) return race(world, proc);
  if (roll < 0.85) return contend(world, proc);
  return tick(world);
}

/** Processes that died at an fs call in the last step are gone: half of their pids are reused. */
export function reap(world: BusWorld): void {
  for (const proc of liveProcesses(world)) {
    if (!proc.crash.crashed) continue;
    killProcess(world, proc);
    if (world.prng.nextFloat() < 0.5) world.table.reuse(proc.pid);
  }
}
