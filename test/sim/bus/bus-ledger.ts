// What the schedule saw happen, as ground truth for the invariants: every message published into an
// inbox (with its mtime), the ones a send reported delivered, what each session's reads returned.

export interface TrackedMessage {
  messageId: string;
  to: string;
  /** The inbox file's name. */
  name: string;
  mtimeMs: number;
}

/** One inbox row shown to a session: by which process. */
interface Shown {
  serial: number;
  bornAt: number;
  diedAt: number | undefined;
}

export interface Ledger {
  /** The recording fs saw a message renamed into `to`'s inbox as `name`. */
  published(to: string, name: string, mtimeMs: number): void;
  /** A send reported `messageId` delivered to `to`: from now on it may not vanish unseen. Returns
   * "unpublished" when no such file was ever renamed into `to`'s inbox. */
  delivered(messageId: string, to: string): "tracked" | "read-already" | "unpublished";
  /** Messages delivered and not yet returned by a read of their recipient. */
  unseen(): TrackedMessage[];
  /** A read of session `to` returned the file `name`: it may leave the inbox now. */
  returned(to: string, name: string): void;
  /** Drops a tracked message that is accounted for (expired by its TTL). */
  settle(message: TrackedMessage): void;
  /** The processes of session `id` that were shown `messageId` so far. */
  shownTo(id: string, messageId: string): Shown[];
  noteShown(id: string, messageId: string, shown: Shown): void;
}

export function createLedger(): Ledger {
  /** By `<to>/<message id>`: the name and mtime of its file. */
  const publications = new Map<string, { name: string; mtimeMs: number }>();
  const tracked = new Map<string, TrackedMessage>();
  /** Files a read of their recipient returned, by `<to>/<name>` (a read inside a send's call can
   * return a message before the send reports it delivered). */
  const returnedFiles = new Set<string>();
  const shown = new Map<string, Shown[]>();
  const messageIdOf = (name: string) => /^\d{15}-(.+)\.json$/.exec(name)?.[1];
  return {
    published(to, name, mtimeMs) {
      const id = messageIdOf(name);
      if (id !== undefined) publications.set(`${to}/${id}`, { name, mtimeMs });
    },
    delivered(messageId, to) {
      const publication = publications.get(`${to}/${messageId}`);
      if (publication === undefined) return "unpublished";
      if (returnedFiles.has(`${to}/${publication.name}`)) return "read-already";
      tracked.set(`${to}/${publication.name}`, { messageId, to, ...publication });
      return "tracked";
    },
    unseen: () => [...tracked.values()],
    returned(to, name) {
      returnedFiles.add(`${to}/${name}`);
      tracked.delete(`${to}/${name}`);
    },
    settle(message) {
      tracked.delete(`${message.to}/${message.name}`);
    },
    shownTo: (id, messageId) => shown.get(`${id}/${messageId}`) ?? [],
    noteShown(id, messageId, entry) {
      const key = `${id}/${messageId}`;
      shown.set(key, [...(shown.get(key) ?? []), entry]);
    },
  };
}
