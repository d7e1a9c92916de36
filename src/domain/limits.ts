// Every bound of the mailbox in one place. Units last in every name.

/** The body of injected mail is cut here; the label names the envelope's path. */
export const injectBodyBytesMax = 32 * 1024;
/** Each request quoted in a reply is cut here; the label names the sent copy's path. */
export const quotedRequestBytesMax = 2 * 1024;
/** An envelope naming more requests than this in `in_reply_to` is set aside (the spec's rule). */
export const inReplyToMax = 50;
/** Largest body a session writes (send, ask, reply, request). */
export const sendBodyBytesMax = 256 * 1024;
/** Largest envelope file ever opened as mail; bigger ones are set aside unread. */
export const envelopeFileBytesMax = 1024 * 1024;
/** Largest running record read; bigger ones are treated as unreadable. */
export const runningRecordBytesMax = 16 * 1024;
/** Largest `session-mail.json` read. */
export const configFileBytesMax = 64 * 1024;
/** Entries read from one folder listing (new/, running/, the mail root). */
export const folderEntriesMax = 20_000;
/** Envelopes claimed in one scan; a fuller inbox is drained by the next scans. */
export const claimBatchMax = 1_000;
/** Running records considered by one listing or lookup. */
export const runningRecordsMax = 2_000;
/** Longest address (session id) accepted. */
export const addressCharsMax = 128;
/** Shortest id prefix that addresses a running session. */
export const idPrefixCharsMin = 8;
/** A name, cwd or id is cut to this many characters in a label. */
export const labelFieldCharsMax = 512;
/** How long session_mail_ask waits for the answer. */
export const askWaitMs = 10 * 60 * 1000;
/** The poll that backs the folder watcher (watch events are hints, the poll does the work). */
export const pollIntervalMs = 250;
/** A file in tmp/ older than this is a crashed writer's leftover and is removed. */
export const tmpLeftoverAgeMs = 60 * 60 * 1000;
/** Leftovers removed from tmp/ per sweep. */
export const tmpSweepMax = 1_000;
/** Defaults of `session-mail.json`. */
export const hopLimitDefault = 5;
export const pruneAfterDaysDefault = 30;
/** Upper bounds accepted for the config values. */
export const hopLimitMax = 1_000;
export const pruneAfterDaysMax = 36_500;
/** Mail ids remembered to refuse a second answer or a second delivery. */
export const rememberedIdsMax = 10_000;
/** Address folders examined by one prune. */
export const pruneFoldersMax = 20_000;
/** A held request waits for a completed run; a session holds at most this many. */
export const heldRequestsMax = 1_000;
/** Injected mail not yet read, tracked per session. */
export const pendingMailMax = 10_000;
