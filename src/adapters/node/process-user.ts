/** This process's user id: the owner every folder of the mail root must have. A platform without
 * user ids (Windows) reports 0 for every file's owner, so 0 is what matches there. */
export function currentUid(): number {
  return process.getuid?.() ?? 0;
}
