// Every bound of the coordination bus in one place. Units last in every name. Each is read by src
// (a test fails on one that is not).

// The spec's fixed numbers (not configurable in v1).
/** A joined session rewrites its record this often; the record's mtime is the heartbeat. */
export const heartbeatMs = 10_000;
/** A listening session reads its inbox at least this often (watcher hints make it sooner). */
export const watchPollMs = 2_000;
/** A record whose heartbeat is older than this is pruned, and its label and claims freed. */
export const sessionTtlMs = 10 * 60_000;
/** An inbox file older than this (by mtime) is deleted unread. */
export const messageTtlMs = 24 * 60 * 60_000;
/** Longest `send` text, in Unicode code points. */
export const messageTextCharsMax = 4_000;
/** `inbox` limit: default and largest. */
export const inboxLimitDefault = 20;
export const inboxLimitMax = 50;
/** Each body shown by `inbox` is clipped here (code points); a handoff keeps more. */
export const inboxBodyCharsMax = 400;
export const handoffBodyCharsMax = 800;
/** One `inbox` read stops before the row that would pass this many code points. */
export const inboxReadCharsMax = 4_000;
/** A wake or next-turn notice previews each message this far (a handoff: handoffBodyCharsMax). */
export const noticePreviewCharsMax = 200;
/** One watch poll reads at most this many messages it has not announced. */
export const watchPageMax = 50;

// Store bounds.
