// Mail already claimed into cur/ that still has to be read: what a crash left journaled (read at
// start, before anything new is claimed), and mail whose read failed after its claim (EMFILE, EIO),
// read again at each poll. The claim journal names both until they are read or set aside.
import type { StoreError } from "../../../ports/shared/store-error.js";

interface Stranded {
  error: StoreError;
  /** Claimed by a crashed run: it may have been shown before. */
  recovering: boolean;
}

export interface Backlog {
  /** Recovery is done: claims may begin. */
  ready(): boolean;
  /** The journal was read: these are the names a crash left, none recovered yet. */
  recovering(): string[] | undefined;
  setRecovering(names: string[]): void;
  /** Another process owns the inbox now: its journal is read again when this one takes it back. */
  forget(): void;
  stranded(): ReadonlyMap<string, Stranded>;
  strand(name: string, stranded: Stranded): void;
  unstrand(name: string): void;
  strandedCount(): number;
  /** What the journal must keep for recovery: failed reads, then names not recovered yet. */
  journaled(): string[];
  /** How many names journaled() gives. */
  journaledCount(): number;
}

export function createBacklog(): Backlog {
  const stranded = new Map<string, Stranded>();
  // Undefined until the journal was read: no claim happens before recovery is done.
  let recovering: string[] | undefined;
  return {
    ready: () => recovering !== undefined && recovering.length === 0,
    recovering: () => recovering,
    setRecovering(names) {
      recovering = names;
    },
    forget() {
      recovering = undefined;
    },
    stranded: () => stranded,
    strand: (name, entry) => void stranded.set(name, entry),
    unstrand: (name) => void stranded.delete(name),
    strandedCount: () => stranded.size,
    journaled: () => [...stranded.keys(), ...(recovering ?? [])],
    journaledCount: () => stranded.size + (recovering?.length ?? 0),
  };
}
