// A scripted stand-in for a Pi session: it queues injected mail like Pi's steer queue, enters it
// into the transcript between model calls, and settles runs the way the scheduler tells it.

import type { AgentHost, InjectedMail, InjectOptions } from "../../src/ports/agent-host.js";
import { trace } from "./trace.js";

export interface Transcript {
  /** Mail ids that entered the conversation (the session file: survives a crash of the process). */
  shown: Set<string>;
}

export interface FakeAgent extends AgentHost {
  /** Mail queued for the next model call (lost when the process dies). */
  readonly queue: InjectedMail[];
  /** A run is active, or was requested by mail or input and starts at the next step. */
  running: boolean;
  startRequested: boolean;
  alive: boolean;
  readonly notices: string[];
  /** Mail ids injected while this process lived. */
  readonly injected: Set<string>;
}

export function createFakeAgent(transcript: Transcript, onViolation: (text: string) => void): FakeAgent {
  const agent: FakeAgent = {
    queue: [],
    running: false,
    startRequested: false,
    alive: true,
    notices: [],
    injected: new Set(),
    inject(mail: InjectedMail, options: InjectOptions) {
      if (!agent.alive) return;
      const id = mail.details.mailId;
      if (transcript.shown.has(id) || agent.queue.some((m) => m.details.mailId === id)) {
        onViolation(`mail ${id} was injected twice`);
        return;
      }
      agent.injected.add(id);
      trace(id, () => `injected triggerTurn=${options.triggerTurn} running=${agent.running}`);
      if (!options.triggerTurn) {
        // Appended quietly: in the transcript at once, and Pi reports no message_end for it.
        transcript.shown.add(id);
        return;
      }
      agent.queue.push(mail);
      if (!agent.running) agent.startRequested = true;
    },
    notify(text: string) {
      if (agent.alive) agent.notices.push(text);
    },
    setStatus() {},
    hasShown: (id: string) => transcript.shown.has(id),
  };
  return agent;
}
