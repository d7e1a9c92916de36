// Every bound of the mailbox in one place. Units last in every name.

/** The body of injected mail is cut here; the label names the envelope's path. */
export const injectBodyBytesMax = 32 * 1024;
/** Each request quoted in a reply is cut here; the label names the sent copy's path. */
export const quotedRequestBytesMax = 2 * 1024;
/** An envelope naming more requests than this in `in_reply_to` is set aside (the spec's rule). */
export const inReplyToMax = 50;
/** Largest body a session writes (send, ask, reply, request). */
export const sendBodyBytesMax = 256 * 1024;
/** An automatic answer's text is cut here, leaving room in sendBodyBytesMax for the line saying so. */
export const automaticAnswerBytesMax = sendBodyBytesMax - 200;
/** Largest envelope file ever opened as mail; bigger ones are set aside unread. */
export const envelopeFileBytesMax = 1024 * 1024;
/** Largest running record read; bigger ones are treated as unreadable. */
export const runningRecordBytesMax = 16 * 1024;
/** Largest `session-mail.json` read. */
export const configFileBytesMax = 64 * 1024;
/** Entries read from one folder listing (new/, running/, the mail root). */
export const folderEntriesMax = 20_000;
/** Entries of sent/ read by one lookup of a reply's requests. Names are streamed and only
 * candidates kept, so this bounds time (about 0.4 s at the bound here), never memory. */
export const sentEntriesReadMax = 50 * folderEntriesMax;
/** Files read per id asked, by name candidates for its sent copy; the id inside decides, so a few
 * decoys cost a few reads and more than this many can hide the copy. */
export const sentCandidatesPerIdMax = 8;
/** Entries read by one listing of new/ in all, mail or not: a folder of dot-files cannot make it endless. */
export const folderEntriesReadMax = 5 * folderEntriesMax;
/** Entries of new/ that are never mail (dot-files, names that are not UTF-8) named by one listing;
 * the rest are only counted, and told in one summary notice. */
export const hiddenNamesMax = 3;
/** Envelopes claimed in one turn of the event loop: a big inbox drains a slice per turn, so the
 * host answers between slices. 64 names of the usual 57 bytes make a claim journal of 3,842
 * bytes: it fits the one page that is rewritten in place (a bigger one is a temp file and a
 * rename per slice, and the old journal's delete slows ext4's next creates). */
export const claimSliceMax = 64;
/** Names this session moved out of new/ remembered so their late watcher hints claim nothing
 * (a forgotten one costs one lstat). */
export const claimedNamesMax = 10 * claimSliceMax;
/** Names taken from new/ by one listing of a drain. A listing runs within one turn of the event
 * loop, about 1 µs a name here: 20,000 stalled the host for 15-25 ms at each listing. */
export const inboxListingNamesMax = 5_000;
/** Running records considered by one listing or lookup. */
export const runningRecordsMax = 2_000;
/** Longest envelope id read (any characters: ids are data); a longer one is set aside. */
export const idCharsMax = 1_024;
/** Longest address (session id) accepted. */
export const addressCharsMax = 128;
/** Shortest id prefix that addresses a running session. */
export const idPrefixCharsMin = 8;
/** A sender's unchanged running record judged alive is trusted this long for its label. */
export const senderJudgedMs = 1_000;
/** Senders whose verdicts are remembered for that. */
export const sendersRememberedMax = 100;
/** A notice is cut to this many characters (after its controls became spaces). */
export const noticeCharsMax = 2_000;
/** A name, cwd or id is cut to this many characters in a label. */
export const labelFieldCharsMax = 512;
/** How long session_mail_ask waits for the answer. */
export const askWaitMs = 10 * 60 * 1000;
/** How often a waiting session_mail_ask tells the person whom it waits on and for how long. */
export const askProgressIntervalMs = 10 * 1000;
/** Running sessions /mailbox lists in its notice; the rest are counted. */
export const mailboxListedMax = 50;
/** `/mailbox sent` lists this many of the newest sent copies (and `cancel` finds an id among them). */
export const sentListedMax = 50;
/** Unknown keys of session-mail.json named in its warning; the rest are counted. */
export const unknownConfigKeysNamedMax = 5;
/** Senders named in the notice about requests held by a stop; the rest are counted. */
export const heldSendersNamedMax = 5;
/** Text shown on one line for a person (a summary's answer, a typed recipient or config key echoed
 * back) is cut here. */
export const shownLineCharsMax = 200;
/** A session rewrites its running record this often, so that its `updated` shows it still runs
 * to a reader in another pid namespace, who cannot check its pid. */
export const recordRefreshIntervalMs = 60 * 1000;
/** A record from another pid namespace counts as running while `updated` is at most this old:
 * ten refreshes, so a busy event loop or a short suspend does not make a live session look gone. */
export const recordFreshMs = 10 * recordRefreshIntervalMs;
/** The poll that backs the folder watcher (watch events are hints, the poll does the work). */
export const pollIntervalMs = 250;
/** How often a guest (the same session open in a second process) tries to take the inbox over,
 * and an owner checks it still holds it. */
export const ownerCheckMs = 5_000;
/** Holders replaced in one attempt to take the inbox over: a twin closing makes the other one the owner. */
export const ownerTakeoverAttemptsMax = 3;
/** How often a start whose open failed (a read-only root, a full disk) is tried again. */
export const startRetryMs = 5_000;
/** A file in tmp/ older than this is a crashed writer's leftover and is removed. */
export const tmpLeftoverAgeMs = 60 * 60 * 1000;
/** The tmp/ sweep runs every this many polls (once a minute at the 250 ms poll). */
export const sweepEveryPolls = 240;
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
/** Running records followed from an ask's target through their `waitingOn` before the ask is judged
 * free of a wait cycle: a longer chain of sessions each waiting on the next is taken as no cycle. */
export const waitChainMax = 64;
/** A held request waits for a completed run; a session holds at most this many. */
export const heldRequestsMax = 1_000;
/** The newest sent copies read at start to rebuild "awaiting" (what this session still waits on). */
export const awaitingCopiesMax = 200;
/** The newest received mails read at start to find the replies that answer those copies. */
export const awaitingRepliesMax = 1_000;
/** Asks remembered across a restart: open ones (still to answer) and answered ones (never twice). */
export const askLedgerAsksMax = 1_000;
/** The ask ledger's bytes at most, from what it records: askLedgerAsksMax open asks (an id and a
 * 36-character address each) and as many answered ids, each id up to idCharsMax characters of 6
 * bytes at worst once JSON escapes them, with quotes, brackets and commas. Whatever the engine
 * writes reads back (12 MB for ids no real sender makes; a ledger of UUIDs is under 100 KB). */
export const askLedgerBytesMax = askLedgerAsksMax * (2 * 6 * idCharsMax + 36 + 11) + 64;
/** Answers a settle could not write (a full disk), kept to be tried again. */
export const owedRepliesMax = 1_000;
/** Mail claimed and not yet read, per session: a scan claims no more while this many wait to be
 * read, so the claim journal stays bounded and the rest waits in new/. */
export const pendingMailMax = 10_000;
/** The claim journal names at most the mail claimed and not yet read. */
export const journalNamesMax = pendingMailMax;
/** A journal's bytes at most: each name is at most 255 bytes (NAME_MAX), 6 bytes each once JSON
 * escapes a control character, plus quotes and a comma. */
export const journalBytesMax = journalNamesMax * (255 * 6 + 3) + 2;
/** The tail of a Pi session file read when a mail's recovery asks whether another process of the
 * same session (a twin that crashed) showed it: mail shown just before a crash is near the end. */
export const sessionFileTailBytesMax = 16 * 1024 * 1024;
