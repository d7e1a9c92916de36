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
/** The same text of the same kind and paths from the same sender, sent again within this long of
 * the first, is one row of a read (and one line of a notice) with a count: a loop or a retrying
 * model shows once, and every file is consumed. */
export const duplicateWindowMs = 60_000;
/** The first line of each unread message a leaving session names to its sender is cut here. */
export const leftUnreadPreviewCharsMax = 80;
/** One watch poll reads at most this many messages it has not announced. */
export const watchPageMax = 50;

// Rules and engine bounds.
/** Paths a row or a notice names of one message, each cut to pathShownCharsMax; the rest counted. */
export const pathsShownMax = 8;
export const pathShownCharsMax = 200;
/** A label is `[a-z0-9][a-z0-9._-]{0,63}`: at most this many characters. */
export const labelCharsMax = 64;
/** A derived label that is taken gets the end of the session id, at least this many hex digits. */
export const labelSuffixHexMin = 4;
/** A path argument (claim, release, a message's paths) longer than this is refused. */
export const pathCharsMax = 4_096;
/** Paths in one claim, release or message. */
export const pathsPerCallMax = 64;
/** Folders walked up from a path that does not exist yet to its deepest existing ancestor. */
export const pathSegmentsMax = 256;
/** Message ids the watch remembers as announced (pruned by what is still on disk). */
export const announcedIdsMax = 10_000;
/** A claim an edit took (observed) lapses this long after its holder's last edit of the path. */
export const observedLapseMs = 15 * 60_000;
/** Offers one listing of offers/ reads (the board's and a prune's); past it the rest wait. */
export const offersListedMax = 1_000;
/** Largest offer file read: its keys at their caps, JSON-escaped at worst, and the fields around them. */
export const offerBytesMax = pathsPerCallMax * (pathCharsMax * 6 + 3) + 16 * 1024;
/** Entries under live peers' claims (files, and the folders walked) one shell call's look before
 * and after stamps, in all; past it the rest are not checked, and the tool result says so. */
export const shellWatchFilesMax = 2_000;
/** Claimed files one shell call's report names; the rest are counted. */
export const shellWritesNamedMax = 8;
/** The command's first line, as a holder's event quotes it, is cut here (code points). */
export const shellCommandShownCharsMax = 200;
/** Claims one claim call reaps as orphans (the rest wait for the next call). */
export const reapPerCallMax = 1_000;
/** Rows of ended sessions (their process provably gone) a prune keeps for the board, newest first;
 * older ones go at once, so a storm of crashes does not leave every listing reading them. */
export const goneRowsMax = 50;
/** Owners of colliding claims a claim reads by their own record; more, and it lists sessions/. */
export const ownerReadsMax = 1_000;
/** A wall clock that moved this much further than the monotonic clock between two calls stepped
 * (suspend and resume, NTP): the step is not time this reader saw pass. */
export const clockStepToleranceMs = 1_000;
/** A running, unstopped process whose heartbeat is older than this by the wall clock suggests the
 * clock stepped: no mail is expired by that reading. */
export const heartbeatLateMs = 6 * heartbeatMs;

// Store bounds.
/** Ids that become file names (session ids, join tokens, message ids): at most this many characters. */
export const busIdCharsMax = 128;
/** The copies of sent messages a session remembers, to show which its peers have not read yet. */
export const sentRememberedMax = 500;
/** Pi's session name as a record carries it (longer names are cut). */
export const sessionNameCharsMax = 256;
/** A free-text field of a stored record (label, start token, namespace) read back: generous, so a
 * newer build's longer label still reads; what this build writes is bounded tighter. */
export const storedFieldCharsMax = 1_024;
/** Largest session record file read: two paths of pathCharsMax, JSON-escaped at worst, and the rest. */
export const recordBytesMax = 2 * pathCharsMax * 6 + 16 * 1024;
/** Largest message file read: the text and every path at their caps, JSON-escaped at worst (6 bytes
 * a code point), and the fields around them; so every message encodeBusMessage accepts reads back. */
export const messageBytesMax = messageTextCharsMax * 6 + pathsPerCallMax * (pathCharsMax * 6 + 3) + 16 * 1024;
/** A claim file's name: NAME_MAX on Linux and macOS, in bytes. */
export const claimNameBytesMax = 255;
/** Entries one listing of sessions/ reads; past it, no label is judged free and no claim an orphan
 * for want of its owner's record (each owner is then read by its own name). */
export const recordsListedMax = 20_000;
/** Heartbeats a reader remembers watching (one per record of a full listing). */
export const silenceWatchIdsMax = recordsListedMax;
/** Entries one listing of claims/ reads: the one listing a claim check costs. */
export const claimsListedMax = 20_000;
/** Entries of claims/ one slice of the board's read lists (dot-files too): the board gives Pi's loop
 * back between slices, so even a full claims/ never holds it for one whole listing. */
export const claimsPageEntriesMax = 2_000;
/** Entries one listing of an inbox reads (peek, count, prune); past it the front is the front of what was read. */
export const inboxEntriesMax = 20_000;
/** Dot-files one listing passes over, counted apart from its entries: never data, so they cannot
 * hide a record or a message, and their own bound keeps a folder of them from making it endless. */
export const dotEntriesListedMax = 20_000;
/** Entries of its own inbox one watch poll lists (the listing goes on where the last one stopped). */
export const inboxPassSliceMax = 2_000;
/** Files one session's index of its own inbox holds; past it the order of what is left is not exact. */
export const inboxIndexedMax = 200_000;
/** A message published this long before a listing of its inbox began may be missing from it (the
 * sender's write and rename, the file system's clock grain): that listing is exact before it. */
export const arrivalSettleMs = 100;
/** An inbox whose last whole listing read at most this many entries may be listed next in one
 * readdir (cheaper than a listing a slice at a time, but it cannot stop at a bound)... */
export const smallInboxEntriesMax = 64;
/** ... if that listing ended at most this long ago (a listening watch lists at every poll)... */
export const smallInboxPassAgeMs = 5_000;
/** ... and the folder's size is at most this (where a file system grows a folder with its entries,
 * about a hundred of them): mail that flooded in since is listed a slice at a time. */
export const smallInboxFolderBytesMax = 16_384;
/** A bus folder whose size is at most this is listed in one readdir rather than streamed (a few
 * hundred names where a file system grows a folder with its entries; a few thousand at worst). */
export const wholeListingFolderBytesMax = 65_536;
/** Shown messages set aside one look at an inbox settles (one read shows at most inboxLimitMax). */
export const asideListedMax = 1_000;
/** Inbox files one prune looks at (an lstat each) over every inbox, dot-files and shown mail set
 * aside included: the next prune goes on where it stopped, oldest names first, so a status beside a
 * peer's inbox of 100,000 files costs this many lstats, not 100,000. */
export const pruneFilesLookedMax = 2_000;
/** Inbox folders one listing of inbox/ returns. */
export const inboxesListedMax = 2_000;
/** Entries one sweep of tmp/ looks at, and removes at most. */
export const tmpSweepEntriesMax = 1_000;
/** A file in tmp/ older than this is a crashed writer's (a live one keeps it for microseconds). */
export const tmpLeftoverAgeMs = 60 * 60_000;
/** The repository resolver's git run: its time limit and the most output it reads. */
export const gitTimeoutMs = 5_000;
export const gitOutputBytesMax = 64 * 1024;
/** A `.git` file read to tell a worktree nested in another (its `gitdir:` line): at most this many bytes. */
export const gitLinkBytesMax = 8 * 1024;
/** The git guard's reads (a stash listing, a status of the claimed paths): each one's time limit
 * and the most output it reads. Past either, the command is let through unchecked. */
export const gitGuardTimeoutMs = 5_000;
export const gitGuardOutputBytesMax = 1024 * 1024;
/** `sh -c '…'` read inside `sh -c '…'` this deep at most; deeper scripts are not read. */
export const shellNestingMax = 3;
/** A bash command longer than this (a file written through a here-document) is not read for git:
 * reading a megabyte of shell words takes most of a second. It passes, and the person is told. */
export const shellCommandCharsMax = 100_000;
/** git invocations of one shell command the guard checks; the rest pass unchecked. */
export const gitCallsCheckedMax = 16;

// What the model and a person read.
/** One `status` text stops adding sessions and paths before it would pass this many characters
 * (UTF-16 units); what it left out is counted in one closing line. */
export const statusTextCharsMax = 8_000;
/** A session id is shown as its shortest prefix no other known id starts with, at least this long. */
export const idShownCharsMin = 8;
/** Session ids the extension remembers to keep those prefixes apart (a status read replaces them). */
export const idsKnownMax = 4_000;
