// Node's crypto and child_process, loaded on first use. Imported at the top they are dozens of
// internal modules and about 15 ms of a program's start (measured: `node -e "require('crypto')"`
// against `node -e ""`), and most runs of the shell program need neither: `switchboard list` makes no
// id and starts no process on Linux. Pi has both loaded already, so its sessions pay nothing either way.

/** node:crypto, loaded at the first call. */
export const nodeCrypto = () => process.getBuiltinModule("node:crypto");

/** node:child_process, loaded at the first call. */
export const nodeChildProcess = () => process.getBuiltinModule("node:child_process");
