// A scripted stand-in for the Pi session a bus engine serves: it is idle or in a run, a raised turn
// starts a run at its next step, and every notice it gets is checked as it arrives (invariant 7:
// each message announced at most once per engine, a wake only while the agent is idle).
import type { BusHost, BusWarning, MailNotice } from "../../../src/ports/bus/bus-host.js";
import type { BusProcess, BusWorld } from "./bus-world.js";

export interface BusAgent extends BusHost {
  /** Between runStarted and runSettled. */
  running: boolean;
  /** A wake raised a turn: the run starts at this agent's next step. */
  startRequested: boolean;
  warnings: BusWarning[];
  /** Message ids this engine announced, in any notice (a reload starts a new engine and agent). */
  announced: Set<string>;
  /** A next-turn notice, checked like a wake. */
  noticed(notice: MailNotice | undefined): void;
}

export function createBusAgent(world: BusWorld, proc: () => BusProcess): BusAgent {
  const check = (notice: MailNotice) => {
    const p = proc();
    for (const message of notice.messages) {
      if (agent.announced.has(message.id)) {
        world.violations.push(`${p.slot.name} (pid ${p.pid}) was told of message ${message.id} twice`);
      }
      agent.announced.add(message.id);
    }
  };
  const agent: BusAgent = {
    running: false,
    startRequested: false,
    warnings: [],
    announced: new Set(),
    raiseTurn(notice) {
      const p = proc();
      // A process that died at an fs call runs on to the end of that call: nobody hears it.
      if (!p.alive || p.crash.crashed) return;
      if (agent.running) world.violations.push(`${p.slot.name} (pid ${p.pid}): a wake was raised during a run`);
      check(notice);
      agent.startRequested = true;
    },
    warn(warning) {
      if (proc().alive) agent.warnings.push(warning);
    },
    noticed(notice) {
      if (notice !== undefined && proc().alive && !proc().crash.crashed) check(notice);
    },
  };
  return agent;
}
