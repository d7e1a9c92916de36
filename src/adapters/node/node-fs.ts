import * as fs from "node:fs";
import type { FsLike } from "../fs/shared/fs-like.js";

/** The real filesystem. No wrapper: node:fs already has the Linux (or macOS) semantics the stores rely on. */
export const nodeFs: FsLike = fs;
