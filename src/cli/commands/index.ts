// Every command, in the order --help lists them.
import type { Command } from "../command.js";
import { busInbox, busSend, claims } from "./bus.js";
import { doctor } from "./doctor.js";
import { list } from "./list.js";
import { prune } from "./prune.js";
import { ask, send } from "./send.js";
import { sent } from "./sent.js";
import { tail } from "./tail.js";

export const commands: readonly Command[] = [list, send, ask, sent, tail, claims, busSend, busInbox, doctor, prune];
