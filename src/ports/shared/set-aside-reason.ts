/** Why an entry (an envelope in new/, a file of a store's folder) was not read: `foreign-owner`:
 * the file belongs to another user, who could have written anything in it. A mail store moves such
 * an entry of new/ to cur/ without reading it as mail. */
export type SetAsideReason = "symlink" | "not-a-file" | "too-big" | "foreign-owner";
