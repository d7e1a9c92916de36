// Bounds of the shared kernel and of the adapters every context shares (adapters/fs/shared). Units
// last in every name. Each is read by src (test/limits.test.ts fails on one that is not).

/** Links followed on the way to a store's root (the mail root, the bus folder), each judged; past it
 * the path is refused (ELOOP), as Linux refuses past 40 (MAXSYMLINKS). */
export const rootPathLinksMax = 40;
/** Path segments judged on the way to a store's root, links' targets included: one bound for the walk. */
export const rootPathSegmentsMax = 4096;
