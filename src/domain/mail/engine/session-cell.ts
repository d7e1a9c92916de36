// Who this session is on the mail root and whether its mailbox is open: the one piece of state every
// part reads. Only the lifecycle writes it (it is given the writer; the others get the reader).
import type { Address } from "../address.js";
import type { MailMode } from "../running-record.js";

export interface MailIdentity {
  address: Address;
  name: string | undefined;
  cwd: string;
  /** Its label on the bus, when the bus of this process has one (peers reach it by that too). */
  label?: string | undefined;
}

/** What a rename changes: Pi's name, or the bus label. */
export type NameChange = { name: string | undefined } | { label: string | undefined };

export interface SessionCell {
  /** A copy: who this session is, once its mailbox opened. */
  identity(): MailIdentity | undefined;
  address(): Address | undefined;
  /** Shut down or halted: nothing more is claimed, delivered or written. */
  closed(): boolean;
  /** Inside sessionStarted: nothing is emitted from there. */
  starting(): boolean;
  /** What its person lets reach it now. */
  mailMode(): MailMode;
}

export interface SessionCellWriter extends SessionCell {
  opened(identity: MailIdentity): void;
  renamed(change: NameChange): void;
  setStarting(starting: boolean): void;
  setMailMode(mode: MailMode): void;
  close(): void;
}

export function createSessionCell(): SessionCellWriter {
  let identity: MailIdentity | undefined;
  let closed = false;
  let starting = false;
  let mailMode: MailMode = "accept";
  return {
    identity: () => (identity === undefined ? undefined : { ...identity }),
    address: () => identity?.address,
    closed: () => closed,
    starting: () => starting,
    mailMode: () => mailMode,
    setMailMode(mode) {
      mailMode = mode;
    },
    opened(opened) {
      identity = opened;
    },
    renamed(change) {
      if (identity !== undefined) Object.assign(identity, change);
    },
    setStarting(value) {
      starting = value;
    },
    close() {
      closed = true;
    },
  };
}
