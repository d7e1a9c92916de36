// A scripted stand-in for a Pi session: it queues injected mail like Pi's steer queue, enters it
// into the transcript between model calls, and settles runs the way the scheduler tells it.

import type { AgentHost, InjectedMail, InjectOptions } from "../../../src/ports/mail/agent-host.js";
import { trace } from "../shared/trace.js";

/** The session file, shared by every process that opened it (two, for a twin). */
export interface Transcript {
  /** Mail ids that entered the conversation (the session file: survives a crash of the process). */
  shown: Set<string>;
  /** Mail a message:inbound listener took over: it reached the session without being shown. */
  takenOver: Set<string>;
  /** Mail the user's stop dropped from the queue before the model read it. */
  dropped: Set<string>;
  /** Every agent opened on this session file, dead ones too. */
  agents: FakeAgent[];
}

export function createTranscript(): Transcript {
  return { shown: new Set(), takenOver: new Set(), dropped: new Set(), agents: [] };
}

/** Whether mail reached the session: shown, taken over, or dropped by a stop of the user. */
export function reached(transcript: Transcript, id: string): boolean {
  return transcript.shown.has(id) || transcript.takenOver.has(id) || transcript.dropped.has(id);
}

export interface FakeAgent extends AgentHost {
  /** Mail queued for the next model call (lost when the process dies). */
  readonly queue: InjectedMail[];
  /** Quiet mail that came during a run: Pi holds it in memory and appends it when the run settles. */
  readonly heldQuiet: string[];
  /** A run is active, or was requested by mail or input and starts at the next step. */
  running: boolean;
  startRequested: boolean;
  alive: boolean;
  readonly notices: string[];
  /** Mail ids injected while this process lived. */
  readonly injected: Set<string>;
  /** Mail enters the conversation: into the session file and this process's view of it. */
  show(id: string): void;
  /** The run settles: Pi appends the quiet mail it held. */
  flushQuiet(): void;
}

export function createFakeAgent(transcript: Transcript, onViolation: (text: string) => void): FakeAgent {
  // Like Pi: a process knows the session file as it loaded it, plus what it appended itself (a twin
  // does not see what the other one appends).
  const seen = new Set(transcript.shown);
  const agent: FakeAgent = {
    queue: [],
    heldQuiet: [],
    running: false,
    startRequested: false,
    alive: true,
    notices: [],
    injected: new Set(),
    show(id: string) {
      transcript.shown.add(id);
      seen.add(id);
    },
    flushQuiet() {
      for (const id of agent.heldQuiet.splice(0)) agent.show(id);
    },
    inject(mail: InjectedMail, options: InjectOptions) {
      if (!agent.alive) return;
      const id = mail.details.mailId;
      const queued = transcript.agents.some(
        (a) => a.alive && (a.queue.some((m) => m.details.mailId === id) || a.heldQuiet.includes(id)),
      );
      if (transcript.shown.has(id) || queued) {
        onViolation(`mail ${id} was injected twice`);
        return;
      }
      agent.injected.add(id);
      trace(id, () => `injected triggerTurn=${options.triggerTurn} running=${agent.running}`);
      if (!options.triggerTurn) {
        // Appended quietly, with no message_end: at once when idle; during a run Pi holds it until
        // the run settles (a crash before then loses it with the process).
        if (agent.running) agent.heldQuiet.push(id);
        else agent.show(id);
        return;
      }
      agent.queue.push(mail);
      if (!agent.running) agent.startRequested = true;
    },
    notify(text: string) {
      if (agent.alive) agent.notices.push(text);
    },
    setStatus() {},
    // In this process's memory, or in the session file on disk (where a twin appends too).
    hasShown: (id: string) => seen.has(id) || transcript.shown.has(id),
  };
  transcript.agents.push(agent);
  return agent;
}
