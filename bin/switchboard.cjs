#!/usr/bin/env node
"use strict";
// The `switchboard` program, built into dist/cli/ on install. Node's compile cache (Node 22.1 and
// later) lets each run after the first reuse V8's compilation of its 220 KB instead of compiling it
// again: about 5 ms of the 100 ms a `switchboard list` takes, measured.
require("node:module").enableCompileCache?.();
require("../dist/cli/switchboard.cjs");
